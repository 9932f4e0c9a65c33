"""An arena at tables of N: finishers queued again at once, seated with the waiting players nearest them in the
standings, points from places with a streak bonus, nothing after the window."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.common.standings import places
from services.tournaments.arena import Arena, ArenaSettings
from services.tournaments.scoring import UNIT, default_points


def _arena(seats: int = 2, **kw: object) -> Arena:
    return Arena(ArenaSettings(seats=seats, start_ms=0, end_ms=60_000, **kw))  # type: ignore[arg-type]


def test_waiting_players_are_seated_near_in_the_standings() -> None:
    arena = _arena(seats=2)
    for p in "abcd":
        arena.join(p, 0)
    arena.tally.records["a"].points = 9 * UNIT
    arena.tally.records["c"].points = 8 * UNIT
    tables = arena.seat(10)
    assert sorted(tuple(sorted(t)) for t in tables) == [("a", "c"), ("b", "d")]   # a: 9, c: 8, b and d: 0
    assert not arena.waiting and arena.playing == set("abcd")


def test_a_finisher_is_queued_again_and_a_lone_player_waits_until_bots_are_allowed() -> None:
    arena = _arena(seats=2, bots_after_ms=5_000)
    arena.join("a", 0)
    assert arena.seat(1_000) == []
    assert arena.seat(5_000) == [("a", None)]
    arena.record(("a", None), [1, 2], [3, 1], ended_ms=7_000)
    assert arena.waiting == {"a": 7_000}
    no_bots = _arena(seats=2)
    no_bots.join("a", 0)
    assert no_bots.seat(59_000) == []


def test_the_last_opponent_is_passed_over_while_another_is_near() -> None:
    arena = _arena(seats=2)
    for p in "abc":
        arena.join(p, 0)
    assert arena.seat(1) == [("a", "b")]
    arena.record(("a", "b"), [1, 2], [2, 1], ended_ms=100)
    tables = arena.seat(200)
    assert tables == [("c", "b")]     # c waited longest; b (0 points) is nearer to c (0) than a (1)
    arena.record(("c", "b"), [2, 1], [0, 1], ended_ms=300)
    assert arena.seat(300) == [("a", "c")]   # a waited longest; b is nearest but was a's last opponent


def test_a_streak_doubles_the_points_until_a_game_is_not_won() -> None:
    arena = _arena(seats=2, streak_after=2, streak_factor=2)
    arena.join("a", 0)
    arena.join("b", 0)
    got = [arena.record(("a", "b"), [1, 2], [1, 0], ended_ms=t)[0] for t in (1, 2, 3, 4)]
    assert got == [UNIT, UNIT, 2 * UNIT, 2 * UNIT]
    assert arena.record(("a", "b"), [2, 1], [0, 1], ended_ms=5) == [0, UNIT]
    assert arena.record(("a", "b"), [1, 2], [1, 0], ended_ms=6)[0] == UNIT


def test_an_aborted_game_counts_as_none_played() -> None:
    """No result (the game was aborted): no points, no game counted, every streak as it was, the players queued
    again and passing over each other as after any table."""
    arena = _arena(seats=2, streak_after=1, streak_factor=2)
    arena.join("a", 0)
    arena.join("b", 0)
    arena.seat(1)
    assert arena.record(("a", "b"), [1, 2], [1, 0], ended_ms=10) == [UNIT, 0]     # a on a streak now
    arena.seat(20)
    assert arena.record(("a", "b"), None, [0, 0], ended_ms=30) == [0, 0]
    assert (arena.tally.records["a"].games, arena.tally.records["b"].games) == (1, 1)
    assert (arena.tally.records["a"].points, arena.streak) == (UNIT, {"a": 1, "b": 0})
    assert arena.waiting == {"a": 30, "b": 30} and not arena.playing
    assert arena.record(("a", "b"), [1, 2], [1, 0], ended_ms=40)[0] == 2 * UNIT      # the streak held


def test_nothing_is_seated_or_counted_after_the_end() -> None:
    arena = _arena(seats=2)
    arena.join("a", 0)
    arena.join("b", 0)
    assert arena.seat(60_000) == []
    assert arena.record(("a", "b"), [1, 2], [1, 0], ended_ms=60_000) == [0, 0]
    assert arena.tally.records["a"].games == 0 and arena.seat(61_000) == []


def test_a_withdrawn_player_is_not_queued_again() -> None:
    arena = _arena(seats=2)
    arena.join("a", 0)
    arena.join("b", 0)
    arena.seat(1)
    arena.withdraw("a")
    arena.record(("a", "b"), [1, 2], [1, 0], ended_ms=10)
    assert list(arena.waiting) == ["b"] and arena.tally.records["a"].games == 1


def test_settings_are_checked() -> None:
    for bad in (dict(seats=3, start_ms=5, end_ms=5), dict(seats=7, start_ms=0, end_ms=5),
                dict(seats=3, start_ms=0, end_ms=5, streak_factor=9),
                dict(seats=3, start_ms=0, end_ms=5, bots_after_ms=-1)):
        with pytest.raises(ValueError):
            ArenaSettings(**bad)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 40), st.integers(0, 2**32 - 1), st.sampled_from([None, 3_000]))
def test_an_arena_seats_each_player_once_at_a_time_and_its_standings_recompute(
        seats: int, count: int, seed: int, bots_after_ms: int | None) -> None:
    rng = random.Random(seed)
    arena = Arena(ArenaSettings(seats=seats, start_ms=0, end_ms=120_000, bots_after_ms=bots_after_ms))
    for i in range(count):
        arena.join(f"p{i}", rng.randrange(1_000), seed=rng.random())
    running: list[tuple[int, tuple[str | None, ...]]] = []
    finished: list[tuple[tuple[str | None, ...], list[int], list[int], int]] = []
    now = 1_000
    while now < 130_000:
        for table in arena.seat(now):
            humans = [p for p in table if p is not None]
            assert len(table) == seats and len(set(humans)) == len(humans)
            assert None not in table or bots_after_ms is not None
            busy = {p for _, t in running for p in t if p is not None}
            assert not busy & set(humans)                     # nobody at two tables at once
            running.append((now + rng.randrange(500, 20_000), table))
        running.sort(key=lambda r: r[0])
        while running and running[0][0] <= now:
            ends, table = running.pop(0)
            scores = [rng.randrange(5) for _ in table]
            placed = places([(s,) for s in scores])
            arena.record(table, placed, scores, ends)
            finished.append((table, placed, scores, ends))
        if rng.random() < 0.01 and arena.tally.active():
            arena.withdraw(rng.choice(arena.tally.active()))
        now += 250
    # recompute: points by place, doubled after two wins in a row, only for games ended inside the window
    pts: Counter[str] = Counter()
    wins_in_row: Counter[str] = Counter()
    for table, placed, _scores, ends in sorted(finished, key=lambda f: f[3]):
        if ends >= 120_000:
            continue
        for seat, player in enumerate(table):
            if player is None:
                continue
            tied = placed.count(placed[seat])
            base = sum(default_points(seats)[placed[seat] - 1:placed[seat] - 1 + tied]) * UNIT // tied
            pts[player] += base * (2 if wins_in_row[player] >= 2 else 1)
            wins_in_row[player] = wins_in_row[player] + 1 if placed[seat] == 1 else 0
    assert {p: r.points for p, r in arena.tally.records.items()} == {p: pts[p] for p in arena.tally.records}
    order = [r.points for r in arena.ranked()]
    assert order == sorted(order, reverse=True)
