"""Tournaments in SQL, on PostgreSQL and SQLite: a round is paired once however many directors try (an arena's
players seated once at a time), a table's game and result are recorded once, limits refuse and change nothing,
and the state rebuilt from the rows equals the event (Swiss or arena) played in memory with the same results."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from services.archive.db import make_engine
from services.common.standings import places
from services.tournaments.arena import Arena
from services.tournaments.store import ARENA_ROUND, Event, Refused, TournamentStore
from services.tournaments.swiss import Swiss


def run(url: str, fn: Callable[[TournamentStore], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        engine = make_engine(url)
        try:
            return await fn(TournamentStore(engine))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def _event(**kw: Any) -> Event:
    fields: dict[str, Any] = dict(
        tournament_id=uuid.uuid4().hex, kind="swiss", game="opensky", name="Sunday Swiss",
        organiser=uuid.uuid4().hex, settings={"seats": 3, "rounds": 3, "byes": "bots"}, options={"rounds": 2},
        time_control={"kind": "realtime", "seconds_per_decision": 30, "reserve_seconds": 300}, rated=True,
        bots_allowed=False,
        max_players=64, status="open", created_ms=1_000, starts_ms=5_000)
    fields.update(kw)
    return Event(**fields)


def test_limits_refuse_and_change_nothing(archive_url: str) -> None:
    event = _event(max_players=2)

    async def go(store: TournamentStore) -> None:
        await store.create(event)
        assert await store.get(event.tournament_id) == event
        assert await store.join(event.tournament_id, "a", "human", 1500.0, 1)
        assert not await store.join(event.tournament_id, "a", "human", 1500.0, 2)   # once
        with pytest.raises(Refused) as bot:
            await store.join(event.tournament_id, "robo", "bot", 1500.0, 3)
        assert bot.value.code == "bots_not_allowed"
        assert await store.join(event.tournament_id, "b", "human", 1400.0, 4)
        with pytest.raises(Refused) as full:
            await store.join(event.tournament_id, "c", "human", 1400.0, 5)
        assert full.value.code == "tournament_full"
        assert await store.withdraw(event.tournament_id, "b", 6)
        assert not await store.withdraw(event.tournament_id, "b", 7)
        assert await store.join(event.tournament_id, "c", "human", 1400.0, 8)   # b's place is free again
        with pytest.raises(Refused) as unknown:
            await store.join("nope", "c", "human", 1400.0, 9)
        assert unknown.value.code == "unknown_tournament"
        assert sorted((await store.swiss(event.tournament_id)).tally.active()) == ["a", "c"]
        assert await store.counts([event.tournament_id, "none"]) == {event.tournament_id: (0, 2), "none": (0, 0)}
        assert await store.organised_since(event.organiser, 1_000) == 1
        assert await store.organised_since(event.organiser, 1_001) == 0
        assert event in await store.listing("open", limit=1000)

    run(archive_url, go)


def test_a_round_is_paired_once_however_many_directors_try(archive_url: str) -> None:
    event = _event()

    async def go(store: TournamentStore) -> None:
        await store.create(event)
        for i in range(7):
            await store.join(event.tournament_id, f"p{i}", "human", float(i), i)
        assert await store.pair_next(event.tournament_id, 4_999) is None          # not started
        tries = await asyncio.gather(*(store.pair_next(event.tournament_id, 5_000) for _ in range(6)))
        paired = [p for p in tries if p is not None]
        assert len(paired) == 1 and paired[0].round == 1
        assert (await store.get(event.tournament_id)).status == "running"     # type: ignore[union-attr]
        assert await store.pair_next(event.tournament_id, 6_000) is None          # round 1 is being played
        unstarted = await store.unstarted(event.tournament_id)
        assert [(r, n) for r, n, _ in unstarted] == [(1, 1), (1, 2), (1, 3)]
        assert unstarted[2][2].count(None) == 2                                   # 7 = 3 + 3 + 1 with two bots

    run(archive_url, go)


def test_an_event_played_through_the_store_equals_it_played_in_memory(archive_url: str) -> None:
    event = _event(settings={"seats": 3, "rounds": 4, "byes": "score"})
    rng = random.Random(7)

    async def go(store: TournamentStore) -> tuple[Swiss, Swiss]:
        await store.create(event)
        memory = Swiss(event.swiss_settings())
        for i in range(11):
            seed = rng.random()
            await store.join(event.tournament_id, f"p{i}", "human", seed, i)
            memory.join(f"p{i}", seed)
        now = 5_000
        while (pairing := await store.pair_next(event.tournament_id, now)) is not None:
            assert pairing == memory.pair_next()                      # the same seating from the rebuilt state
            assert not await store.finish(event.tournament_id)        # a round is being played
            assert (await store.counts([event.tournament_id]))[event.tournament_id] == (
                pairing.round, len(memory.tally.active()))
            for table in pairing.tables:
                game_id = f"g-{event.tournament_id}-{pairing.round}-{table.number}"
                assert await store.set_game(event.tournament_id, pairing.round, table.number, game_id)
                assert not await store.set_game(event.tournament_id, pairing.round, table.number, "other")
                scores = [rng.randrange(8) for _ in table.players]
                placed = places([(s,) for s in scores], {0} if rng.random() < 0.1 else ())
                got = await store.record_result(game_id, placed, scores, now)
                assert got == (event.tournament_id, pairing.round, table.number)
                assert await store.record_result(game_id, placed, scores, now) is None    # a redelivered end
                memory.record(pairing.round, table.number, placed, scores)
            if pairing.round == 2:
                await store.withdraw(event.tournament_id, "p3", now)
                memory.withdraw("p3")
            now += 1_000
        assert await store.record_result("not-a-tournament-game", [1, 2], [1, 0], now) is None
        assert (await store.get(event.tournament_id)).status == "running"     # type: ignore[union-attr]
        assert [await store.finish(event.tournament_id) for _ in range(2)] == [True, False]
        assert (await store.get(event.tournament_id)).status == "finished"    # type: ignore[union-attr]
        return await store.swiss(event.tournament_id), memory

    stored, memory = run(archive_url, go)
    assert stored.finished() and len(stored.pairings) == 4
    assert stored.tally.ranked() == memory.tally.ranked()
    assert all("p3" not in {p for t in pairing.tables for p in t.players} | set(pairing.byes)
               for pairing in stored.pairings[2:])


def _arena_event(**settings: Any) -> Event:
    return _event(kind="arena", starts_ms=10_000, settings={"seats": 3, "ends_ms": 70_000, **settings})


def test_an_arena_seats_a_player_once_however_many_directors_try(archive_url: str) -> None:
    event = _arena_event()

    async def go(store: TournamentStore) -> None:
        await store.create(event)
        for i in range(7):
            await store.join(event.tournament_id, f"p{i}", "human", float(i), i)
        assert await store.seat_arena(event.tournament_id, 9_999) == []               # not started
        assert (await store.get(event.tournament_id)).status == "open"        # type: ignore[union-attr]
        tries = await asyncio.gather(*(store.seat_arena(event.tournament_id, 10_000) for _ in range(6)))
        tables = [t for seated in tries for t in seated]
        humans = [p for t in tables for p in t.players if p is not None]
        assert len(tables) == 2 and len(set(humans)) == len(humans) == 6             # 7 = 3 + 3 + one waiting
        assert [t.number for t in tables] == [1, 2]
        assert (await store.get(event.tournament_id)).status == "running"     # type: ignore[union-attr]
        assert await store.seat_arena(event.tournament_id, 11_000) == []              # one waits alone, no bots
        assert [(r, n) for r, n, _ in await store.unstarted(event.tournament_id)] == [(0, 1), (0, 2)]
        with pytest.raises(Refused) as late:                                           # ARENA: nobody joins after
            await store.join(event.tournament_id, "late", "human", 1.0, 70_000)
        assert late.value.code == "tournament_finished"

    run(archive_url, go)


def test_an_arena_played_through_the_store_equals_it_played_in_memory(archive_url: str) -> None:
    """Seating, re-queueing, the streak bonus and the window's end (services/tournaments/arena.py) read from the
    rows equal the arena played in memory with the same results; a game ending after the window counts nothing, and
    an aborted game (no result) counts as none played."""
    event = _arena_event(seats=2, bots_after_ms=4_000)
    rng = random.Random(11)

    async def go(store: TournamentStore) -> tuple[Arena, Arena]:
        await store.create(event)
        memory = Arena(event.arena_settings())
        for i in range(9):
            seed = rng.random()
            await store.join(event.tournament_id, f"p{i}", "human", seed, i)
            memory.join(f"p{i}", 10_000, seed)
        running: list[tuple[int, str, tuple[str | None, ...]]] = []
        now = 10_000
        while now < 80_000:
            if now == 30_000:                                             # a latecomer, and a withdrawal
                await store.join(event.tournament_id, "late", "human", 0.5, now)
                memory.join("late", now, 0.5)
                await store.withdraw(event.tournament_id, "p4", now)
                memory.withdraw("p4")
            seated = await store.seat_arena(event.tournament_id, now)
            assert [t.players for t in seated] == memory.seat(now)        # the same tables from the rows
            for table in seated:
                game_id = f"g-{event.tournament_id}-{table.number}"
                assert await store.set_game(event.tournament_id, ARENA_ROUND, table.number, game_id)
                running.append((now + rng.randrange(1_000, 9_000), game_id, table.players))
            for ends, game_id, players in [r for r in running if r[0] <= now]:
                running.remove((ends, game_id, players))
                if rng.random() < 0.15:                        # no result: it counts as no game
                    assert await store.record_result(game_id, None, None, ends) is not None
                    memory.record(players, None, [0] * len(players), ends)
                    continue
                scores = [rng.randrange(4) for _ in players]
                placed = places([(s,) for s in scores])
                assert await store.record_result(game_id, placed, scores, ends) is not None
                assert await store.record_result(game_id, placed, scores, ends) is None   # a redelivered end
                memory.record(players, placed, scores, ends)
            if running or now < 70_000:
                assert not await store.finish(event.tournament_id, now)
            now += 500
        assert [await store.finish(event.tournament_id, now) for _ in range(2)] == [True, False]
        tables = await store.tables(event.tournament_id, ARENA_ROUND)
        assert any(t.ended_ms is not None and t.places is None for t in tables), "no game was aborted"
        return await store.arena(event.tournament_id), memory

    stored, memory = run(archive_url, go)
    assert stored.standings() == memory.standings()
    assert any(r.points > 0 for r in stored.tally.records.values())
    assert (stored.waiting, stored.streak, stored.playing) == (memory.waiting, memory.streak, set())


def test_an_arena_table_never_started_is_dropped_at_the_end(archive_url: str) -> None:
    event = _arena_event()

    async def go(store: TournamentStore) -> None:
        await store.create(event)
        for i in range(3):
            await store.join(event.tournament_id, f"p{i}", "human", float(i), i)
        [table] = await store.seat_arena(event.tournament_id, 69_000)
        assert not await store.finish(event.tournament_id, 69_999)                    # the window is open
        assert await store.finish(event.tournament_id, 70_000)                        # its game was never made
        assert await store.tables(event.tournament_id) == []
        assert not await store.set_game(event.tournament_id, ARENA_ROUND, table.number, "late-game")

    run(archive_url, go)
