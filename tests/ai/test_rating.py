"""research.lab.rating: the ladder's Bradley-Terry ratings (the audit in docs/decisions/learned-bots.md: openskill
ordinals moved with game order and rose with games played; a maximum-likelihood fit does neither)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from research.lab.match import MatchResult
from research.lab.rating import bradley_terry, comparisons


def duel(winner: str, loser: str, first: bool = True) -> MatchResult:
    levels = [winner, loser] if first else [loser, winner]
    return MatchResult(levels=levels, scores=[2, 1] if first else [1, 2], winners=[0] if first else [1])


def games(a: str, b: str, a_wins: int, b_wins: int) -> list[MatchResult]:
    return [duel(a, b, i % 2 == 0) for i in range(a_wins)] + [duel(b, a, i % 2 == 0) for i in range(b_wins)]


def test_a_three_to_one_record_is_about_191_elo_with_an_interval_that_holds_it():
    ratings = bradley_terry(games("strong", "greedy", 300, 100), anchor="greedy")
    expected = 400 * math.log10(3)
    assert ratings["greedy"].elo == 0
    assert abs(ratings["strong"].elo - expected) < 2  # one virtual draw barely moves 400 games
    assert ratings["strong"].low < expected < ratings["strong"].high
    assert ratings["strong"].high - ratings["strong"].low < 2 * 1.96 * 400 / math.log(10) * math.sqrt(1 / 75 + 1e-9)


def test_more_games_at_even_odds_do_not_raise_a_level():
    few = bradley_terry(games("a", "greedy", 10, 10), anchor="greedy")["a"]
    many = bradley_terry(games("a", "greedy", 500, 500), anchor="greedy")["a"]
    assert abs(few.elo) < 1e-6 and abs(many.elo) < 1e-6
    assert many.high - many.low < few.high - few.low


def test_a_clean_sweep_stays_finite_and_ratings_chain_through_a_common_opponent():
    ratings = bradley_terry(games("greedy", "random", 40, 0) + games("search", "greedy", 28, 12), anchor="greedy")
    assert math.isfinite(ratings["random"].elo) and ratings["random"].elo < -400
    assert ratings["random"].elo < 0 < ratings["search"].elo


def test_seats_of_one_level_are_not_compared_and_ties_count_half():
    four = MatchResult(levels=["a", "b", "a", "b"], scores=[3, 3, 1, 0], winners=[0, 1])
    pairs = comparisons([four])
    assert len(pairs) == 4 and ("a", "b", 0.5) in pairs  # seats 0 and 1 tie on winners and score
    assert sum(s for a, _, s in pairs if a == "a") == 0.5 + 1 + 0 + 1  # (0,1) tie, (0,3), (2,1) lost, (2,3)


def test_an_anchor_that_never_played_is_refused():
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry(games("a", "b", 3, 1), anchor="greedy")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_the_fit_does_not_depend_on_the_order_of_the_games(w1, l1, w2, l2, seed):
    results = games("x", "greedy", w1, l1) + games("y", "x", w2, l2) + games("y", "greedy", 1, 1)
    shuffled = results[:]
    random.Random(seed).shuffle(shuffled)
    one, other = bradley_terry(results, "greedy"), bradley_terry(shuffled, "greedy")
    for name in one:
        assert one[name].elo == pytest.approx(other[name].elo, abs=1e-6)
