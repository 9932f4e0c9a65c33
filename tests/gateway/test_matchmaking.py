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
import threading
import time

import httpx
import pytest

from services.accounts.keys import Keys, bucket_of
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.accounts.sealing import unseal
from services.archive.db import make_engine
from services.common.redis_clients import async_redis
from services.gamestate.client import AsyncGameClient
from services.gateway.settings import GatewaySettings
from services.matchmaker.grouping import form_groups
from services.matchmaker.matcher import Matcher
from services.matchmaker.store import Ticket, TicketStore
from tests.gateway.helpers import Sse, auth, play_random, read_sse
from tests.gateway.test_basics import assert_error
from tests.redis_required import CLUSTER


def run_matcher(settings: GatewaySettings, passes: int = 1) -> list[str]:
    """Run matchmaking passes in a fresh loop (as a separate matchmaker would); returns created game ids."""

    async def go() -> list[str]:
        redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
        keys = Keys(settings.key_prefix)
        gamestate = AsyncGameClient(settings.gamestate_addr)
        tickets = TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s,
                              secret=settings.service_secret)
        engine = make_engine(settings.archive_url)
        matcher = Matcher(tickets, Ratings(redis, keys, AccountRepository(engine)), gamestate, settings)
        try:
            created = []
            for _ in range(passes):
                created += await matcher.run_once()
            return created
        finally:
            await gamestate.close()
            await redis.aclose()
            await engine.dispose()

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


def matched_pair(c: httpx.Client, settings: GatewaySettings, names: tuple[str, str] = ("a", "b"),
                 game: str = "toybids") -> list[tuple[str, str, dict]]:
    """Two new players matched into one 2-player game by one matchmaking pass: for each, (player id, API key, its
    ticket as polled: game id, seat, seat token)."""
    players = [new_player(c, name) for name in names]
    tickets = [ticket(c, key, game, 2) for _pid, key in players]
    assert len(run_matcher(settings)) == 1
    return [(pid, key, poll(c, key, t)) for (pid, key), t in zip(players, tickets, strict=True)]


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


def test_a_ticket_lives_while_its_account_stream_is_open_and_its_match_arrives_there(make_gateway) -> None:
    """Matchmaking pushes the match on the account stream; a ticket need not be polled; its seat token is never
    lost. A ticket whose account listens on its stream and is never polled outlives its TTL and is matched; the
    match arrives on the stream as `game_start` (game id, seat, ticket id); the account's key gets the seat token
    (POST /v1/games/{id}/token) and plays the seat. A ticket neither polled nor listened for expires."""
    gw = make_gateway(ticket_ttl_s=3.0)  # the stream renews every 1 s
    with gw.client() as c:
        key = new_player(c, "listener")[1]
        silent_key = new_player(c, "silent")[1]
        pushed: list[Sse] = []

        def listen() -> None:
            with gw.client(timeout=30.0) as s:
                # until the match's game_start: the outcomes consumer may tell the seat's your_turn first (it
                # reads the game's creation from the outbox while the matchmaker is still announcing the match)
                pushed.extend(read_sse(s, "/v1/players/me/events", auth(key),
                                       until=lambda es: any(e.event == "game_start" for e in es)))

        reader = threading.Thread(target=listen, daemon=True)
        reader.start()
        time.sleep(0.5)  # the stream is open
        listened = ticket(c, key, "toybids", 2)
        silent = ticket(c, silent_key, "toybids", 2)
        time.sleep(4.0)  # more than the TTL: no poll of either ticket
        assert run_matcher(gw.settings) == []  # the silent ticket expired; the listened one waits alone
        assert poll(c, silent_key, silent)["status"] == "expired"
        partner_key = new_player(c, "partner")[1]
        partner = ticket(c, partner_key, "toybids", 2)
        [game_id] = run_matcher(gw.settings)  # the listened ticket, never polled, is still queued
        reader.join(20)
        assert not reader.is_alive()
        [start] = [e for e in pushed if e.event == "game_start"]
        assert {e.event for e in pushed} <= {"game_start", "your_turn"}, pushed
        data = start.json()
        assert start.event == "game_start", start
        assert (data["game_id"], data["ticket_id"], data["game"]) == (game_id, listened, "toybids")
        seat = data["seat"]
        assert poll(c, partner_key, partner)["game_id"] == game_id
        r = c.post(f"/v1/games/{game_id}/token", headers=auth(key))
        assert r.status_code == 201, r.text
        token = r.json()["token"]
        r = c.get(f"/v1/games/{game_id}/actions", headers=auth(token))
        assert r.status_code == 200 and r.json()["seat"] == seat, r.text
        r = c.get(f"/v1/games/{game_id}/actions", headers=auth(key))  # the account key acts for the seat too
        assert r.status_code == 200 and r.json()["seat"] == seat, r.text
        assert poll(c, key, listened)["status"] == "matched"


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
            "GATEWAY_MM_BASE_GAP": "1000", "SERVICE_SECRET": gw.settings.service_secret,
            "GATEWAY_ARCHIVE_URL": gw.settings.archive_url,
            "GATEWAY_REDIS_CLUSTER": str(gw.settings.redis_cluster).lower(),  # make test-cluster: both on a cluster
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
    assert {Keys(prefix).rated_game(r["game_id"]) for r in results} == set(rated)


@pytest.mark.parametrize("batch_size", [1, 3, 128])
def test_concurrent_matchers_in_one_loop_claim_each_ticket_once(make_gateway, rdb, batch_size: int) -> None:
    """Several matchers interleaving at every Redis and gRPC await (one batch of groups, or many small ones in
    flight at once): each pair forms exactly one game."""
    gw = make_gateway(mm_base_gap=1000.0, mm_batch_size=batch_size, mm_batches_in_flight=2)
    with gw.client() as c:
        players = [new_player(c, f"q{i}") for i in range(20)]
        tickets = [ticket(c, key, "toybids", 2) for _pid, key in players]
        settings = gw.settings

        async def race() -> list[list[str]]:
            redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
            keys = Keys(settings.key_prefix)
            clients = [AsyncGameClient(settings.gamestate_addr) for _ in range(4)]
            engine = make_engine(settings.archive_url)
            matchers = [Matcher(TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s,
                                            secret=settings.service_secret),
                                Ratings(redis, keys, AccountRepository(engine)), g, settings) for g in clients]
            try:
                return list(await asyncio.gather(*(m.run_once() for m in matchers)))
            finally:
                for g in clients:
                    await g.close()
                await redis.aclose()
                await engine.dispose()

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
            redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
            store = TicketStore(redis, Keys(settings.key_prefix), settings.ticket_ttl_s, settings.ticket_keep_s,
                                secret=settings.service_secret)
            bucket = (await store.get(ta)).bucket
            won = await store.claim("dead-matchmaker", bucket, [ta, tb], now_ms=int(time.time() * 1000) - 60_000)
            assert await store.claim("other", bucket, [ta]) != 0, "a claimed ticket cannot be claimed again"
            released = await store.release_stale_claims(settings.mm_claim_stale_s)
            late = await store.matched("dead-matchmaker", bucket, {ta: ("g-late", 0, "t"), tb: ("g-late", 1, "t")})
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
        (pa, _ka, ra), (pb, _kb, rb) = matched_pair(c, gw.settings, ("ann", "bob"))
        gid = ra["game_id"]
        play_random(c, gid, {ra["seat"]: ra["token"], rb["seat"]: rb["token"]}, random.Random(1))
        final = c.get(f"/v1/games/{gid}").json()

        def rated() -> dict[str, dict]:
            return {pid: c.get(f"/v1/players/{pid}").json()["ratings"].get("toybids", {}) for pid in (pa, pb)}

        deadline = time.monotonic() + 20
        while any(p.get("games") != 1 for p in rated().values()):  # the outcomes consumer settles it
            assert time.monotonic() < deadline, rated()
            time.sleep(0.05)
        profiles = rated()
        seat_of = {pa: ra["seat"], pb: rb["seat"]}
        for pid, r in profiles.items():
            won = seat_of[pid] in final["winners"]
            if won and len(final["winners"]) == 1:
                assert r["mu"] > 25.0
            if not won:
                assert r["mu"] < 25.0
            assert r["sigma"] < 25.0 / 3
        board = c.get("/v1/leaderboard/toybids", params={"limit": 500}).json()  # the run's tests share SQL
        ids = [e["player_id"] for e in board["entries"]]
        assert {pa, pb} <= set(ids)
        assert [e["ordinal"] for e in board["entries"]] == sorted((e["ordinal"] for e in board["entries"]),
                                                                  reverse=True)
        assert [e["rank"] for e in board["entries"]] == list(range(1, len(ids) + 1))
        # reading the finished game again, or a matchmaking pass, never rates it twice
        c.get(f"/v1/games/{gid}")
        run_matcher(gw.settings)
        again = {pid: c.get(f"/v1/players/{pid}").json()["ratings"]["toybids"] for pid in (pa, pb)}
        assert again == profiles
        assert_error(c.get("/v1/leaderboard/nogame"), 422)


def test_concurrent_settles_apply_exactly_once(redis_url: str, archive_pg_url: str) -> None:
    """20 settles of one rated game at once, through 4 engines (as 4 gateways or matchmakers would be): the
    players' ratings change once (SQL: the game's settled row is inserted in the ratings' transaction)."""
    import uuid

    from tests.gateway.conftest import new_prefix

    async def go() -> list[bool]:
        redis = async_redis(redis_url, cluster=CLUSTER)
        keys = Keys(new_prefix())
        engines = [make_engine(archive_pg_url) for _ in range(4)]
        repos = [AccountRepository(e) for e in engines]
        a, b, game_id = uuid.uuid4().hex, uuid.uuid4().hex, uuid.uuid4().hex
        for pid in (a, b):
            await repos[0].create_player(pid, pid[:6], "human", uuid.uuid4().hex * 2, 1)
        ratings = Ratings(redis, keys, repos[0])
        await ratings.register_game(game_id, "toybids", {0: f"player:{a}", 1: f"player:{b}", 2: "bot:random"})
        results = await asyncio.gather(*(Ratings(redis, keys, repos[i % 4]).settle(game_id, [2, 1, 3])
                                         for i in range(20)))
        rb = await ratings.get(b, "toybids")
        assert rb.games == 1 and rb.mu > 25
        assert (await ratings.get(a, "toybids")).games == 1
        assert await ratings.pending() == []
        for key in [k async for k in redis.scan_iter(match=f"{keys.prefix}*")]:
            await redis.delete(key)
        await redis.aclose()
        for e in engines:
            await e.dispose()
        return results

    assert sum(asyncio.run(go())) == 1


def test_a_pass_starts_many_groups_in_batches(make_gateway, rdb) -> None:
    """14 tickets, batches of 3 groups: 7 games in 3 batches, every ticket seated once with a working token,
    every game registered for rating (pending until the outcomes consumer settles it)."""
    gw = make_gateway(mm_base_gap=1000.0, mm_batch_size=3, mm_batches_in_flight=2)
    with gw.client() as c:
        players = [new_player(c, f"b{i}") for i in range(14)]
        tickets = [ticket(c, key, "toybids", 2) for _pid, key in players]
        created = run_matcher(gw.settings)
        assert len(created) == len(set(created)) == 7
        results = [poll(c, key, t) for (_p, key), t in zip(players, tickets)]
        assert all(r["status"] == "matched" for r in results)
        by_game: dict[str, list[int]] = {}
        for (pid, _key), r in zip(players, results):
            by_game.setdefault(r["game_id"], []).append(r["seat"])
            view = c.get(f"/v1/games/{r['game_id']}", headers=auth(r["token"])).json()
            assert view["seat"] == r["seat"] and view["bots"] == {}
            rated = rdb.hgetall(Keys(gw.settings.key_prefix).rated_game(r["game_id"]))
            assert rated[str(r["seat"])] == f"player:{pid}" and rated["game"] == "toybids"
        assert set(by_game) == set(created) and all(sorted(s) == [0, 1] for s in by_game.values())
        keys = Keys(gw.settings.key_prefix)
        assert all(rdb.sismember(keys.rated_pending(bucket_of(g)), g) for g in created)
        assert run_matcher(gw.settings) == []


def test_groups_whose_game_is_refused_are_released_and_the_rest_matched(make_gateway, rdb) -> None:
    """Tickets the service refuses (options no engine accepts, written past the gateway's checks) go back to the
    queue with nothing recorded; the other bucket's tickets are matched in the same pass."""
    gw = make_gateway(mm_base_gap=1000.0)
    settings = gw.settings
    with gw.client() as c:
        good = [new_player(c, f"g{i}") for i in range(2)]
        good_tickets = [ticket(c, key, "toybids", 2) for _pid, key in good]

        async def bad_tickets() -> list[str]:
            redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
            store = TicketStore(redis, Keys(settings.key_prefix), settings.ticket_ttl_s, settings.ticket_keep_s,
                                secret=settings.service_secret)
            made = [await store.create(f"bad{i}", "toybids", 2, {"rounds": 99}, 60.0, 0.0) for i in range(4)]
            await redis.aclose()
            return [t.ticket_id for t in made]

        bad = asyncio.run(bad_tickets())
        created = run_matcher(settings)
        assert len(created) == 1
        assert {poll(c, key, t)["game_id"] for (_p, key), t in zip(good, good_tickets)} == set(created)
    prefix = settings.key_prefix
    keys = Keys(prefix)
    for tid in bad:
        t = rdb.hgetall(keys.ticket(tid))
        assert t["status"] == "queued" and "claim" not in t and "game_id" not in t
        assert rdb.exists(keys.ticket_alive(tid))
    bucket = next(b for b in rdb.smembers(keys.buckets()) if "99" in b)
    assert set(rdb.zrange(keys.queue(bucket), 0, -1)) == set(bad)
    assert all(rdb.zcard(keys.claims(b)) == 0 for b in rdb.smembers(keys.buckets()))
    assert [k for k in rdb.scan_iter(match=f"{prefix}rated:*")] == [keys.rated_game(created[0])]


def test_batch_claims_and_placements_are_atomic_per_group(make_gateway, rdb) -> None:
    """One claim script over several groups: a group with a taken or expired ticket is claimed not at all, the
    others whole; one placement script: a group whose claim was lost writes nothing, the others are recorded."""
    gw = make_gateway(ticket_ttl_s=30.0)
    settings = gw.settings
    prefix = settings.key_prefix

    async def go() -> tuple[list[int], list[bool], list]:
        redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
        keys = Keys(settings.key_prefix)
        store = TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s,
                            secret=settings.service_secret)
        t = [(await store.create(f"a{i}", "toybids", 2, {}, 60.0, 0.0)).ticket_id for i in range(8)]
        bucket = (await store.get(t[0])).bucket
        assert await store.claim("other", bucket, [t[2]]) == 0
        await redis.delete(keys.ticket_alive(t[5]))  # t[5]'s TTL lapsed
        claimed = await store.claim_groups("mine", bucket, [[t[0], t[1]], [t[3], t[2]], [t[4], t[5]], [t[6], t[7]]])
        await store.release("mine", bucket, [t[6], t[7]])  # as if stale and released by another matchmaker
        recorded = await store.matched_groups("mine", bucket, [
            {t[0]: ("g1", 0, "tok0"), t[1]: ("g1", 1, None)},
            {t[6]: ("g2", 0, "tok6"), t[7]: ("g2", 1, "tok7")},
        ])
        statuses = [(await store.get(x)).status for x in t]
        await redis.aclose()
        return claimed, recorded, [statuses, t, bucket]

    claimed, recorded, (statuses, t, bucket) = asyncio.run(go())
    keys = Keys(prefix)
    assert claimed == [0, 2, 2, 0]
    assert recorded == [True, False]
    assert statuses == ["matched", "matched", "claimed", "queued", "queued", "expired", "queued", "queued"]
    sealed = rdb.hget(keys.ticket(t[0]), "token_sealed")  # stored sealed, never in clear
    assert unseal(settings.service_secret, t[0], sealed) == "tok0" and rdb.hget(keys.ticket(t[0]), "token") is None
    assert rdb.hget(keys.ticket(t[1]), "token_sealed") is None
    assert rdb.hget(keys.ticket(t[0]), "game_id") == "g1" and not rdb.exists(keys.ticket_alive(t[0]))
    assert rdb.hget(keys.ticket(t[6]), "game_id") is None
    assert set(rdb.zrange(keys.claims(bucket), 0, -1)) == {t[2]}, "only the other claim's ticket is held"


def test_keep_alive_renews_only_the_accounts_live_tickets_and_never_revives_one(make_gateway) -> None:
    """What an open account stream calls: it renews the TTL of the account's queued tickets only (not another
    account's), a lapsed ticket stays expired, and ended tickets (cancelled, expired) leave the account's list.
    The TTLs are read, not waited out, so a loaded machine cannot let a renewed ticket lapse between two renewals."""
    settings = make_gateway().settings

    async def go() -> None:
        redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
        keys = Keys(settings.key_prefix)
        store = TicketStore(redis, keys, 60.0, settings.ticket_keep_s, secret=settings.service_secret)
        try:
            mine = [await store.create("ka", "toybids", 2, {}, 60.0, 0.0) for _ in range(3)]
            other = await store.create("kb", "toybids", 2, {}, 60.0, 0.0)
            await store.cancel(mine[2].ticket_id)
            await redis.delete(keys.ticket_alive(mine[1].ticket_id))  # its TTL lapsed
            for ticket in (mine[0], other):  # both close to lapsing
                await redis.pexpire(keys.ticket_alive(ticket.ticket_id), 5_000)
            assert await store.keep_alive("ka") == 1
            assert await redis.pttl(keys.ticket_alive(mine[0].ticket_id)) > 30_000, "the account's ticket renewed"
            assert 0 < await redis.pttl(keys.ticket_alive(other.ticket_id)) <= 5_000, "another account's left alone"
            assert not await redis.exists(keys.ticket_alive(mine[1].ticket_id)), "a lapsed ticket is not revived"
            await redis.delete(keys.ticket_alive(other.ticket_id))  # the other account's ticket lapses in its turn
            assert [t.ticket_id for t in await store.queued(mine[0].bucket)] == [mine[0].ticket_id]
            assert (await store.poll(mine[1].ticket_id)).status == "expired"
            assert (await store.poll(other.ticket_id)).status == "expired"
            assert await store.keep_alive("ka") == 1
            assert {x.decode() for x in await redis.smembers(store._of("ka"))} == {mine[0].ticket_id}
        finally:
            await redis.aclose()

    asyncio.run(go())


def test_the_queue_read_drops_vanished_and_expired_tickets(make_gateway, rdb) -> None:
    gw = make_gateway()
    settings = gw.settings
    prefix = settings.key_prefix

    async def go() -> tuple[list[str], list[str]]:
        redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
        keys = Keys(settings.key_prefix)
        store = TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s,
                            secret=settings.service_secret)
        t = [await store.create(f"v{i}", "toybids", 2, {"rounds": 2}, 60.0, float(i)) for i in range(4)]
        await redis.delete(keys.ticket(t[1].ticket_id))
        await redis.delete(keys.ticket_alive(t[2].ticket_id))
        queued = await store.queued(t[0].bucket)
        assert queued == [t[0], t[3]], "same Ticket values as a plain read, oldest first"
        left = [x.decode() for x in await redis.zrange(keys.queue(t[0].bucket), 0, -1)]
        await redis.aclose()
        return [x.ticket_id for x in t], left

    ids, left = asyncio.run(go())
    assert left == [ids[0], ids[3]]
    assert rdb.hget(Keys(prefix).ticket(ids[2]), "status") == "expired"


def test_a_matched_game_nobody_watched_is_settled_by_the_outcomes_consumer_once(make_gateway, rdb) -> None:
    """Bots (or players who left) may finish a rated game with no client reading it: the outcomes consumer reads
    its end in the outbox and settles it, once, and matchmaking passes leave it alone."""
    from services.gamestate.client_sync import GameClient

    gw = make_gateway()
    with gw.client() as c:
        (pa, _ka, ra), (pb, _kb, rb) = matched_pair(c, gw.settings, ("sa", "sb"))
        game_id = ra["game_id"]
        tokens = {r["seat"]: r["token"] for r in (ra, rb)}
        rng = random.Random(7)
        with GameClient(gw.settings.gamestate_addr) as g:  # straight to the service: the gateway never sees it end
            state = g.get_game(game_id)
            version, to_act, status = state.version, state.to_act, state.status
            while status == "active":
                seat = rng.choice(to_act)
                action = rng.choice(g.legal_actions(game_id, tokens[seat]).actions)
                r = g.submit(game_id, tokens[seat], action, version)
                version, to_act, status = r.version, r.to_act, r.status
        games = lambda pid: c.get(f"/v1/players/{pid}").json()["ratings"].get("toybids", {}).get("games", 0)  # noqa: E731
        keys = Keys(gw.settings.key_prefix)
        deadline = time.monotonic() + 20
        while not (games(pa) == games(pb) == 1):
            assert time.monotonic() < deadline, "not settled"
            time.sleep(0.05)
        assert not rdb.sismember(keys.rated_pending(bucket_of(game_id)), game_id)
        run_matcher(gw.settings, passes=2)
        assert games(pa) == games(pb) == 1


def test_a_player_over_the_active_games_quota_gets_a_refused_ticket_not_a_requeue(make_gateway) -> None:
    """The abuse review (docs/decisions/abuse-bounds.md): "a player at 20 active games queued 2 tickets with
    `bots_after_s: 0`: 22 active". A matched game is charged to its players, so the game-state service refuses it; the
    ticket ends `refused` with the reason instead of going back to the queue forever, and the player still has 20 active
    games."""
    gw = make_gateway(bot_fill_level="random")
    with gw.client() as c:
        _pid, key = new_player(c, "busy")
        for _ in range(20):  # the service's QUOTA_ACTIVE_GAMES default
            assert c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2}).status_code == 201
        t = ticket(c, key, "toybids", 2, bots_after_s=0)
        assert run_matcher(gw.settings) == []
        refused = poll(c, key, t)
        assert refused["status"] == "refused" and "20 active games" in refused["note"], refused
        assert run_matcher(gw.settings) == [], "a refused ticket is never queued again"
        assert poll(c, key, t)["status"] == "refused"
        r = c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2})
        assert_error(r, 429, "quota_exceeded")
