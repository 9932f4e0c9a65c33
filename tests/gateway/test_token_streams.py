"""An SSE stream opened with a seat token follows the service's WatchGame stream: once the token is rotated or
the seat resigns, it sends an `error` event and closes within a second, with no later secret of that seat."""

from __future__ import annotations

import json
import threading
import time

import pytest

from services.gamestate.client_sync import GameClient
from tests.gateway.helpers import Sse, auth, create, parse_sse


class SseReader:
    """Reads one SSE stream in a daemon thread: its events (event name, data) and when it closed."""

    def __init__(self, gateway, path: str, headers: dict[str, str]):
        self.events: list[tuple[str, str]] = []
        self.closed_at: float | None = None
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(gateway, path, headers), daemon=True)
        self._thread.start()
        assert self._opened.wait(5), "the stream sent nothing"

    def _run(self, gateway, path: str, headers: dict[str, str]) -> None:
        def seen(out: list[Sse]) -> bool:  # each event as it arrives; read on until the stream closes
            self.events.append((out[-1].event, out[-1].data))
            self._opened.set()
            return False

        try:
            with gateway.client(timeout=30) as c, c.stream("GET", path, headers=headers) as r:
                assert r.status_code == 200
                parse_sse(r.iter_lines(), seen)
        finally:
            self.closed_at = time.monotonic()
            self._opened.set()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()


@pytest.mark.parametrize("how", ["rotate", "resign"])
def test_a_revoked_tokens_event_stream_errs_and_closes_within_a_second(gateway, service, http, how: str) -> None:
    body = create(http, "toybids", 3, seed=81)  # a resigned seat is played out
    gid, tokens = body["game_id"], {s["seat"]: s["token"] for s in body["seats"]}
    reader = SseReader(gateway, f"/v1/games/{gid}/events", auth(tokens[0]))
    with GameClient(service.addr) as g:
        revoked_at = time.monotonic()
        if how == "rotate":
            tokens[0] = g.rotate_token(gid, tokens[0])
            hand = http.get(f"/v1/games/{gid}", headers=auth(tokens[0])).json()["view"]["hand"]
            r = http.post(f"/v1/games/{gid}/actions", headers=auth(tokens[0]),
                          json={"action": {"type": "bid", "card": hand[0]}, "expected_version": 0})
            assert r.status_code == 200  # version 1 carries seat 0's secret "you_bid"
        else:
            g.resign(gid, tokens.pop(0))  # version 2 auto-plays seat 0's bid: its "you_bid" is seat 0's secret
    try:
        assert reader.join(3), "the stream is still open"
        assert reader.closed_at is not None and reader.closed_at - revoked_at < 1.0, reader.closed_at - revoked_at
        name, data = reader.events[-1]
        assert name == "error"
        assert json.loads(data)["error"]["code"] == "unauthenticated"
        assert "seat token revoked" in json.loads(data)["error"]["message"]
        messages = [json.loads(d) for n, d in reader.events if n == "message"]
        assert not any(m["type"] == "you_bid" for m in messages), "a secret reached the revoked stream"
    finally:  # without the fix the stream only ends with the game
        finish(http, gid, tokens)
        reader.join(10)


def finish(http, gid: str, tokens: dict[int, str]) -> None:
    """Play the held seats' first legal action until the game ends (a resigned seat is auto-played)."""
    for _ in range(100):
        game = http.get(f"/v1/games/{gid}").json()
        if game["status"] == "finished":
            return
        for seat in (s for s in game["to_act"] if s in tokens):
            legal = http.get(f"/v1/games/{gid}/actions", headers=auth(tokens[seat])).json()
            http.post(f"/v1/games/{gid}/actions", headers=auth(tokens[seat]),
                      json={"action": legal["actions"][0], "expected_version": legal["version"]})
    raise AssertionError("the game did not end")
