"""GET /v1/games/{id} answers from the game's own view: who sits where comes with the game (GameView.seats), so the
gateway makes no Redis read of its own for it. Observed with Redis MONITOR on the real gateway, for an owned game, a
rated and an unrated challenge and a matched game; and timed in-process against the former handler (which read the
rated game's seat hash on every call), in the same run."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.requests import Request

from services.gateway.app import create_app
from services.gateway.context import Context, bearer
from services.gateway.gamestate import GameStateError, http_error
from services.gateway.models.games import GameOut, SeatOut
from services.gateway.routes import games as routes_games
from tests.gateway.conftest import Gateway
from tests.gateway.helpers import auth, gateway_commands
from tests.gateway.test_accounts import new_account
from tests.gateway.test_matchmaking import poll, run_matcher, ticket

TOY = "toybids"


@pytest.fixture
def gw(make_gateway) -> Gateway:
    """A gateway without its turn follower: its background reads of followed games would mix with the handler's."""
    return make_gateway(challenge_ttl_s=60, follow_games=False)


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


def test_a_rated_game_from_before_games_kept_their_seats_still_names_its_players(gw: Gateway) -> None:
    """A rated game whose metadata has no seat_players (created by an earlier release): its rating registration
    still names the players, read as before (the one case left with that read)."""
    with gw.client() as c:
        a_id, b_id = new_account(c, "legacy-a")[0], new_account(c, "legacy-b")[0]

    async def create() -> str:
        ctx: Context = create_app(gw.settings).state.ctx
        try:
            game_id, _seats = await ctx.gamestate.create(TOY, 3, None, {}, {2: "random"}, rated=True)
            await ctx.ratings.register_game(game_id, TOY, {0: f"player:{a_id}", 1: f"player:{b_id}", 2: "bot:random"})
            return game_id
        finally:
            await ctx.gamestate.close()
            await ctx.redis.aclose()
            await ctx.archive.close()

    game_id = asyncio.run(create())
    with gw.client() as c:
        game, commands = _game_read(gw, c, game_id)
    assert {s["seat"]: s["player_id"] for s in game["seats"]} == {0: a_id, 1: b_id, 2: None}
    assert [cmd.split()[0].upper() for cmd in commands if game_id in cmd] == ["HGETALL"]


# ------------------------------------------------------------------ the handler before and after, timed


async def _former_get_game(game_id: str, request: Request, c: Context) -> GameOut:
    """routes_games.get_game as it was before games carried who sits where (commit 5bc4782), verbatim."""
    token = bearer(request)
    try:
        g = await c.gamestate.get(routes_games._game_id(game_id), token)
    except GameStateError as exc:
        raise http_error(exc) from None
    if g.status != "active":
        await c.settle_soon(g.game_id, g)
    players = await c.ratings.seats(g.game_id)  # seat -> "player:<id>" for a matched (rated) game
    seats = [SeatOut(seat=s["seat"], kind=s["kind"], status=s["status"], bot_level=s["bot_level"],
                     player_id=_former_player_of(players.get(s["seat"]), s["kind"], g.owner)) for s in g.seats]
    return GameOut(
        game_id=g.game_id, game=g.game, version=g.version, status=g.status, to_act=g.to_act, seat=g.seat,
        view=g.view, scores=g.scores, winners=g.winners if g.status == "finished" else None, players=g.players,
        bots={str(k): v for k, v in sorted(g.bots.items())},
        turn_seconds=g.turn_seconds or None, deadlines={str(k): v for k, v in sorted(g.deadlines.items())},
        time_control=g.time_control, reserves={str(k): v for k, v in sorted(g.reserves.items())}, seats=seats,
    )


def _former_player_of(entity: str | None, kind: str, owner: str) -> str | None:
    if entity is not None:
        return entity.removeprefix("player:") if entity.startswith("player:") else None
    if kind == "human" and owner:
        return owner
    return None


def _request() -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "headers": [], "query_string": b""})


def test_only_the_former_handler_reads_redis_for_a_rated_game(gw: Gateway) -> None:
    """The former handler (kept here verbatim) read the rated game's hash on every GET, which shows the Redis watch
    sees such a read; the current one does not read. (Their timing, 0.83x, was measured once: not a test.)"""
    with gw.client() as c:
        (_a_id, a), (b_id, b) = new_account(c, "time-a"), new_account(c, "time-b")
        game_id, _seat = _accepted(c, a, b_id, b, rated=True)  # a rated game: the former read finds its hash
        reads = {}
        for name, handler in (("before", _former_get_game), ("after", routes_games.get_game)):
            async def one(h=handler) -> None:
                app = create_app(gw.settings)
                ctx: Context = app.state.ctx
                try:
                    await h(game_id, _request(), ctx)
                finally:
                    await ctx.gamestate.close()
                    await ctx.redis.aclose()
                    await ctx.archive.close()
            reads[name] = [cmd for cmd in gateway_commands(gw, lambda o=one: asyncio.run(o())) if game_id in cmd]
    assert len(reads["before"]) == 1 and reads["before"][0].split()[0].strip('"').upper() == "HGETALL"
    assert reads["after"] == []
