"""GET /v1/games/{id} answers from the game's own view: who sits where comes with the game (GameView.seats), so the
gateway makes no Redis read of its own for it. Observed with Redis MONITOR on the real gateway, for an owned game, a
rated and an unrated challenge and a matched game."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from services.gateway.app import create_app
from services.gateway.context import Context
from services.gateway.routes import games as routes_games
from tests.gateway.conftest import Gateway
from tests.gateway.helpers import auth, gateway_commands
from tests.gateway.test_accounts import new_account
from tests.gateway.test_matchmaking import poll, run_matcher, ticket

TOY = "toybids"


@pytest.fixture
def gw(make_gateway) -> Gateway:
    """A gateway without an outcomes consumer: its background Redis commands would mix with the handler's."""
    return make_gateway(challenge_ttl_s=60, outcomes=False)


def _game_read(gw: Gateway, http: httpx.Client, game_id: str, token: str | None = None) -> tuple[dict, list[str]]:
    out: dict = {}

    def call() -> None:
        r = http.get(f"/v1/games/{game_id}", headers=auth(token) if token else {})
        assert r.status_code == 200, r.text
        out.update(r.json())

    return out, gateway_commands(gw, call)


def _accepted(c: httpx.Client, challenger: str, to_id: str, to_key: str, **extra) -> tuple[str, int]:
    r = c.post("/v1/challenges", headers=auth(challenger), json={"to": to_id, "game": TOY, **extra})
    assert r.status_code == 201, r.text
    r = c.post(f"/v1/challenges/{r.json()['challenge_id']}/accept", headers=auth(to_key))
    assert r.status_code == 200, r.text
    return r.json()["game_id"], r.json()["seat"]


def test_a_game_read_names_who_sits_where_without_a_redis_read_of_the_gateway(gw: Gateway) -> None:
    with gw.client() as c:
        (a_id, a), (b_id, b) = new_account(c, "sits-a"), new_account(c, "sits-b")
        owned = c.post("/v1/games", headers=auth(a), json={"game": TOY, "players": 3, "bots": {"2": "random"}})
        assert owned.status_code == 201, owned.text
        rated, rated_seat = _accepted(c, a, b_id, b, rated=True)
        unrated, unrated_seat = _accepted(c, a, b_id, b, rated=False)
        ta, tb = ticket(c, a, TOY, 2), ticket(c, b, TOY, 2)
        assert len(run_matcher(gw.settings)) == 1
        seat_a, seat_b = poll(c, a, ta), poll(c, b, tb)
        expected = {
            owned.json()["game_id"]: {0: a_id, 1: a_id, 2: None},  # the owner holds an owned game's human seats
            rated: {rated_seat: b_id, 1 - rated_seat: a_id},
            # who sits where, not the owner (the challenger) at both: the read of the rated-game hash knew only
            # rated games, so an unrated challenge showed the challenger at the accepter's seat too
            unrated: {unrated_seat: b_id, 1 - unrated_seat: a_id},
            seat_a["game_id"]: {seat_a["seat"]: a_id, seat_b["seat"]: b_id},
        }
        for game_id, players in expected.items():
            game, commands = _game_read(gw, c, game_id)
            assert {s["seat"]: s["player_id"] for s in game["seats"]} == players, game_id
            assert [cmd for cmd in commands if game_id in cmd] == [], "the gateway read Redis for the game"


def test_the_redis_watch_sees_a_gateway_read_of_a_rated_game_and_the_game_read_makes_none(gw: Gateway) -> None:
    """The watch is not blind: the gateway's own check of a rated game (`Ratings.is_rated`, which settling reads)
    shows up in it as one command on the game's key; `get_game`, called the same way on the same rated game, reads
    nothing. (Against the former handler, which read the rated game's seat hash on every GET, the current one
    measured 0.83x once: not a test.)"""
    with gw.client() as c:
        (_a_id, a), (b_id, b) = new_account(c, "time-a"), new_account(c, "time-b")
        game_id, _seat = _accepted(c, a, b_id, b, rated=True)  # a rated game: it has a Redis registration to read
        reads = {}
        calls = (("rated check", lambda ctx: ctx.ratings.is_rated(game_id)),
                 ("game read", lambda ctx: routes_games.get_game(game_id, None, ctx)))
        for name, call in calls:
            async def one(call=call) -> None:
                ctx: Context = create_app(gw.settings).state.ctx
                try:
                    await call(ctx)
                finally:
                    await ctx.gamestate.close()
                    await ctx.redis.aclose()
                    await ctx.archive.close()
            reads[name] = [cmd for cmd in gateway_commands(gw, lambda o=one: asyncio.run(o())) if game_id in cmd]
    assert len(reads["rated check"]) == 1 and reads["rated check"][0].split()[0].strip('"').upper() == "EXISTS"
    assert reads["game read"] == []
