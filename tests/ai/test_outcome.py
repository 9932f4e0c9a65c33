"""What a finished or estimated game is worth to each seat (`ai.outcome`): win share plus rank share."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ai.outcome import WIN_WEIGHT, estimated_rewards, terminal_rewards


@dataclass
class Finished:
    """A finished game's result, as `State.scores` and `State.winners` report it."""

    points: list[int]

    def scores(self) -> list[int]:
        return self.points

    def winners(self) -> list[int]:
        top = max(self.points)
        return [i for i, p in enumerate(self.points) if p == top]


def test_a_four_player_result_mixes_the_win_share_and_the_rank_share():
    """Winner: the whole win share and every rank point; second place keeps 2 of 3 rank points."""
    rewards = terminal_rewards(Finished([30, 20, 10, 0]))
    assert rewards[0] == pytest.approx(1.0)
    assert rewards[1] == pytest.approx((1 - WIN_WEIGHT) * 2 / 3)
    assert rewards[3] == pytest.approx(0.0)


def test_win_weight_one_values_only_wins_and_shares_a_tied_victory():
    """With `win_weight=1` second place is worth nothing, and tied winners split the win."""
    assert terminal_rewards(Finished([30, 20, 10, 0]), 1.0) == [1.0, 0.0, 0.0, 0.0]
    assert terminal_rewards(Finished([30, 30, 10, 0]), 1.0) == [0.5, 0.5, 0.0, 0.0]


@given(
    a=st.floats(-1000, 1000), b=st.floats(-1000, 1000), scale=st.floats(1, 500), weight=st.floats(0, 1)
)
def test_in_two_player_games_the_win_weight_changes_nothing(a, b, scale, weight):
    """Two seats: the softmax win chance is the pairwise logistic rank chance, so any mix gives the same."""
    default = estimated_rewards([a, b], scale)
    mixed = estimated_rewards([a, b], scale, weight)
    assert all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(default, mixed, strict=True))
    assert math.isclose(sum(mixed), 1.0, abs_tol=1e-9)


def test_win_weight_one_estimates_only_win_chances():
    """A projection's win-only value is the softmax chance; the default adds the rank chances."""
    projected = [100.0, 90.0, 50.0, 0.0]
    only_wins = estimated_rewards(projected, 20.0, 1.0)
    assert sum(only_wins) == pytest.approx(1.0)
    default = estimated_rewards(projected, 20.0)
    assert default[1] > only_wins[1]  # second place is worth more when rank counts
