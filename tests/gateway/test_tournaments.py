"""A Swiss tournament run by the director (services/tournament_director/director.py) over real Redis, gRPC, HTTP and
PostgreSQL: each round's games are created through the game-state service with the event's title, options, time
control and rated flag, the accounts are seated and told, the games end by the turn clock, the results come from
the outbox, and the next round is paired once; the standings equal a recomputation from the games' own results
as the gateway shows them. A second director racing the first pairs nothing twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import redis
from skyboard_client import Client
from sqlalchemy import update

from services.accounts import seats
from services.accounts.keys import Keys as AccountKeys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.archive.models import TournamentRow
from services.common.redis_clients import async_redis
from services.dev.launch import start_announcing
from services.gamestate.client import AsyncGameClient
from services.gamestate.keys import Keys as GameKeys
from services.gateway.settings import GatewaySettings
from services.tournament_director import metrics
from services.tournament_director.director import Director, record_lag, run
from services.tournaments.feed import feed_key
from services.tournaments.scoring import UNIT, default_points, shown
from services.tournaments.store import Event, TournamentStore
from tests.gateway.conftest import Gateway, free_port, gateway_settings, new_prefix
from tests.gateway.test_accounts import new_account
from tests.gateway.test_challenges import events
from tests.redis_required import CLUSTER
from tests.service_secret import SERVICE_SECRET

#: a clock short enough that one sweep plays every seat's default (toybids: the lowest card, TOY-5)
CLOCK = {"kind": "realtime", "seconds_per_decision": 0.05, "reserve_seconds": 0}


class DirectorThread:
    """One director in a thread of its own, in `group` (starting at the streams' end: only what is committed
    while it runs), for the accounts of the gateway configured by `settings`."""

    def __init__(self, settings: GatewaySettings, games_prefix: str, service_addr: str, group: str,
                 store_factory: Callable[..., TournamentStore] = lambda engine, _redis, _keys: TournamentStore(engine)):
        self.loop = asyncio.new_event_loop()
        self.store: TournamentStore | None = None
        self.stop_event: asyncio.Event | None = None
        ready = threading.Event()

        async def main() -> None:
            self.stop_event = asyncio.Event()
            redis = async_redis(settings.redis_url, cluster=CLUSTER)
            engine = make_engine(settings.archive_url or "", pool_size=2)
            gamestate = AsyncGameClient(service_addr, 10)
            keys = AccountKeys(settings.key_prefix)
            self.store = store_factory(engine, redis, keys)
            director = Director(redis, GameKeys(games_prefix), redis, keys,
                                Ratings(redis, keys, AccountRepository(engine)), self.store, gamestate,
                                settings.service_secret or "", group=group, start_id="$", claim_idle_ms=500)
            try:
                await director.ensure_group()
            finally:
                ready.set()
            try:
                await run(director, self.stop_event, idle_poll_s=0.05, claim_every_s=0.2, tick_every_s=0.2,
                          lag_every_s=0.2)
            finally:
                await gamestate.close()
                await redis.aclose()
                await engine.dispose()

        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(main(),), daemon=True)
        self.thread.start()
        assert ready.wait(30), "the director did not start"

    def stop(self) -> None:
        if self.stop_event is not None:
            self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(15)


def _store_call(url: str, fn: Any) -> Any:
    async def go() -> Any:
        engine = make_engine(url)
        try:
            return await fn(TournamentStore(engine))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def _finish_other_events(url: str) -> None:
    """Every event in this run's database marked finished: a director moves on every due event it finds, and
    earlier tests leave some open, so a test that counts what its directors did starts with none but its own."""

    async def go(store: TournamentStore) -> None:
        async with store.sessions.begin() as s:
            await s.execute(update(TournamentRow).where(TournamentRow.status != "finished").values(status="finished"))

    _store_call(url, go)


def _metric(name: str, **labels: str) -> float:
    """A sample of the director's registry (services/tournament_director/metrics.py), 0 if not exported yet."""
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


_COUNTED = (("skyboard_tournament_rounds_paired_total", {}), ("skyboard_tournament_games_created_total", {}),
            ("skyboard_tournament_results_recorded_total", {"status": "finished"}),
            ("skyboard_tournament_events_finished_total", {}),
            ("skyboard_tournament_director_entries_total", {"result": "done"}),
            ("skyboard_tournament_director_passes_total", {"result": "done"}),
            ("skyboard_tournament_director_pass_seconds_count", {}),
            ("skyboard_tournament_game_creation_failures_total", {"kind": "call"}),
            ("skyboard_outcomes_entries_total", {"result": "done"}))


def _counted() -> dict[str, float]:
    return {name: _metric(name, **labels) for name, labels in _COUNTED}


@pytest.fixture
def gw(make_gateway):
    return make_gateway()


def test_a_swiss_event_is_paired_played_and_standings_recompute(gw, service, rdb) -> None:
    settings = gw.settings
    url = settings.archive_url or ""
    with gw.client() as c:
        players = [new_account(c, f"swiss-{i}") for i in range(7)]
    key_of = dict(players)
    event = Event(
        tournament_id=uuid.uuid4().hex, kind="swiss", game="toybids", name="Test Swiss",
        organiser=players[0][0], settings={"seats": 2, "rounds": 3, "byes": "score"}, options={"rounds": 2},
        time_control=CLOCK, rated=True, bots_allowed=False, max_players=16, status="open",
        created_ms=int(time.time() * 1000), starts_ms=int(time.time() * 1000))

    async def enter(store: TournamentStore) -> None:
        await store.create(event)
        for i, (pid, _key) in enumerate(players):
            assert await store.join(event.tournament_id, pid, "human", float(100 - i), i)

    _finish_other_events(url)
    _store_call(url, enter)
    group = f"tournaments-{uuid.uuid4().hex[:6]}"
    before = _counted()
    directors = [DirectorThread(settings, service.settings.key_prefix, service.addr, group) for _ in range(2)]
    try:
        deadline = time.monotonic() + 120
        while _store_call(url, lambda s: s.get(event.tournament_id)).status != "finished":
            assert time.monotonic() < deadline, "the event did not finish"
            time.sleep(0.1)
            service.sweep()
        # the directors' metrics (both in this process: one registry) moved with what they did, once each
        deadline = time.monotonic() + 60
        while _metric("skyboard_tournament_director_entries_behind", group=group) or not _metric(
                "skyboard_tournament_director_last_pass_timestamp_seconds"):
            assert time.monotonic() < deadline, "the directors' lag did not come back to 0"
            time.sleep(0.1)
        moved = {name: value - before[name] for name, value in _counted().items()}
    finally:
        for d in directors:
            d.stop()

    state = _store_call(url, lambda s: s.swiss(event.tournament_id))
    assert [p.round for p in state.pairings] == [1, 2, 3]                       # each round paired once
    met: dict[str, set[str]] = {p: set() for p, _ in players}
    points: Counter[str] = Counter()
    for pairing in state.pairings:
        assert len(pairing.byes) == 1 and len(pairing.tables) == 3               # 7 = 3 tables of 2 + a bye
        points[pairing.byes[0]] += state.settings.bye_points or 0
        for table in pairing.tables:
            a, b = table.players
            assert a is not None and b is not None and b not in met[a]          # no rematch in 3 rounds of 7
            met[a].add(b)
            met[b].add(a)
    tables = _store_call(url, lambda s: s.tables(event.tournament_id))
    assert len(tables) == 9 and all(t.game_id for t in tables)                 # every table got its game
    with gw.client() as c:
        for t in tables:
            game = c.get(f"/v1/games/{t.game_id}").raise_for_status().json()
            assert game["status"] == "finished" and game["game"] == "toybids"
            by_player = {s.get("player_id"): s["seat"] for s in game["seats"]}
            for player in t.players:                                             # the game's own result
                assert player in by_player, f"{player} is not seated in {t.game_id}: {game['seats']}"
                place = game["places"][by_player[player]]
                tied = game["places"].count(place)
                points[player] += sum(default_points(2)[place - 1:place - 1 + tied]) * UNIT // tied
    ranked = state.tally.ranked()
    assert {r.player: r.points for r in ranked} == {p: points[p] for p, _ in players}
    assert sum(r.points for r in ranked) == 9 * UNIT + 3 * (state.settings.bye_points or 0)

    assert moved["skyboard_tournament_rounds_paired_total"] == 3
    assert moved["skyboard_tournament_games_created_total"] == 9
    assert moved["skyboard_tournament_results_recorded_total"] == 9
    assert moved["skyboard_tournament_events_finished_total"] == 1
    assert moved["skyboard_tournament_director_entries_total"] >= 9           # every version of every game
    assert moved["skyboard_tournament_director_passes_total"] > 0
    assert moved["skyboard_tournament_director_pass_seconds_count"] > 0
    assert moved["skyboard_tournament_game_creation_failures_total"] == 0
    assert moved["skyboard_outcomes_entries_total"] == 0, "the director counts its entries apart"

    # the feed: three pairings, standings, and the end with the final standings
    feed = rdb.xrange(feed_key(settings.key_prefix, event.tournament_id))
    kinds = [f["type"] for _id, f in feed]
    assert kinds.count("pairing") == 3 and kinds.count("end") == 1 and kinds[-1] == "end"
    final = json.loads(feed[-1][1]["data"])["standings"]
    assert [(row["player_id"], row["points"]) for row in final] == [(r.player, shown(r.points)) for r in ranked]

    # a seated account was told its table, with the tournament
    first = state.pairings[0].tables[0].players[0]
    assert first is not None
    with gw.client() as c:
        got = events(c, key_of[first], lambda es: any(
            e.event == "game_start" and e.json().get("tournament_id") == event.tournament_id for e in es))
    starts = [e.json() for e in got if e.event == "game_start" and e.json().get("tournament_id")]
    assert starts and starts[0]["round"] == 1



@contextlib.asynccontextmanager
async def _in_process_director(settings: GatewaySettings, service, group: str) -> AsyncIterator[Director]:
    """A director in this event loop, its group made at the streams' end (only what is committed from now on),
    for a test that drives its steps itself."""
    redis = async_redis(settings.redis_url, cluster=CLUSTER)
    engine = make_engine(settings.archive_url or "", pool_size=1)
    gamestate = AsyncGameClient(service.addr, 10)
    keys = AccountKeys(settings.key_prefix)
    director = Director(redis, GameKeys(service.settings.key_prefix), redis, keys,
                        Ratings(redis, keys, AccountRepository(engine)), TournamentStore(engine), gamestate,
                        settings.service_secret or "", group=group, start_id="$")
    try:
        await director.ensure_group()
        yield director
    finally:
        await gamestate.close()
        await redis.aclose()
        await engine.dispose()


def test_the_director_gauges_its_groups_lag_from_redis(gw, service) -> None:
    """Game ends the director's group has not done yet are counted, with the age of the oldest, and both gauges
    go back to 0 once it has done them. The gauges are per group: another test's directors, still stopping in
    this process, gauge their own."""
    settings = gw.settings
    group = f"lag-{uuid.uuid4().hex[:6]}"

    async def go() -> tuple[tuple[int, float], tuple[int, float]]:
        async with _in_process_director(settings, service, group) as director:
            gamestate = director.gamestate
            for _ in range(2):  # two games, each created and aborted: two versions each, no tournament's
                game = await gamestate.admin(settings.service_secret or "").create_game("toybids", 2)
                await gamestate.abort(game.game_id, game.token(0))
            await asyncio.sleep(0.05)  # so the oldest entry is older than 0 s at the millisecond
            behind = await record_lag(director)
            gauged = (int(_metric("skyboard_tournament_director_entries_behind", group=group)),
                      _metric("skyboard_tournament_director_oldest_entry_age_seconds", group=group))
            assert gauged == behind
            deadline = time.monotonic() + 30   # the service's other games (earlier tests' sweeps) commit too
            while True:
                while entries := await director.read_new():
                    await director.handle(entries)
                after = await record_lag(director)
                if after == (0, 0.0) or time.monotonic() > deadline:
                    return behind, after
                await asyncio.sleep(0.1)

    (behind, age), after = asyncio.run(go())
    assert behind >= 4 and age >= 0.05
    assert after == (0, 0.0)
    assert _metric("skyboard_tournament_director_entries_behind", group=group) == 0
    assert _metric("skyboard_tournament_director_oldest_entry_age_seconds", group=group) == 0


class _FailingStore(TournamentStore):
    """A store whose reads of the due events fail while `down` (SQL unreachable)."""

    down = True

    async def due(self, now_ms: int, limit: int = 500) -> list[str]:
        if self.down:
            raise ConnectionError("SQL unreachable")
        return await super().due(now_ms, limit)


def test_the_last_pass_stays_behind_while_the_directors_ticks_fail(gw, service) -> None:
    """While every tick fails, the loop goes on (passes counted as failed) but its last good pass does not move,
    which SkyboardTournamentDirectorStalled watches; once SQL answers again, it moves."""
    settings = gw.settings

    async def go() -> tuple[float, float, float]:
        redis = async_redis(settings.redis_url, cluster=CLUSTER)
        engine = make_engine(settings.archive_url or "", pool_size=1)
        gamestate = AsyncGameClient(service.addr, 10)
        keys = AccountKeys(settings.key_prefix)
        store = _FailingStore(engine)
        director = Director(redis, GameKeys(service.settings.key_prefix), redis, keys,
                            Ratings(redis, keys, AccountRepository(engine)), store, gamestate,
                            settings.service_secret or "", group=f"stall-{uuid.uuid4().hex[:6]}", start_id="$")
        stop = asyncio.Event()
        last, failed = _metric("skyboard_tournament_director_last_pass_timestamp_seconds"), _metric(
            "skyboard_tournament_director_passes_total", result="failed")
        loop = asyncio.create_task(run(director, stop, idle_poll_s=0.01, tick_every_s=0.05, lag_every_s=60))
        try:
            deadline = time.monotonic() + 60
            while _metric("skyboard_tournament_director_passes_total", result="failed") < failed + 3:
                assert time.monotonic() < deadline and not loop.done(), "the ticks did not fail three times"
                await asyncio.sleep(0.01)
            stalled = _metric("skyboard_tournament_director_last_pass_timestamp_seconds")
            store.down = False
            while _metric("skyboard_tournament_director_last_pass_timestamp_seconds") == stalled:
                assert time.monotonic() < deadline and not loop.done(), "no good pass once SQL answered"
                await asyncio.sleep(0.01)
            return last, stalled, _metric("skyboard_tournament_director_last_pass_timestamp_seconds")
        finally:
            stop.set()
            await loop
            await gamestate.close()
            await redis.aclose()
            await engine.dispose()

    before, stalled, after = asyncio.run(go())
    assert stalled == before                    # three failed ticks, any number of idle reads: not advancing
    assert after > stalled


def test_a_round_whose_games_cannot_be_created_counts_the_failure(gw) -> None:
    """The game-state service unreachable: the round is paired (counted), its two tables' creation fails
    (counted as one failed call of two games), no game is counted as created, and the tables stay unstarted
    for a later pass."""
    settings = gw.settings
    url = settings.archive_url or ""
    now = int(time.time() * 1000)
    event = Event(
        tournament_id=uuid.uuid4().hex, kind="swiss", game="toybids", name="Unreachable", organiser="o",
        settings={"seats": 2, "rounds": 1, "byes": "score"}, options={"rounds": 2}, time_control=CLOCK,
        rated=False, bots_allowed=False, max_players=8, status="open", created_ms=now, starts_ms=now)
    _finish_other_events(url)
    before = _counted()

    async def go() -> list[tuple[int, int, list[str | None]]]:
        redis = async_redis(settings.redis_url, cluster=CLUSTER)
        engine = make_engine(url, pool_size=1)
        gamestate = AsyncGameClient("127.0.0.1:1", 2)   # nothing listens there
        keys = AccountKeys(settings.key_prefix)
        store = TournamentStore(engine)
        director = Director(redis, GameKeys("unused:"), redis, keys, Ratings(redis, keys, AccountRepository(engine)),
                            store, gamestate, settings.service_secret or "")
        try:
            await store.create(event)
            for i in range(4):
                assert await store.join(event.tournament_id, f"p{i}-{uuid.uuid4().hex[:6]}", "human", float(i), now)
            await director.advance(event.tournament_id)
            return await store.unstarted(event.tournament_id)
        finally:
            async with store.sessions.begin() as s:  # no director of a later test picks this event up
                await s.execute(update(TournamentRow).where(
                    TournamentRow.tournament_id == event.tournament_id).values(status="finished"))
            await gamestate.close()
            await redis.aclose()
            await engine.dispose()

    unstarted = asyncio.run(go())
    moved = {name: value - before[name] for name, value in _counted().items()}
    assert [(r, n) for r, n, _p in unstarted] == [(1, 1), (1, 2)]
    assert moved["skyboard_tournament_rounds_paired_total"] == 1
    assert moved["skyboard_tournament_game_creation_failures_total"] == 2
    assert moved["skyboard_tournament_games_created_total"] == 0


def _new_event(c, key: str, **extra: Any):
    body = {"name": "REST Swiss", "game": "toybids", "players": 2, "rounds": 2, "byes": "score",
            "options": {"rounds": 2}, "time_control": CLOCK, "starts_at": int(time.time() * 1000), **extra}
    return c.post("/v1/tournaments", headers={"Authorization": f"Bearer {key}"}, json=body)


def _error(r) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


def test_rest_refuses_bad_input_and_limits_with_the_json_error_body(make_gateway) -> None:
    gw = make_gateway(outcomes=False, tournaments_per_day=2)
    with gw.client() as c:
        org, key = new_account(c, "organiser")
        _bot, bot_key = new_account(c, "robo", "bot")
        auth = {"Authorization": f"Bearer {key}"}
        assert _error(c.post("/v1/tournaments", json={"name": "x"})) == (401, "unauthenticated")
        for bad, code in (({"players": 6}, "invalid_request"), ({"players": 4}, "invalid_request"),
                          ({"game": "chess"}, "unknown_game"), ({"points": [0, 1]}, "invalid_request"),
                          ({"bye_points": 0.001}, "invalid_request"), ({"rounds": 0}, "invalid_request"),
                          ({"starts_at": 1}, "invalid_request"), ({"max_players": 10**6}, "invalid_request"),
                          ({"kind": "arena"}, "invalid_request"), ({"options": {"nope": 1}}, "invalid_request")):
            r = _new_event(c, key, **bad)
            assert _error(r) == (422, code), (bad, r.text)
        small = _new_event(c, key, max_players=2, starts_at=int(time.time() * 1000) + 3_600_000)
        assert small.status_code == 201, small.text
        tid = small.json()["tournament_id"]
        with_bots = _new_event(c, key, bots_allowed=True)
        assert with_bots.status_code == 201, with_bots.text
        assert _error(_new_event(c, key)) == (429, "quota_exceeded")               # 2 a day here
        assert c.post(f"/v1/tournaments/{with_bots.json()['tournament_id']}/join",
                      headers={"Authorization": f"Bearer {bot_key}"}).json()["entered"]
        assert _error(c.get("/v1/tournaments/nope")) == (404, "not_found")
        assert _error(c.get(f"/v1/tournaments/{uuid.uuid4().hex}/standings")) == (404, "not_found")
        joined = c.post(f"/v1/tournaments/{tid}/join", headers=auth)
        assert joined.status_code == 200 and joined.json()["entered"] is True
        assert c.post(f"/v1/tournaments/{tid}/join", headers=auth).json()["entered"] is False
        assert _error(c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {bot_key}"})) == (
            403, "forbidden")                                                        # no bots in this one
        _other, other_key = new_account(c, "other")
        assert c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {other_key}"}).json()[
            "entered"]
        _third, third_key = new_account(c, "third")
        assert _error(c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {third_key}"})) == (
            409, "tournament_full")
        out = c.get(f"/v1/tournaments/{tid}").json()
        assert (out["organiser"], out["entrants"], out["status"], out["round"], out["points"], out["bye_points"]) == (
            org, 2, "open", 0, [1, 0], 0.5)
        left = c.post(f"/v1/tournaments/{tid}/withdraw", headers=auth).json()
        assert left["entered"] is True and left["resigned"] == []
        assert c.post(f"/v1/tournaments/{tid}/withdraw", headers=auth).json()["entered"] is False
        assert c.get(f"/v1/tournaments/{tid}").json()["entrants"] == 1
        listed = c.get("/v1/tournaments", params={"status": "open", "limit": 200}).json()["tournaments"]
        assert tid in {t["tournament_id"] for t in listed}


def test_rest_event_with_a_withdrawal_mid_round(gw, service) -> None:
    """Five players over REST, two rounds; one withdraws while its round-1 game runs: that game is resigned (the
    zombie plays it out, the player places last), the player gets no round-2 table, and the standings read over
    REST equal a recomputation from the games' places."""
    settings = gw.settings
    with gw.client() as c:
        players = [new_account(c, f"rest-{i}") for i in range(5)]
        key_of = dict(players)
        r = _new_event(c, players[0][1])
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        for _pid, key in players:
            assert c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {key}"}).json()["entered"]
        director = DirectorThread(settings, service.settings.key_prefix, service.addr,
                                  f"tournaments-{uuid.uuid4().hex[:6]}")
        try:
            deadline = time.monotonic() + 60
            while not (rounds := c.get(f"/v1/tournaments/{tid}/standings").json()["rounds"]) or not all(
                    t["game_id"] for t in rounds[0]["tables"]):
                assert time.monotonic() < deadline, "round 1 was not paired"
                time.sleep(0.05)
            leaver = rounds[0]["tables"][0]["players"][0]
            left = c.post(f"/v1/tournaments/{tid}/withdraw", headers={"Authorization": f"Bearer {key_of[leaver]}"})
            assert left.json()["resigned"] == [rounds[0]["tables"][0]["game_id"]], left.text
            deadline = time.monotonic() + 120
            while (got := c.get(f"/v1/tournaments/{tid}/standings").json())["status"] != "finished":
                assert time.monotonic() < deadline, "the event did not finish"
                time.sleep(0.1)
                service.sweep()
        finally:
            director.stop()
        first, second = got["rounds"]
        assert leaver not in {p for t in second["tables"] for p in t["players"]} | set(second["byes"])
        assert len(second["tables"]) == 2 and second["byes"] == []
        points: Counter[str] = Counter({p: 30 for p in first["byes"]})            # a bye: half a point
        for rnd in got["rounds"]:
            for t in rnd["tables"]:
                game = c.get(f"/v1/games/{t['game_id']}").json()
                seat_of = {s.get("player_id"): s["seat"] for s in game["seats"]}
                assert [game["places"][seat_of[p]] for p in t["players"]] == t["places"] and t["ended"]
                for p, place in zip(t["players"], t["places"]):
                    tied = t["places"].count(place)
                    points[p] += sum(default_points(2)[place - 1:place - 1 + tied]) * UNIT // tied
        assert first["tables"][0]["places"][0] == 2                                 # the leaver placed last
        shown_points = {row["player_id"]: row["points"] for row in got["standings"]}
        assert shown_points == {p: shown(points[p]) for p, _ in players}
        assert [row["withdrawn"] for row in got["standings"] if row["player_id"] == leaver] == [True]
    # the feed over HTTP (the SDK's reader): both pairings, and the end with the standings the REST read shows
    sdk = Client(gw.url)
    try:
        feed = list(sdk.tournament_events(tid))
    finally:
        sdk.close()
    kinds = [e.type for e in feed]
    assert kinds.count("pairing") == 2 and kinds.count("end") == 1 and kinds[-1] == "end", kinds
    assert [(r["player_id"], r["points"]) for r in feed[-1].data["standings"]] == [
        (r["player_id"], r["points"]) for r in got["standings"]]
    resumed = Client(gw.url)
    try:
        assert [e.id for e in resumed.tournament_events(tid, last_event_id=feed[0].id)] == [e.id for e in feed[1:]]
    finally:
        resumed.close()
    with gw.client() as c:
        assert c.get(f"/v1/tournaments/{tid}/events", headers={"Last-Event-ID": "nope"}).status_code == 422


class _WithdrawalAtRecord(TournamentStore):
    """The real store, watched at the moment a table records its game: whether each player's account holds its
    seat there already, and the table's first player withdrawing at that very moment (a withdrawal racing the
    game's creation, whose own resignation cannot see the game yet)."""

    def __init__(self, engine: Any, redis: Any, keys: AccountKeys):
        super().__init__(engine)
        self.redis, self.keys = redis, keys
        self.held_at_record: dict[str, list[bool]] = {}

    async def set_game(self, tournament_id: str, round_no: int, number: int, game_id: str) -> bool:
        table = next(t for t in await self.tables(tournament_id, round_no) if t.number == number)
        self.held_at_record[game_id] = [await seats.held(self.redis, self.keys, p, game_id) is not None
                                        for p in table.players if p is not None]
        await self.withdraw(tournament_id, str(table.players[0]), int(time.time() * 1000))
        return await super().set_game(tournament_id, round_no, number, game_id)


def test_a_table_records_its_game_once_its_players_hold_it_and_a_racing_withdrawal_is_resigned(gw, service) -> None:
    """A game id a client reads from the record is one its players' accounts hold (a withdrawal that reads it can
    resign the seat), and a player who withdraws while its table's game is being made is resigned by the director:
    in a 2-player game that ends the game with the leaver last."""
    with gw.client() as c:
        players = [new_account(c, f"race-{i}") for i in range(2)]
        r = _new_event(c, players[0][1], rounds=1)
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        for _pid, key in players:
            assert c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {key}"}).json()["entered"]
        director = DirectorThread(gw.settings, service.settings.key_prefix, service.addr,
                                  f"tournaments-{uuid.uuid4().hex[:6]}", store_factory=_WithdrawalAtRecord)
        try:
            deadline = time.monotonic() + 60
            while (got := c.get(f"/v1/tournaments/{tid}/standings").json())["status"] != "finished":
                assert time.monotonic() < deadline, "the leaver's game did not end"
                time.sleep(0.05)
        finally:
            director.stop()
        table = got["rounds"][0]["tables"][0]
        assert isinstance(director.store, _WithdrawalAtRecord)
        assert director.store.held_at_record == {table["game_id"]: [True, True]}
        game = c.get(f"/v1/games/{table['game_id']}").json()
        seat_of = {s.get("player_id"): s for s in game["seats"]}
        leaver = table["players"][0]
        assert seat_of[leaver]["status"] == "resigned"
        assert table["places"][0] == 2


def _group_from_now(rdb: redis.Redis, keys: GameKeys, group: str) -> None:
    """The director group made at every outbox stream's end: what the session committed before is not this
    test's."""
    for b in range(64):
        try:
            rdb.xgroup_create(keys.changes(b), group, id="$", mkstream=True)
        except redis.ResponseError as exc:
            assert "BUSYGROUP" in str(exc)


def _director_process(settings: GatewaySettings, gamestate_addr: str, outbox_prefix: str,
                      group: str) -> subprocess.Popen:
    """`python -m services.tournament_director` as deployed, for this gateway's accounts and the service's outbox."""
    env = {**os.environ, "GATEWAY_REDIS_URL": settings.redis_url, "GATEWAY_KEY_PREFIX": settings.key_prefix,
           "GATEWAY_GAMESTATE_ADDR": gamestate_addr, "GATEWAY_GAMESTATE_KEY_PREFIX": outbox_prefix,
           "GATEWAY_ARCHIVE_URL": settings.archive_url or "", "GATEWAY_TOURNAMENTS_GROUP": group,
           "GATEWAY_OUTCOMES_CLAIM_IDLE_S": "1", "GATEWAY_TOURNAMENTS_TICK_S": "0.2",
           "GATEWAY_TOURNAMENTS_METRICS_PORT": "0",
           "SERVICE_SECRET": settings.service_secret or "", "GATEWAY_REDIS_CLUSTER": "true" if CLUSTER else "false"}
    return subprocess.Popen([sys.executable, "-m", "services.tournament_director"], env=env)


class GameStateProcess:
    """The game-state service as a process of its own (tests/services/serve_proc.py: the service's `start` with
    the toy game), on fixed loopback ports so that a restart after a SIGKILL serves where the gateway and the
    directors already call; its own turn-clock sweeper plays every expired seat's default."""

    def __init__(self, redis_url: str, key_prefix: str):
        self.key_prefix = key_prefix
        self.port, self.admin_port = free_port(), free_port()
        self.addr = f"127.0.0.1:{self.admin_port}"          # the internal listener, as ServiceInstance.addr
        self.env = {**os.environ, "REDIS_URL": redis_url, "REDIS_CLUSTER": "true" if CLUSTER else "false",
                    "KEY_PREFIX": key_prefix, "GRPC_ADDR": f"127.0.0.1:{self.port}",
                    "ADMIN_GRPC_ADDR": self.addr, "METRICS_PORT": "0", "SERVICE_SECRET": SERVICE_SECRET,
                    "DISPATCH_BOTS": "false", "ZOMBIE_BOT_LEVEL": "", "WATCH_BLOCK_MS": "200",
                    "SHUTDOWN_GRACE_S": "0.5", "SWEEP_INTERVAL_S": "0.2"}
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        deadline = time.monotonic() + 60
        while True:  # the killed one's ports are free at once; a bind that still fails is retried
            try:
                self.proc, port = start_announcing([sys.executable, "-m", "tests.services.serve_proc"], self.env)
                assert port == self.port
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(15)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # if it was left frozen
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)


def _running_round_games(url: str, rdb: redis.Redis, keys: GameKeys, tid: str, round_no: int) -> list[str] | None:
    """The games of `round_no` not ended yet, read from Redis (the service's own record), once every table of the
    round has its game; None before."""
    tables = _store_call(url, lambda s: s.tables(tid, round_no))
    if not tables or not all(t.game_id for t in tables):
        return None
    return [t.game_id for t in tables if t.game_id and rdb.hget(keys.meta(t.game_id), "status") == "active"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_64_player_swiss_survives_sigkills_of_its_director_and_the_game_state_service_mid_round(
        redis_url, service, rdb) -> None:
    """64 entrants (48 people, 16 bot accounts, every seat played by the turn clock) at tables of 3 for 4 rounds,
    on a game-state service process of their own. The director process is killed (SIGKILL) as soon as round 2 is
    paired and another started; then, once the games of round 3 (or, if they all ended too soon, of round 4) are
    all created, the game-state service is frozen (SIGSTOP), the round's games still running are read from Redis,
    and it is killed (SIGKILL) and started again on the same ports. Those games go on to their end after the
    restart; no round is paired twice, every table has one game, finished, and its result; and the standings equal
    a recomputation from the games' own places as the gateway shows them."""
    gamestate = GameStateProcess(redis_url, new_prefix())
    gw = Gateway(gateway_settings(redis_url, service, gamestate_addr=gamestate.addr), outbox=gamestate.key_prefix)
    settings = gw.settings
    url = settings.archive_url or ""
    keys = GameKeys(gamestate.key_prefix)
    group = f"tournaments-{uuid.uuid4().hex[:6]}"
    directors: list[subprocess.Popen] = []
    try:
        _group_from_now(rdb, keys, group)
        with gw.client() as c:
            players = [new_account(c, f"s64-{i}", "bot" if i % 4 == 3 else None) for i in range(64)]
            # decisions of a second (two per game): a round's games run long enough to be caught running
            r = _new_event(c, players[0][1], players=3, rounds=4, max_players=64, bots_allowed=True,
                           time_control={**CLOCK, "seconds_per_decision": 1.0})
            assert r.status_code == 201, r.text
            tid = r.json()["tournament_id"]
            for _pid, key in players:
                assert c.post(f"/v1/tournaments/{tid}/join",
                              headers={"Authorization": f"Bearer {key}"}).json()["entered"]
        directors.append(_director_process(settings, gamestate.addr, gamestate.key_prefix, group))
        deadline = time.monotonic() + 540

        def wait_for(what: str, done: Callable[[], Any]) -> Any:
            while not (got := done()):
                assert time.monotonic() < deadline, what
                assert directors[-1].poll() is None, f"the director exited while waiting: {what}"
                assert gamestate.proc is not None and gamestate.proc.poll() is None, "the game-state service exited"
                time.sleep(0.1)
            return got

        wait_for("round 2 was not paired", lambda: _store_call(url, lambda s: s.swiss(tid)).round >= 2)
        os.kill(directors[-1].pid, signal.SIGKILL)
        directors[-1].wait(10)
        directors.append(_director_process(settings, gamestate.addr, gamestate.key_prefix, group))

        # mid-round: every game of a round from 3 on created, some still running while the service is frozen
        def created_round() -> int:
            round_no = max(3, _store_call(url, lambda s: s.swiss(tid)).round)
            return round_no if _running_round_games(url, rdb, keys, tid, round_no) is not None else 0

        running: list[str] = []
        caught = 0
        while not running:
            caught = wait_for("no round from 3 on had its games created", created_round)
            assert gamestate.proc is not None
            os.kill(gamestate.proc.pid, signal.SIGSTOP)
            running = _running_round_games(url, rdb, keys, tid, caught) or []
            if not running:  # the round's games all ended just now: catch the next round
                assert caught < 4, "the game-state service was never caught mid-round"
                os.kill(gamestate.proc.pid, signal.SIGCONT)
                wait_for("the next round was not paired",
                         lambda last=caught: _store_call(url, lambda s: s.swiss(tid)).round > last)
        versions = {g: int(rdb.hget(keys.meta(g), "version") or -1) for g in running}
        gamestate.kill()                                                       # SIGKILL while frozen
        killed_ms = int(time.time() * 1000)
        gamestate.start()
        wait_for("the event did not finish", lambda: _store_call(url, lambda s: s.get(tid)).status == "finished")
    except BaseException:
        gw.stop()
        gamestate.stop()
        raise
    finally:
        for proc in directors:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(15)

    try:
        state = _store_call(url, lambda s: s.swiss(tid))
        tables = _store_call(url, lambda s: s.tables(tid))
        assert [p.round for p in state.pairings] == [1, 2, 3, 4]                     # each round paired once
        assert len(tables) == 4 * 21 and all(t.game_id and t.places for t in tables)  # no game lost, one per table
        assert len({t.game_id for t in tables}) == len(tables)
        ended_after = {t.game_id: t.ended_ms for t in tables if t.game_id in running}
        assert len(ended_after) == len(running) and all(ms and ms >= killed_ms for ms in ended_after.values()), \
            "the games running at the kill ended after the restart"
        points: Counter[str] = Counter()
        for pairing in state.pairings:
            assert len(pairing.byes) == 1                                            # 64 = 21 tables of 3 + a bye
            points[pairing.byes[0]] += state.settings.bye_points or 0
        with gw.client() as c:
            for t in tables:
                game = c.get(f"/v1/games/{t.game_id}").raise_for_status().json()
                assert game["status"] == "finished"
                if t.game_id in running:                                             # went on from where it was
                    assert game["version"] > versions[t.game_id] >= 0
                seat_of = {s.get("player_id"): s["seat"] for s in game["seats"]}
                assert [game["places"][seat_of[p]] for p in t.players] == t.places
                for p, place in zip(t.players, t.places):
                    tied = t.places.count(place)
                    points[p] += sum(default_points(3)[place - 1:place - 1 + tied]) * UNIT // tied
        assert {r.player: r.points for r in state.tally.ranked()} == {p: points[p] for p, _ in players}
    finally:
        gw.stop()
        gamestate.stop()


def _arena_points(tables: list[dict[str, Any]], games: dict[str, dict[str, Any]], seats: int, end_ms: int,
                  streak_after: int = 2, factor: int = 2) -> Counter[str]:
    """An arena's points recomputed from its games' own places (table order: the order seated, a player's games
    in turn): points by place, ties shared, times `factor` once a player has won `streak_after` games in a row;
    a game that ended after the window counts nothing."""
    points: Counter[str] = Counter()
    wins_in_row: Counter[str] = Counter()
    for t in sorted(tables, key=lambda t: t["number"]):
        if t["ended_ms"] >= end_ms:
            continue
        game = games[t["game_id"]]
        seat_of = {s.get("player_id"): s["seat"] for s in game["seats"]}
        for p in filter(None, t["players"]):
            place = game["places"][seat_of[p]]
            tied = game["places"].count(place)
            base = sum(default_points(seats)[place - 1:place - 1 + tied]) * UNIT // tied
            points[p] += base * (factor if wins_in_row[p] >= streak_after else 1)
            wins_in_row[p] = wins_in_row[p] + 1 if place == 1 else 0
    return points


def _arena_rows(url: str, tid: str) -> list[dict[str, Any]]:
    """The arena's tables as stored (with when each was seated and ended), by number."""
    from sqlalchemy import select

    from services.archive.models import TournamentTableRow

    async def go(store: TournamentStore) -> list[dict[str, Any]]:
        async with store.sessions() as s:
            rows = (await s.scalars(select(TournamentTableRow).where(
                TournamentTableRow.tournament_id == tid).order_by(TournamentTableRow.number))).all()
            return [{"round": r.round, "number": r.number, "players": list(r.players), "game_id": r.game_id,
                     "places": r.places, "created_ms": r.created_ms, "ended_ms": r.ended_ms} for r in rows]

    return _store_call(url, go)


def _check_arena(c, url: str, tid: str, seats: int, end_ms: int) -> tuple[dict[str, Any], Counter[str]]:
    """Every table of the finished arena played once, nobody at two tables at once, nothing seated after the end,
    and the standings over REST equal a recomputation from the games' own places."""
    rows = _arena_rows(url, tid)
    assert rows and all(r["round"] == 0 and r["game_id"] and r["places"] for r in rows)
    assert len({r["game_id"] for r in rows}) == len(rows)
    assert all(r["created_ms"] < end_ms for r in rows)                             # none seated after the end
    last_end: dict[str, int] = {}
    for r in rows:                                                                  # one table at a time
        for p in filter(None, r["players"]):
            assert r["created_ms"] >= last_end.get(p, 0), f"{p} seated at table {r['number']} while playing"
            last_end[p] = r["ended_ms"]
    games = {r["game_id"]: c.get(f"/v1/games/{r['game_id']}").raise_for_status().json() for r in rows}
    for r in rows:
        game = games[r["game_id"]]
        seat_of = {s.get("player_id"): s["seat"] for s in game["seats"]}
        assert [game["places"][seat_of[p]] for p in r["players"] if p is not None] == [
            pl for p, pl in zip(r["players"], r["places"]) if p is not None]
    got = c.get(f"/v1/tournaments/{tid}/standings").raise_for_status().json()
    [seated] = got["rounds"]
    assert [t["game_id"] for t in seated["tables"]] == [r["game_id"] for r in rows]
    points = _arena_points(rows, games, seats, end_ms)
    assert {row["player_id"]: row["points"] for row in got["standings"]} == {
        row["player_id"]: shown(points[row["player_id"]]) for row in got["standings"]}
    order = [(-row["points"], -row["game_score"]) for row in got["standings"]]
    assert order == sorted(order)
    return got, points


def _new_arena(c, key: str, window_ms: int, **extra: Any):
    now = int(time.time() * 1000)
    body = {"name": "REST Arena", "game": "toybids", "kind": "arena", "players": 2, "options": {"rounds": 2},
            "time_control": CLOCK, "starts_at": now, "ends_at": now + window_ms, **extra}
    return c.post("/v1/tournaments", headers={"Authorization": f"Bearer {key}"}, json=body)


def test_rest_arena_refuses_bad_windows(make_gateway) -> None:
    gw = make_gateway(outcomes=False)
    with gw.client() as c:
        _org, key = new_account(c, "arena-organiser")
        for bad in ({"ends_at": None}, {"window_ms": 500}, {"window_ms": 2 * 86_400_000}, {"rounds": 3},
                    {"streak_factor": 5}, {"streak_after": 0}, {"bots_after_s": -1}, {"bye_points": 1}):
            extra = {k: v for k, v in bad.items() if k != "window_ms"}
            r = _new_arena(c, key, bad.get("window_ms", 60_000), **extra)              # type: ignore[arg-type]
            assert _error(r) == (422, "invalid_request"), (bad, r.text)
        r = _new_arena(c, key, 60_000, players=3, streak_after=3, bots_after_s=2.5)
        assert r.status_code == 201, r.text
        out = c.get(f"/v1/tournaments/{r.json()['tournament_id']}").json()
        assert (out["kind"], out["players"], out["rounds"], out["streak_after"], out["streak_factor"],
                out["bots_after_s"], out["byes"], out["points"]) == ("arena", 3, 0, 3, 2, 2.5, "bots", [2, 1, 0])
        assert out["ends_at"] - out["starts_at"] == 60_000
        got = c.get(f"/v1/tournaments/{out['tournament_id']}/standings").json()
        assert (got["rounds"], got["round"], got["status"]) == ([], 0, "open")
        assert _error(_new_event(c, key, rounds=None)) == (422, "invalid_request")    # Swiss needs its rounds


def test_rest_arena_runs_its_window_and_standings_recompute(gw, service) -> None:
    """Five players over REST in a 2-seat arena of a few seconds, two directors racing: players are re-queued
    as their games end and re-seated, nobody at two tables at once, nothing seated after the end; the event
    finishes once its last game ended and the standings (streak bonus included) equal a recomputation from the
    games' own places; the feed has the pairings, standings after every result, and the end."""
    settings = gw.settings
    url = settings.archive_url or ""
    with gw.client() as c:
        players = [new_account(c, f"arena-{i}") for i in range(5)]
        r = _new_arena(c, players[0][1], 6_000)
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        end_ms = c.get(f"/v1/tournaments/{tid}").json()["ends_at"]
        for _pid, key in players:
            assert c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {key}"}).json()["entered"]
        group = f"tournaments-{uuid.uuid4().hex[:6]}"
        directors = [DirectorThread(settings, service.settings.key_prefix, service.addr, group) for _ in range(2)]
        try:
            deadline = time.monotonic() + 120
            while c.get(f"/v1/tournaments/{tid}").json()["status"] != "finished":
                assert time.monotonic() < deadline, "the arena did not finish"
                time.sleep(0.1)
                service.sweep()
        finally:
            for d in directors:
                d.stop()
        got, _points = _check_arena(c, url, tid, 2, end_ms)
        assert len(got["rounds"][0]["tables"]) > 2          # players came back for more than one game each
    sdk = Client(gw.url)
    try:
        feed = list(sdk.tournament_events(tid))
    finally:
        sdk.close()
    kinds = [e.type for e in feed]
    assert kinds.count("end") == 1 and kinds[-1] == "end" and kinds.count("pairing") >= 2, kinds
    # every result puts the standings on the feed, by the seating it allows, by the end, or alone (a game that
    # ends with nobody else waiting, or after the window): at least one standings or end a result
    results = sum(1 for t in got["rounds"][0]["tables"] if t["ended"])
    assert kinds.count("standings") + kinds.count("end") >= results, (kinds, results)
    paired = [t["game_id"] for e in feed if e.type == "pairing" for t in e.data["tables"] if t["game_id"]]
    assert set(paired) <= {t["game_id"] for t in got["rounds"][0]["tables"]}
    assert [(r["player_id"], r["points"]) for r in feed[-1].data["standings"]] == [
        (r["player_id"], r["points"]) for r in got["standings"]]


@pytest.mark.slow
def test_an_arena_with_bot_accounts_survives_a_sigkill_of_its_director(gw, service, rdb) -> None:
    """24 entrants (18 people, 6 bot accounts, every seat played by the turn clock) in an arena at tables of 3
    for 15 seconds, a long-waiting player seated with bots after 1 s; one person withdraws mid-window. The
    director process is killed (SIGKILL) once players have come back for a second game, and another started:
    every table has one game and its result, nobody sat at two tables at once, nothing was seated after the end
    or for the withdrawn player after the withdrawal, and the standings equal a recomputation from the games' own
    places with the streak bonus."""
    settings = gw.settings
    url = settings.archive_url or ""
    keys = GameKeys(service.settings.key_prefix)
    group = f"tournaments-{uuid.uuid4().hex[:6]}"
    _group_from_now(rdb, keys, group)
    with gw.client() as c:
        players = [new_account(c, f"a24-{i}", "bot" if i % 4 == 3 else None) for i in range(24)]
        r = _new_arena(c, players[0][1], 15_000, players=3, max_players=24, bots_allowed=True, bots_after_s=1)
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        end_ms = c.get(f"/v1/tournaments/{tid}").json()["ends_at"]
        for _pid, key in players:
            assert c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {key}"}).json()["entered"]
        first = _director_process(settings, service.addr, service.settings.key_prefix, group)
        second = None
        try:
            deadline = time.monotonic() + 240
            while len(_arena_rows(url, tid)) < 12:                       # 8 tables at the start, then re-seated
                assert time.monotonic() < deadline and first.poll() is None, "nobody was seated again"
                time.sleep(0.1)
                service.sweep()
            os.kill(first.pid, signal.SIGKILL)
            first.wait(10)
            leaver, leaver_key = players[1]
            left_ms = int(time.time() * 1000)
            assert c.post(f"/v1/tournaments/{tid}/withdraw",
                          headers={"Authorization": f"Bearer {leaver_key}"}).json()["entered"]
            second = _director_process(settings, service.addr, service.settings.key_prefix, group)
            while c.get(f"/v1/tournaments/{tid}").json()["status"] != "finished":
                assert time.monotonic() < deadline and second.poll() is None, "the arena did not finish"
                time.sleep(0.1)
                service.sweep()
        finally:
            for proc in (first, second):
                if proc is not None and proc.poll() is None:
                    proc.terminate()
                    proc.wait(15)
        got, points = _check_arena(c, url, tid, 3, end_ms)
    rows = _arena_rows(url, tid)
    assert not [r for r in rows if leaver in r["players"] and r["created_ms"] > left_ms]
    assert {row["player_id"] for row in got["standings"]} == {p for p, _ in players}
    assert [row["withdrawn"] for row in got["standings"] if row["player_id"] == leaver] == [True]
    assert sum(points.values()) > 0


def test_a_player_who_abandons_its_seat_is_withdrawn_and_a_too_small_event_ends(gw, service) -> None:
    """A disconnected player is treated as one who withdrew: its seat abandoned after three timeouts in a row
    (the zombie bot plays it out), it gets no further table, and an event left with fewer than two players to
    pair ends once its round is complete instead of staying open forever."""
    settings = gw.settings
    with gw.client() as c:
        (a_id, a_key), (b_id, _b_key) = new_account(c, "stays"), new_account(c, "leaves")
        # four decisions a seat (three can time out), half a second each: the player who stays answers within it
        # even on a loaded machine, and only the other's clock runs out
        r = _new_event(c, a_key, rounds=2, options={"rounds": 4}, time_control={**CLOCK, "seconds_per_decision": 0.5})
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        for key in (a_key, _b_key):
            assert c.post(f"/v1/tournaments/{tid}/join", headers={"Authorization": f"Bearer {key}"}).json()["entered"]

        async def director_does(step: Callable[[Director], Any]) -> Any:
            async with _in_process_director(settings, service, group) as director:
                return await step(director)

        async def drain(director: Director) -> None:
            while entries := await director.read_new():
                await director.handle(entries)

        group = f"abandon-{uuid.uuid4().hex[:6]}"
        asyncio.run(director_does(lambda d: d.advance(tid)))                  # round 1 paired, its game made
        game_id = c.get(f"/v1/tournaments/{tid}/standings").json()["rounds"][0]["tables"][0]["game_id"]
        deadline = time.monotonic() + 60
        while (game := c.get(f"/v1/games/{game_id}").json())["status"] == "active":
            assert time.monotonic() < deadline, "the game did not end"
            legal = c.get(f"/v1/games/{game_id}/actions", headers={"Authorization": f"Bearer {a_key}"}).json()
            if legal.get("actions"):                                        # the player who stays plays its turn
                c.post(f"/v1/games/{game_id}/actions", headers={"Authorization": f"Bearer {a_key}"},
                       json={"action": legal["actions"][0], "expected_version": legal["version"]})
            time.sleep(0.55)                                                # the other's turn clock runs out
            service.sweep()
        statuses = {s.get("player_id"): s["status"] for s in game["seats"]}
        assert statuses == {a_id: "active", b_id: "abandoned"}
        asyncio.run(director_does(drain))                                     # the game's end, as the outbox has it
        got = c.get(f"/v1/tournaments/{tid}/standings").json()
    assert [row["withdrawn"] for row in got["standings"] if row["player_id"] == b_id] == [True]
    assert len(got["rounds"]) == 1, "no round is paired for one player"
    assert got["status"] == "finished"
