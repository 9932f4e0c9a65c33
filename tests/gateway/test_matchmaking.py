"""Matchmaking and ratings over real HTTP, real Redis and the real game-state service.

The matcher runs in the test (one pass at a time) so that each scenario is deterministic; the race test
runs two real `python -m services.matchmaker` processes at once.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time

import httpx
import pytest
import redis.asyncio as aioredis

from services.gateway.gamestate import GameStateClient
from services.gateway.keys import Keys
from services.gateway.ratings import Ratings
from services.gateway.settings import GatewaySettings
from services.matchmaker.grouping import form_groups
from services.matchmaker.matcher import Matcher
from services.matchmaker.store import Ticket, TicketStore
from tests.gateway.helpers import auth, play_random
from tests.gateway.test_basics import assert_error


def run_matcher(settings: GatewaySettings, passes: int = 1) -> list[str]:
    """Run matchmaking passes in a fresh loop (as a separate matchmaker would); returns created game ids."""

    async def go() -> list[str]:
        redis = aioredis.from_url(settings.redis_url)
        keys = Keys(settings.key_prefix)
        gamestate = GameStateClient(settings.gamestate_addr)
        matcher = Matcher(TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s),
                          Ratings(redis, keys), gamestate, settings)
        try:
            created = []
            for _ in range(passes):
                created += await matcher.run_once()
            return created
        finally:
            await gamestate.close()
            await redis.aclose()

    return asyncio.run(go())


def new_player(c: httpx.Client, name: str) -> tuple[str, str]:
    r = c.post("/v1/players", json={"name": name})
    assert r.status_code == 201
    return r.json()["player_id"], r.json()["api_key"]


def ticket(c: httpx.Client, key: str, game: str, players: int, **extra) -> str:
    r = c.post("/v1/matchmaking/tickets", json={"game": game, "players": players, **extra}, headers=auth(key))
    assert r.status_code == 201, r.text
    return r.json()["ticket_id"]


def poll(c: httpx.Client, key: str, ticket_id: str) -> dict:
    r = c.get(f"/v1/matchmaking/tickets/{ticket_id}", headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


def game_for(c: httpx.Client, players: int) -> str:
    for g in c.get("/v1/catalog").json()["games"]:
        if g["min_players"] <= players <= g["max_players"]:
            return g["name"]
    pytest.skip(f"no registered game takes {players} players")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_n_humans_are_matched_into_one_game(make_gateway, n: int) -> None:
    gw = make_gateway()
    with gw.client() as c:
        game = game_for(c, n)
        players = [new_player(c, f"p{i}") for i in range(n)]
        tickets = [ticket(c, key, game, n) for _pid, key in players]
        assert poll(c, players[0][1], tickets[0])["status"] == "queued"
        created = run_matcher(gw.settings)
        assert len(created) == 1
        results = [poll(c, key, t) for (_pid, key), t in zip(players, tickets)]
        assert {r["status"] for r in results} == {"matched"}
        assert {r["game_id"] for r in results} == set(created)
        assert sorted(r["seat"] for r in results) == list(range(n))
        for r in results:
            view = c.get(f"/v1/games/{r['game_id']}", headers=auth(r["token"])).json()
            assert view["seat"] == r["seat"] and view["bots"] == {}
        assert run_matcher(gw.settings) == [], "matched tickets are never matched again"


def test_bots_fill_empty_seats_after_the_deadline(make_gateway) -> None:
    gw = make_gateway(bot_fill_level="random")
    with gw.client() as c:
        _pid, key = new_player(c, "alone")
        t = ticket(c, key, "toybids", 3, bots_after_s=1.5)
        assert run_matcher(gw.settings) == []
        assert poll(c, key, t)["status"] == "queued"
        time.sleep(1.6)
        created = run_matcher(gw.settings)
        assert len(created) == 1
        r = poll(c, key, t)
        assert r["status"] == "matched" and r["game_id"] == created[0]
        game = c.get(f"/v1/games/{r['game_id']}", headers=auth(r["token"])).json()
        assert sorted(game["bots"]) == sorted(str(s) for s in {0, 1, 2} - {r["seat"]})
        assert set(game["bots"].values()) == {"random"}


def test_cancelled_tickets_are_never_matched(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        (_a, ka), (_b, kb) = new_player(c, "a"), new_player(c, "b")
        ta, tb = ticket(c, ka, "toybids", 2), ticket(c, kb, "toybids", 2)
        assert_error(c.delete(f"/v1/matchmaking/tickets/{ta}", headers=auth(kb)), 403)
        assert_error(c.delete(f"/v1/matchmaking/tickets/{ta}"), 401)
        r = c.delete(f"/v1/matchmaking/tickets/{ta}", headers=auth(ka))
        assert r.status_code == 200 and r.json()["status"] == "cancelled"
        again = c.delete(f"/v1/matchmaking/tickets/{ta}", headers=auth(ka))
        assert again.status_code == 200 and again.json()["status"] == "cancelled", "DELETE is idempotent"
        assert run_matcher(gw.settings) == []
        assert poll(c, ka, ta)["status"] == "cancelled"
        assert poll(c, kb, tb)["status"] == "queued"
        assert_error(c.get(f"/v1/matchmaking/tickets/{ta}", headers=auth(kb)), 403)
        assert_error(c.get("/v1/matchmaking/tickets/0123456789abcdef0123456789abcdef", headers=auth(kb)), 404)


def test_unpolled_tickets_expire_and_polled_ones_stay(make_gateway) -> None:
    gw = make_gateway(ticket_ttl_s=1.0)
    with gw.client() as c:
        keys = [new_player(c, f"p{i}")[1] for i in range(3)]
        stale = [ticket(c, keys[0], "toybids", 2), ticket(c, keys[1], "toybids", 2)]
        kept = ticket(c, keys[2], "toybids", 2)
        for _ in range(7):  # 1.4 s: the unpolled tickets outlive their 1 s TTL, the polled one does not
            time.sleep(0.2)
            assert poll(c, keys[2], kept)["status"] == "queued"
        assert run_matcher(gw.settings) == []
        assert [poll(c, k, t)["status"] for k, t in zip(keys, stale)] == ["expired", "expired"]
        assert poll(c, keys[2], kept)["status"] == "queued"
        assert_error(c.delete(f"/v1/matchmaking/tickets/{stale[0]}", headers=auth(keys[0])), 409)


def test_bad_tickets_are_refused(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        _pid, key = new_player(c, "x")
        url = "/v1/matchmaking/tickets"
        assert_error(c.post(url, json={"game": "toybids", "players": 2}), 401)
        assert_error(c.post(url, json={"game": "toybids", "players": 2}, headers=auth("sbk_nope")), 401)
        for body in ({"game": "nope", "players": 2}, {"game": "toybids", "players": 7},
                     {"game": "toybids", "players": 2, "options": {"rounds": 99}},
                     {"game": "toybids", "players": 2, "bots_after_s": -1}):
            assert_error(c.post(url, json=body, headers=auth(key)), 422)


def test_closest_ratings_are_grouped_first_and_the_gap_widens_with_waiting() -> None:
    def t(tid: str, rating: float, created_ms: int = 0) -> Ticket:
        return Ticket(tid, f"player-{tid}", "g", 2, {}, 1e9, created_ms, rating, "queued")

    groups = form_groups([t("a", 0), t("b", 100), t("c", 1), t("d", 101)], 2, 1000, 5.0, 1.0)
    assert sorted(sorted(x.ticket_id for x in g.tickets) for g in groups) == [["a", "c"], ["b", "d"]]
    far = [t("a", 0), t("b", 50)]
    assert form_groups(far, 2, 10_000, 5.0, 1.0) == [], "a 50-point gap is too wide after 10 s"
    assert len(form_groups(far, 2, 46_000, 5.0, 1.0)) == 1, "and acceptable after 45 s"


def test_a_player_never_gets_two_seats_in_one_game(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        _pid, key = new_player(c, "twice")
        ticket(c, key, "toybids", 2)
        ticket(c, key, "toybids", 2)
        assert run_matcher(gw.settings) == []


def test_two_matchmaker_processes_never_put_a_ticket_in_two_games(make_gateway, rdb) -> None:
    gw = make_gateway()
    n_tickets = 16
    with gw.client() as c:
        players = [new_player(c, f"r{i}") for i in range(n_tickets)]
        tickets = [ticket(c, key, "toybids", 2) for _pid, key in players]
        env = dict(os.environ)
        env.update({
            "GATEWAY_REDIS_URL": gw.settings.redis_url, "GATEWAY_KEY_PREFIX": gw.settings.key_prefix,
            "GATEWAY_GAMESTATE_ADDR": gw.settings.gamestate_addr, "GATEWAY_MM_INTERVAL_S": "0.01",
            "GATEWAY_MM_BASE_GAP": "1000",
        })
        procs = [subprocess.Popen([sys.executable, "-m", "services.matchmaker"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if all(poll(c, key, t)["status"] == "matched" for (_p, key), t in zip(players, tickets)):
                    break
                time.sleep(0.2)
        finally:
            for p in procs:
                p.send_signal(signal.SIGTERM)
            for p in procs:
                p.wait(10)
        results = [poll(c, key, t) for (_p, key), t in zip(players, tickets)]
    assert all(r["status"] == "matched" for r in results)
    prefix = gw.settings.key_prefix
    rated = [k for k in rdb.scan_iter(match=f"{prefix}rated:*")]
    seats_of: dict[str, list[str]] = {}
    for key in rated:
        for field, entity in rdb.hgetall(key).items():
            if field != "game":
                seats_of.setdefault(entity, []).append(key)
    assert len(rated) == n_tickets // 2, "exactly one game per pair of tickets"
    assert all(len(games) == 1 for games in seats_of.values()), "no player (ticket) sits in two games"
    assert {f"{prefix}rated:{r['game_id']}" for r in results} == set(rated)


def test_concurrent_matchers_in_one_loop_claim_each_ticket_once(make_gateway, rdb) -> None:
    """Several matchers interleaving at every Redis and gRPC await: each pair forms exactly one game."""
    gw = make_gateway(mm_base_gap=1000.0)
    with gw.client() as c:
        players = [new_player(c, f"q{i}") for i in range(20)]
        tickets = [ticket(c, key, "toybids", 2) for _pid, key in players]
        settings = gw.settings

        async def race() -> list[list[str]]:
            redis = aioredis.from_url(settings.redis_url)
            keys = Keys(settings.key_prefix)
            clients = [GameStateClient(settings.gamestate_addr) for _ in range(4)]
            matchers = [Matcher(TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s),
                                Ratings(redis, keys), g, settings) for g in clients]
            try:
                return list(await asyncio.gather(*(m.run_once() for m in matchers)))
            finally:
                for g in clients:
                    await g.close()
                await redis.aclose()

        created = asyncio.run(race())
        results = [poll(c, key, t) for (_p, key), t in zip(players, tickets)]
    games = [g for per in created for g in per]
    assert len(games) == len(set(games)) == 10
    assert all(r["status"] == "matched" for r in results)
    by_game: dict[str, list[int]] = {}
    for r in results:
        by_game.setdefault(r["game_id"], []).append(r["seat"])
    assert set(by_game) == set(games) and all(sorted(s) == [0, 1] for s in by_game.values())


def test_a_dead_matchmakers_claim_is_released_and_a_lost_claim_writes_nothing(make_gateway) -> None:
    gw = make_gateway(mm_claim_stale_s=5.0)
    settings = gw.settings
    with gw.client() as c:
        (_a, ka), (_b, kb) = new_player(c, "a"), new_player(c, "b")
        ta, tb = ticket(c, ka, "toybids", 2), ticket(c, kb, "toybids", 2)

        async def die_holding_a_claim() -> tuple[int, int, bool]:
            redis = aioredis.from_url(settings.redis_url)
            store = TicketStore(redis, Keys(settings.key_prefix), settings.ticket_ttl_s, settings.ticket_keep_s)
            bucket = (await store.get(ta)).bucket
            won = await store.claim("dead-matchmaker", bucket, [ta, tb], now_ms=int(time.time() * 1000) - 60_000)
            assert await store.claim("other", bucket, [ta]) != 0, "a claimed ticket cannot be claimed again"
            released = await store.release_stale_claims(settings.mm_claim_stale_s)
            late = await store.matched("dead-matchmaker", {ta: ("g-late", 0, "t"), tb: ("g-late", 1, "t")})
            await redis.aclose()
            return won, released, late

        won, released, late = asyncio.run(die_holding_a_claim())
        assert (won, released, late) == (0, 2, False)
        assert poll(c, ka, ta)["status"] == "queued"
        created = run_matcher(settings)
        assert len(created) == 1
        assert poll(c, ka, ta)["game_id"] == poll(c, kb, tb)["game_id"] == created[0]


def test_ratings_change_once_after_a_finished_rated_game(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        (pa, ka), (pb, kb) = new_player(c, "ann"), new_player(c, "bob")
        ta, tb = ticket(c, ka, "toybids", 2), ticket(c, kb, "toybids", 2)
        run_matcher(gw.settings)
        ra, rb = poll(c, ka, ta), poll(c, kb, tb)
        gid = ra["game_id"]
        play_random(c, gid, {ra["seat"]: ra["token"], rb["seat"]: rb["token"]}, random.Random(1))
        final = c.get(f"/v1/games/{gid}").json()
        profiles = {pid: c.get(f"/v1/players/{pid}").json()["ratings"]["toybids"] for pid in (pa, pb)}
        assert all(p["games"] == 1 for p in profiles.values())
        seat_of = {pa: ra["seat"], pb: rb["seat"]}
        for pid, r in profiles.items():
            won = seat_of[pid] in final["winners"]
            if won and len(final["winners"]) == 1:
                assert r["mu"] > 25.0
            if not won:
                assert r["mu"] < 25.0
            assert r["sigma"] < 25.0 / 3
        board = c.get("/v1/leaderboard/toybids").json()
        ids = [e["player_id"] for e in board["entries"]]
        assert set(ids) == {pa, pb}
        assert [e["ordinal"] for e in board["entries"]] == sorted((e["ordinal"] for e in board["entries"]),
                                                                  reverse=True)
        # seeing the finished game again (here, in streams, by the matchmaker) never rates it twice
        c.get(f"/v1/games/{gid}")
        run_matcher(gw.settings)
        again = {pid: c.get(f"/v1/players/{pid}").json()["ratings"]["toybids"] for pid in (pa, pb)}
        assert again == profiles
        assert_error(c.get("/v1/leaderboard/nogame"), 422)


def test_concurrent_settles_apply_exactly_once(redis_url: str) -> None:
    from tests.gateway.conftest import new_prefix

    async def go() -> list[bool]:
        redis = aioredis.from_url(redis_url)
        keys = Keys(new_prefix())
        ratings = Ratings(redis, keys)
        await ratings.register_game("g1", "toybids", {0: "player:a", 1: "player:b", 2: "bot:random"})
        results = await asyncio.gather(*(Ratings(redis, keys).settle("g1", [3, 9, 1], [1]) for _ in range(20)))
        b = await ratings.get("b", "toybids")
        assert b.games == 1 and b.mu > 25
        assert await ratings.pending() == []
        for key in [k async for k in redis.scan_iter(match=f"{keys.prefix}*")]:
            await redis.delete(key)
        await redis.aclose()
        return results

    assert sum(asyncio.run(go())) == 1
