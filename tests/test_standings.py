"""A game's result, from one source: the engine ranks the seats by its rules (score, then the rules' tie-breaks:
`State.rank_keys`), and the platform's rule (services/common/standings.py) puts the forfeited seats (resigned or
abandoned) last, never among the winners. Every read shows what these functions give (the game view, streams,
history, archive, ratings, the web client); the engines' own views and events carry no result of their own.

Unit and property tests of the pure functions, and per title over games played to their end."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.core import State, places_of
from engine.playout import play_random
from services.common import standings

#: each title's end-of-game rule: who wins, and its tie-break (docs/rules/*.md)
END_RULES = {"aeroplanes": "AE-15.2", "blueskies": "BS-9.4", "opensky": "OS-19.4"}


def test_forfeited_seats_rank_last_and_share_the_last_place() -> None:
    keys = [(10,), (5,), (7,)]
    assert standings.places(keys, ()) == [1, 3, 2]
    assert standings.places(keys, {0}) == [3, 2, 1]  # the zombie won seat 0's game: still last
    assert standings.places([(10,), (5,), (7,), (1,)], {0, 2}) == [3, 1, 3, 2]
    assert standings.places([(4,), (4,)], {1}) == [1, 2]


def test_a_game_ends_by_forfeit_once_at_most_one_seat_is_left() -> None:
    assert not standings.ends_by_forfeit(2, [])
    assert standings.ends_by_forfeit(2, [0])
    assert not standings.ends_by_forfeit(3, [1])  # two players left: the seat is played out
    assert standings.ends_by_forfeit(3, [0, 2])
    assert standings.ends_by_forfeit(2, [0, 1])


def test_winners_of_a_game_ended_by_forfeit_and_of_one_played_out() -> None:
    assert standings.winners([(3,), (9,)], [1]) == [0]  # the seat left wins, whatever the score
    assert standings.winners([(3,), (9,)], [0, 1]) == []  # nobody is left: nobody wins
    assert standings.winners([(10,), (5,), (7,)], [0]) == [2]  # the best unforfeited seat
    assert standings.winners([(5,), (7,), (7,)], []) == [1, 2]  # a shared win stays shared
    assert standings.winners([(10,), (7,), (7,)], [0]) == [1, 2]  # tied for first among those left


def test_the_rules_tie_break_decides_among_the_seats_left_when_the_engines_winner_forfeited() -> None:
    """AE-15.2 / BS-9.4: tied on score, the richer seat (money, income) wins; a forfeited winner leaves that
    tie-break to decide among the others, and a full tie still shares the win."""
    keys = [(30, 0), (25, 4), (25, 9)]  # (VP, money): seat 0 won the game and resigned
    assert standings.winners(keys, {0}) == [2]
    assert standings.places(keys, {0}) == [3, 2, 1]
    assert standings.winners([(30, 0), (25, 4), (25, 4)], {0}) == [1, 2]


def test_an_aborted_game_shows_no_result_and_only_a_finished_one_shows_winners_and_places() -> None:
    assert standings.shown_scores("aborted", [0, 0]) is None
    assert standings.shown_scores("active", [3, 1]) == [3, 1]
    assert standings.shown_winners("finished", [1]) == [1]
    assert standings.shown_winners("active", []) is None
    assert standings.shown_winners("aborted", []) is None
    assert standings.shown_places("finished", [2, 1]) == [2, 1]
    assert standings.shown_places("active", []) is None
    assert standings.shown_places("aborted", []) is None


@st.composite
def results(draw) -> tuple[list[tuple[int, int]], set[int]]:
    players = draw(st.integers(2, 5))
    keys = draw(st.lists(st.tuples(st.integers(-50, 500), st.integers(0, 3)), min_size=players, max_size=players))
    forfeited = draw(st.sets(st.integers(0, players - 1), max_size=players))
    return keys, forfeited


@given(results())
def test_no_forfeited_seat_ever_wins_or_ranks_above_a_seat_that_stayed(result) -> None:
    keys, forfeited = result
    placed = standings.places(keys, forfeited)
    stayed = [s for s in range(len(keys)) if s not in forfeited]
    assert all(placed[f] == len(stayed) + 1 for f in forfeited)  # last, tied among themselves
    assert all(placed[f] > placed[s] for f in forfeited for s in stayed)
    for a, b in itertools.product(stayed, stayed):  # among the seats left, the rules' order, ties shared
        assert (placed[a] < placed[b]) == (keys[a] > keys[b])
    won = standings.winners(keys, forfeited)
    assert not set(won) & forfeited
    assert bool(won) == bool(stayed)  # someone who stayed always wins a finished game
    assert won == [s for s in stayed if placed[s] == 1]
    if not forfeited:
        assert placed == places_of(keys)  # without forfeits the engine's standing is the result


def _played_out(name: str, players: int, seed: int) -> tuple[State, list[dict]]:
    """A game of `name` played to its end by random decisions, and every event it made (as JSON)."""
    state = engine.get(name).new(players, seed)
    events: list[dict] = []
    play_random(state, random.Random(seed), on_step=lambda _s, _seat, _a, evs: events.extend(e.to_json() for e in evs))
    assert state.is_over()
    return state, events


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(END_RULES))
def test_in_every_title_a_forfeited_seat_never_wins_and_ranks_last(name: str, seed: int) -> None:
    """AE-15.2, BS-9.4, OS-19.4 decide the order of a game played to its end; whichever seats forfeited, they are
    never among the winners and rank below every seat that stayed, and the others keep the rules' order."""
    state, _events = _played_out(name, 3, seed)
    keys = state.rank_keys()
    assert [s for s, p in enumerate(places_of(keys)) if p == 1] == state.winners()  # the engine's end rule
    assert standings.winners(keys, ()) == state.winners()  # without forfeits: the engine's winners
    for n in (1, 2, 3):
        for forfeited in map(set, itertools.combinations(range(3), n)):
            placed = standings.places(keys, forfeited)
            won = standings.winners(keys, forfeited)
            assert not set(won) & forfeited, (name, forfeited, won)
            assert all(placed[f] == 4 - n for f in forfeited), (name, forfeited, placed)
            left = [s for s in range(3) if s not in forfeited]
            assert won == [s for s in left if placed[s] == 1] and bool(won) == bool(left)


@pytest.mark.parametrize("name", sorted(END_RULES))
def test_no_title_shows_a_result_of_its_own_that_ignores_the_forfeits(name: str) -> None:
    """The engine does not know who resigned: its views and events name no winners (the platform's result does),
    or a resigned top scorer would be shown as the winner."""
    state, events = _played_out(name, 3, 7)
    for seat in (None, 0, 1, 2):
        view = state.view(seat)
        assert "winners" not in view, (name, seat)
        assert "winners" not in (view.get("final") or {}), (name, seat)
    assert not [e for e in events if e["type"] == "game_over" and "winners" in e], name


def test_aeroplanes_ranks_by_vp_then_money() -> None:
    """AE-15.2: most VP wins; tied on VP, the most money; tied on both, the victory is shared."""
    state, _ = _played_out("aeroplanes", 3, 4)
    state.vp, state.money = [30, 25, 25], [0, 4, 9]  # type: ignore[attr-defined]
    assert state.rank_keys() == [(30, 0), (25, 4), (25, 9)]
    assert state.winners() == [0]
    assert standings.winners(state.rank_keys(), {0}) == [2]
    state.money = [0, 9, 9]  # type: ignore[attr-defined]
    assert standings.winners(state.rank_keys(), {0}) == [1, 2]


def test_blueskies_ranks_by_score_then_income() -> None:
    """BS-9.4: the highest score wins; tied, the higher income; still tied, the victory is shared."""
    state, _ = _played_out("blueskies", 3, 4)
    state.points, state.income = [60, 50, 50], [1, 7, 3]  # type: ignore[attr-defined]
    assert state.rank_keys() == [(60, 1), (50, 7), (50, 3)]
    assert state.winners() == [0]
    assert standings.places(state.rank_keys(), {0}) == [3, 1, 2]
    assert standings.winners(state.rank_keys(), {0}) == [1]


def test_opensky_ranks_by_score_alone() -> None:
    """OS-19.4: the highest total wins; tied totals share the victory, there is no tie-break."""
    state, _ = _played_out("opensky", 3, 4)
    assert state.rank_keys() == [(score,) for score in state.scores()]
