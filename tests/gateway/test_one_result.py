"""One result everywhere: a game whose top scorer resigned and was played out by the zombie shows the same result on
every surface (services/common/standings.py): REST `GET /v1/games/{id}`, gRPC `GetGame`, the account stream's
`game_end`, the game stream's `end`, the log, and the SQL archive record and the game read back from it. The seat
that resigned is never among the winners and ranks last; the engine's view names no winners of its own.

Over the real gateway, game-state service (every title), Redis and PostgreSQL archive. OpenSky (3 players, OS-19.4:
the highest total wins, ties share the victory), seed 1: seat 0 resigns before the first move and the zombie's
default decisions score 100, while seats 1 and 2, each playing its first legal action, score 0.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from services.common.settings import Settings
from services.gamestate.client_sync import GameClient
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.gateway.helpers import auth, read_sse
from tests.gateway.test_challenges import events
from tests.service_secret import SERVICE_SECRET
from tests.services.archive_helpers import archived

GAME, PLAYERS, SEED, RESIGNED = "opensky", 3, 1, 0


@pytest.fixture(scope="module")
def stack(redis_url: str, archive_pg_url: str) -> Iterator[tuple[Gateway, ServiceInstance, str]]:
    """The game-state service with every title, its zombie the engine's default decision (no bot worker here),
    archiving a finished game 0.3 s after its end; a gateway (with its outcomes consumer) on the same archive."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, zombie_bot_level="",
        archive_url=archive_pg_url, archive_after_s=0.3, archive_interval_s=0.05,
    )
    service = ServiceInstance(settings, Registry())
    gw = Gateway(gateway_settings(redis_url, service, archive_url=archive_pg_url), outbox=settings.key_prefix)
    yield gw, service, archive_pg_url
    gw.stop()
    service.stop()


def _play_out(c: httpx.Client, game_id: str, tokens: dict[int, str]) -> dict:
    """Seats other than RESIGNED each play their first legal action until the game ends (the zombie plays
    RESIGNED's turns in the service); the game as it ended."""
    deadline = time.monotonic() + 120
    while (game := c.get(f"/v1/games/{game_id}").raise_for_status().json())["status"] == "active":
        assert time.monotonic() < deadline, "the game did not end"
        seat = next((s for s in game["to_act"] if s != RESIGNED), None)
        if seat is None:  # only the zombie is to act: its default decision is on its way
            time.sleep(0.05)
            continue
        legal = c.get(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat])).raise_for_status().json()
        r = c.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat]),
                   json={"action": legal["actions"][0], "expected_version": legal["version"]})
        assert r.status_code in (200, 409), r.text  # 409: the zombie moved in between; read again
    return game


def test_a_resigned_top_scorer_is_last_and_no_winner_on_every_surface(stack, rdb) -> None:
    gw, service, archive_url = stack
    with gw.client(timeout=30) as c:
        me = c.post("/v1/players", json={"name": "one-result"}).raise_for_status().json()
        created = c.post("/v1/games", headers=auth(me["api_key"]),
                         json={"game": GAME, "players": PLAYERS, "seed": SEED}).raise_for_status().json()
        game_id = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"] if s["token"]}
        assert c.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[RESIGNED])).status_code == 200
        game = _play_out(c, game_id, tokens)

        # REST: the resigned seat outscored both others, yet it is last and they share the win (OS-19.4)
        assert game["status"] == "finished" and game["seats"][RESIGNED]["status"] == "resigned"
        scores = game["scores"]
        assert scores[RESIGNED] > max(s for seat, s in enumerate(scores) if seat != RESIGNED), scores
        assert "winners" not in game["view"], f"the engine's view names winners of its own: {game['view']['winners']}"
        assert game["winners"] == [1, 2] and game["places"] == [3, 1, 1]
        result = (game["status"], scores, game["winners"])

        # gRPC GetGame, as a spectator and as a seat still playing
        with GameClient(service.addr) as grpc_client:
            for token in (None, tokens[1]):
                view = grpc_client.get_game(game_id, token)
                assert (view.status, view.scores, view.winners, view.places) == (*result, game["places"])
                assert "winners" not in view.view

        # the streams: the account's game_end (its seat is the one that resigned) and the game's own end
        got = events(c, me["api_key"], lambda es: any(e.event == "game_end" for e in es))
        end = [e.json() for e in got if e.event == "game_end"]
        assert [(e["status"], e["scores"], e["winners"]) for e in end] == [result]
        last = read_sse(c, f"/v1/games/{game_id}/events")[-1]
        assert last.event == "end" and (last.json()["status"], last.json()["scores"], last.json()["winners"]) == result
        log = c.get(f"/v1/games/{game_id}/log").json()
        assert (log["status"], log["scores"], log["winners"]) == result

        # the archive: its record, and the game read back from it once it left Redis
        deadline = time.monotonic() + 60
        while not (record := archived(archive_url, [game_id]).get(game_id)):
            assert time.monotonic() < deadline, "the game was not archived"
            time.sleep(0.2)
        assert (record.status, record.scores, record.winners, record.resigned) == (*result, [RESIGNED])
        while c.get(f"/v1/players/{me['player_id']}/games").json()["games"][0]["game_id"] != game_id:
            assert time.monotonic() < deadline, "the history does not list the game"
            time.sleep(0.2)
        history = c.get(f"/v1/players/{me['player_id']}/games").json()["games"][0]
        assert (history["status"], history["scores"], history["winners"]) == result
        while rdb.exists(f"{service.settings.key_prefix}game:{{{game_id}}}:meta"):
            assert time.monotonic() < deadline, "the game did not leave Redis"
            time.sleep(0.2)
        with GameClient(service.addr) as grpc_client:
            from_archive = grpc_client.get_game(game_id)
        assert (from_archive.status, from_archive.scores, from_archive.winners, from_archive.places) == (
            *result, game["places"])
        again = c.get(f"/v1/games/{game_id}").json()
        assert (again["winners"], again["places"]) == (game["winners"], game["places"])
        assert "winners" not in again["view"]
