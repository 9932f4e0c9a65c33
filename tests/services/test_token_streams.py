"""Revoking or rotating a seat token ends every WatchGame stream opened with it within a second, before any
later entry (and so any later secret of that seat) reaches it; spectator streams go on."""

from __future__ import annotations

import threading
import time

import grpc

from services.gamestate.client import GameServiceError, Update
from services.gamestate.client_sync import GameClient

C = grpc.StatusCode


class Watcher:
    """One WatchGame stream read in a daemon thread: its updates, when it ended and with which error."""

    def __init__(self, client: GameClient, game_id: str, token: str | None):
        self.updates: list[Update] = []
        self.error: GameServiceError | None = None
        self.ended_at: float | None = None
        self._first = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(client, game_id, token), daemon=True)
        self._thread.start()
        assert self._first.wait(5), "the stream sent nothing"

    def _run(self, client: GameClient, game_id: str, token: str | None) -> None:
        try:
            for update in client.watch(game_id, token):
                self.updates.append(update)
                self._first.set()
        except GameServiceError as exc:
            self.error = exc
        finally:
            self.ended_at = time.monotonic()
            self._first.set()

    def join(self, timeout: float) -> bool:
        """True if the stream ended within `timeout` seconds."""
        self._thread.join(timeout)
        return not self._thread.is_alive()


def wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def assert_revoked_within(watcher: Watcher, since: float, seconds: float) -> None:
    assert watcher.join(seconds + 2), "the stream is still open"
    assert watcher.ended_at is not None and watcher.ended_at - since < seconds, watcher.ended_at - since
    assert watcher.error is not None and watcher.error.code == C.UNAUTHENTICATED, watcher.error
    assert "seat token revoked" in watcher.error.message


def test_rotating_a_token_ends_its_streams_within_a_second_even_on_an_idle_game(make_instance, make_client):
    client = make_client(make_instance(watch_block_ms=5000))  # a read blocks 5 s: the check must not wait for it
    game = client.create_game("toybids", 2, seed=71)
    mine, again, spectator = (Watcher(client, game.game_id, t) for t in (game.token(0), game.token(0), None))
    other = Watcher(client, game.game_id, game.token(1))
    rotated_at = time.monotonic()
    new = client.rotate_token(game.game_id, game.token(0))
    assert_revoked_within(mine, rotated_at, 1.0)
    assert_revoked_within(again, rotated_at, 1.0)
    hand = client.get_game(game.game_id, new).view["hand"]
    client.submit(game.game_id, new, {"type": "bid", "card": hand[0]}, 0)  # a secret of seat 0: "you_bid"
    fresh = Watcher(client, game.game_id, new)  # the new token watches as usual
    for watcher in (spectator, other, fresh):
        wait_for(lambda w=watcher: len(w.updates) > 1)
        assert [u.version for u in watcher.updates] == [0, 1]
        assert not watcher.join(0), "the other streams go on"
    assert [u.version for u in mine.updates] == [u.version for u in again.updates] == [0]


def test_resigning_ends_the_seats_streams_before_its_auto_played_secret(make_instance, make_client):
    client = make_client(make_instance(watch_block_ms=5000))
    game = client.create_game("toybids", 3, seed=72)  # played out: 2 seats stay
    mine = Watcher(client, game.game_id, game.token(0))
    resigned_at = time.monotonic()
    # version 1 records the resignation, version 2 plays seat 0's default bid (its "you_bid" is seat 0's secret)
    assert client.resign(game.game_id, game.token(0)) == 1
    assert_revoked_within(mine, resigned_at, 1.0)
    assert 2 not in [u.version for u in mine.updates]
    assert not any(e["type"] == "you_bid" for u in mine.updates for e in u.events)
    assert client.get_game(game.game_id).version == 2
