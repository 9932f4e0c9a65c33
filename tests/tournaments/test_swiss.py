"""A Swiss event at tables of N: seating by standings without repeat opponents where possible, byes for the
remainder, standings by match points then Buchholz then game scores; checked against a brute force and an
independent recomputation."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.common.standings import places
from services.tournaments.scoring import UNIT, default_points
from services.tournaments.seating import repeats, seat_tables
from services.tournaments.swiss import Swiss, SwissSettings


def _partitions(players: list[str], size: int):
    """Every way to split `players` into tables of `size` (the first player's table first)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for others in itertools.combinations(rest, size - 1):
        left = [p for p in rest if p not in others]
        for tail in _partitions(left, size):
            yield [(head, *others), *tail]




def test_the_first_round_seats_by_seed_and_later_rounds_by_standings() -> None:
    event = Swiss(SwissSettings(seats=2, rounds=2))
    for i, player in enumerate("abcd"):
        event.join(player, seed=10 - i)
    first = event.pair_next()
    assert [t.players for t in first.tables] == [("a", "b"), ("c", "d")]
    event.record(1, 1, [2, 1], [0, 3])   # b beat a
    event.record(1, 2, [1, 2], [4, 0])   # c beat d
    second = event.pair_next()
    # b and c lead on one point; c has the bigger game score (Buchholz ties at 0): c, b, a, d; b-c have not met
    assert [t.players for t in second.tables] == [("c", "b"), ("a", "d")]


def test_a_rematch_is_passed_over_for_the_next_player_down() -> None:
    met = {"a": {"b"}, "b": {"a"}, "c": set(), "d": set()}
    assert seat_tables(["a", "b", "c", "d"], met, 2) == [("a", "c"), ("b", "d")]


def test_an_unavoidable_rematch_is_seated_with_the_fewest_repeats() -> None:
    met = {"a": {"b", "c"}, "b": {"a", "c"}, "c": {"a", "b"}, "d": set()}
    tables = seat_tables(["a", "b", "c", "d"], met, 2)
    assert repeats(tables, met) == 1 and sorted(p for t in tables for p in t) == ["a", "b", "c", "d"]


def test_score_byes_go_to_the_lowest_placed_without_a_bye() -> None:
    event = Swiss(SwissSettings(seats=2, rounds=3, byes="score"))
    for i, player in enumerate("abcde"):
        event.join(player, seed=10 - i)
    byes = []
    for _ in range(3):
        pairing = event.pair_next()
        byes.extend(pairing.byes)
        for table in pairing.tables:
            event.record(pairing.round, table.number, [1, 2], [1, 0])
    assert byes[0] == "e" and len(set(byes)) == 3
    assert event.tally.records["e"].points >= event.settings.bye_points


def test_bots_fill_the_remainder_table() -> None:
    event = Swiss(SwissSettings(seats=4, rounds=1, byes="bots"))
    for i in range(6):
        event.join(f"p{i}", seed=-i)
    pairing = event.pair_next()
    assert [t.players for t in pairing.tables] == [("p0", "p1", "p2", "p3"), ("p4", "p5", None, None)]
    assert pairing.byes == ()
    event.record(1, 2, [2, 1, 3, 4], [5, 9, 2, 1])
    assert event.tally.records["p5"].points == 3 * UNIT and event.tally.records["p5"].opponents == ["p4"]


def test_a_round_is_paired_once_and_only_after_the_last_one_ends() -> None:
    event = Swiss(SwissSettings(seats=2, rounds=2))
    for player in "abcd":
        event.join(player)
    event.pair_next()
    with pytest.raises(ValueError):
        event.pair_next()


def test_settings_are_checked() -> None:
    for bad in (dict(seats=1, rounds=3), dict(seats=6, rounds=3), dict(seats=3, rounds=0),
                dict(seats=3, rounds=3, byes="coin"), dict(seats=3, rounds=3, points=(1, 2, 0)),
                dict(seats=3, rounds=3, bye_points=10 * UNIT)):
        with pytest.raises(ValueError):
            SwissSettings(**bad)
    assert SwissSettings(seats=4, rounds=3).bye_points == 3 * UNIT // 2   # the mean of 3, 2, 1, 0


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 3).flatmap(lambda size: st.tuples(
    st.just(size), st.integers(1, 3).map(lambda k: k * size),
    st.integers(0, 2**32 - 1))))
def test_a_repeat_free_seating_is_found_whenever_one_exists(case: tuple[int, int, int]) -> None:
    size, count, seed = case
    count = min(count * 2 if size == 2 else count, 9)
    count -= count % size
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(count)]
    met: dict[str, set[str]] = {p: set() for p in players}
    for a, b in itertools.combinations(players, 2):
        if rng.random() < 0.4:
            met[a].add(b)
            met[b].add(a)
    tables = seat_tables(players, met, size)
    assert sorted(p for t in tables for p in t) == sorted(players) and all(len(t) == size for t in tables)
    best = min(repeats(p, met) for p in _partitions(players, size))
    assert repeats(tables, met) == best if best == 0 else repeats(tables, met) >= best


def _recompute(event: Swiss, results: list[tuple[int, int, list[int], list[int]]]) -> dict[str, tuple]:
    """Standings from the pairings and results alone, by a second reading of the rules."""
    n = event.settings.seats
    pts: Counter[str] = Counter()
    score: Counter[str] = Counter()
    met: dict[str, list[str]] = {p: [] for p in event.tally.records}
    for pairing in event.pairings:
        for player in pairing.byes:
            pts[player] += event.settings.bye_points
    for round_no, number, placed, scores in results:
        players = event.pairings[round_no - 1].tables[number - 1].players
        for seat, player in enumerate(players):
            if player is None:
                continue
            covered = [i for i in range(n) if placed[i] == placed[seat]]
            first = placed[seat] - 1
            pts[player] += sum(default_points(n)[first:first + len(covered)]) * UNIT // len(covered)
            score[player] += scores[seat]
            met[player] += [o for o in players if o is not None and o != player]
    return {p: (pts[p], sum(pts[o] for o in met[p]), score[p]) for p in event.tally.records}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 30), st.integers(1, 6), st.sampled_from(["bots", "score"]),
       st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.1]))
def test_every_round_seats_each_active_player_once_and_standings_recompute(
        seats: int, count: int, rounds: int, byes: str, seed: int, withdraw_p: float) -> None:
    rng = random.Random(seed)
    event = Swiss(SwissSettings(seats=seats, rounds=rounds, byes=byes))  # type: ignore[arg-type]
    for i in range(count):
        event.join(f"p{i}", seed=rng.random())
    active_by_round = []
    results = []
    while not event.finished():
        active_by_round.append(set(event.tally.active()))
        results += _play_round(event, rng, withdraw_p)
    for active, pairing in zip(active_by_round, event.pairings):
        seated = [p for t in pairing.tables for p in t.players if p is not None] + list(pairing.byes)
        assert sorted(seated) == sorted(active)              # every active player once, nobody withdrawn
        full = [t for t in pairing.tables if None not in t.players]
        assert all(len(t.players) == seats for t in pairing.tables)
        assert len(pairing.tables) - len(full) <= 1 and len(pairing.byes) < seats
        assert (byes == "score") or not pairing.byes
    expected = _recompute(event, results)
    for row in event.tally.ranked():
        assert (row.points, row.buchholz, row.game_score) == expected[row.player]
    ranked = event.tally.ranked()
    keys = [(-r.points, -r.buchholz, -r.game_score) for r in ranked]
    assert keys == sorted(keys)
    assert all(a.rank == b.rank for a, b, ka, kb in zip(ranked, ranked[1:], keys, keys[1:]) if ka == kb)


def _play_round(event: Swiss, rng: random.Random, withdraw_p: float) -> list[tuple[int, int, list[int], list[int]]]:
    pairing = event.pair_next()
    out = []
    tables = list(pairing.tables)
    rng.shuffle(tables)
    for table in tables:
        scores = [rng.randrange(6) for _ in table.players]
        placed = places([(s,) for s in scores], {s for s in range(len(scores)) if rng.random() < 0.05})
        assert event.record(pairing.round, table.number, placed, scores)
        assert not event.record(pairing.round, table.number, placed, scores)
        out.append((pairing.round, table.number, placed, scores))
    for player in event.tally.active():
        if rng.random() < withdraw_p and len(event.tally.active()) > 2:
            event.withdraw(player)
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_no_rematch_while_the_field_is_large_enough(seats: int, seed: int) -> None:
    """With at least seats * (rounds * (seats - 1) + 1) players, rematches are always avoidable."""
    rounds = 4
    rng = random.Random(seed)
    event = Swiss(SwissSettings(seats=seats, rounds=rounds))
    for i in range(seats * (rounds * (seats - 1) + 1)):
        event.join(f"p{i}", seed=rng.random())
    while not event.finished():
        met = {p: event.tally.met(p) for p in event.tally.records}
        pairing = event.pair_next()
        assert repeats([t.players for t in pairing.tables], met) == 0
        for table in pairing.tables:
            scores = [rng.randrange(6) for _ in table.players]
            event.record(pairing.round, table.number, places([(s,) for s in scores]), scores)
