"""OpenSky's opt-in sealed-bid solver (`RuleParams.bid_solver = "regret"`): regret matching on the simultaneous bid
game of a contested 2-player market (OS-10/11). The default leaves the rule's bids as they were, the solver finds
the mixed equilibrium of small games, and a level playing it makes only legal moves."""

from __future__ import annotations

import random

import pytest

import engine
from ai.games import fast_rule_params
from ai.heuristics import with_params
from ai.heuristics.opensky import RuleParams, _undominated, bid_game, regret_bid_strategy

FAST = fast_rule_params("opensky", 2)


def _negated(matrix: list[list[float]]) -> list[list[float]]:
    return [[-v for v in row] for row in matrix]


def _bids(game_seed: int, players: int, chooser, compare) -> int:
    """Play a seeded game where `chooser` moves every seat; at each bid, assert that `compare` bids the same fare
    with the same rng. Returns the number of bids compared."""
    state = engine.get("opensky").new(players, game_seed)
    master = random.Random(game_seed)
    compared = 0
    while not state.is_over():
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if not legal:
                continue
            seed = master.getrandbits(64)
            action = chooser.choose(state, seat, legal, random.Random(seed))
            if legal[-1].TYPE == "bid":
                assert compare.choose(state, seat, legal, random.Random(seed)) == action
                compared += 1
            state.apply(seat, action)
    return compared


@pytest.mark.parametrize("base", [{}, FAST], ids=["greedy", "fast"])
def test_the_default_bids_as_the_rule_did(base):
    assert RuleParams().bid_solver == "rule"
    default = with_params("opensky", dict(base))
    rule = with_params("opensky", {**base, "bid_solver": "rule"})
    assert sum(_bids(seed, 2, default, rule) for seed in (11, 12, 13)) > 10


def test_with_more_than_one_rival_the_regret_solver_bids_by_the_rule():
    rule = with_params("opensky", dict(FAST))
    regret = with_params("opensky", {**FAST, "bid_solver": "regret"})
    assert _bids(21, 3, rule, regret) > 0


def test_matching_pennies_is_solved_half_and_half():
    pennies = [[1.0, -1.0], [-1.0, 1.0]]
    row, col = regret_bid_strategy(pennies, _negated(pennies), 300)
    assert row == pytest.approx([0.5, 0.5], abs=0.05)
    assert col == pytest.approx([0.5, 0.5], abs=0.05)


def test_a_skewed_two_by_two_game_converges_to_its_mixed_equilibrium():
    # row mixes 3/7 on its first strategy, the column 2/7 on its first
    game = [[3.0, -1.0], [-2.0, 1.0]]
    row, col = regret_bid_strategy(game, _negated(game), 300)
    assert row == pytest.approx([3 / 7, 4 / 7], abs=0.05)
    assert col == pytest.approx([2 / 7, 5 / 7], abs=0.05)


def test_a_three_by_three_game_converges_to_its_mixed_equilibrium():
    # rock-paper-scissors with a double prize for rock over scissors: (1/4, 5/12, 1/3) for the row player
    game = [[0.0, -1.0, 2.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]
    row, col = regret_bid_strategy(game, _negated(game), 500)
    assert row == pytest.approx([1 / 4, 5 / 12, 1 / 3], abs=0.05)
    assert col == pytest.approx([1 / 3, 5 / 12, 1 / 4], abs=0.05)


def test_strictly_dominated_strategies_are_never_played():
    # the row's second strategy is worse than its first against everything; then the column's first is too
    game = [[2.0, 1.0], [1.0, 0.0]]
    assert _undominated(game, _negated(game)) == ([0], [1])
    row, col = regret_bid_strategy(game, _negated(game), 300)
    assert row == [1.0, 0.0] and col == [0.0, 1.0]


def test_the_bid_game_values_both_seats_alike():
    view = {
        "month": 3,
        "players": [
            {"seat": 0, "hand": [200, 250, 300, 400, 500], "ancillary_unused": 3},
            {"seat": 1, "hand": [200, 200, 300, 500], "ancillary_unused": 3},
        ],
    }
    params = RuleParams(bid_solver="regret", bid_later=0.3)
    mine, theirs = bid_game(view, (0, 0, [200, 250, 300, 400, 500]), (1, 0, [200, 300, 500]), params)
    assert theirs == _negated(mine)  # bid_rival 1: the zero-sum game of the score difference
    flipped, _ = bid_game(view, (1, 0, [200, 300, 500]), (0, 0, [200, 250, 300, 400, 500]), params)
    assert flipped == [list(col) for col in zip(*theirs)]  # the rival's matrix is the seat's own, seen from there
    assert mine[0][0] == 0.0  # both bid 200: a tie, each keeps 200 less the same later worth


@pytest.mark.parametrize("mix", [0.0, 80.0])
@pytest.mark.parametrize("seed", [31, 32, 33])
def test_the_regret_level_plays_only_legal_moves(seed, mix):
    regret = with_params("opensky", {**FAST, "bid_solver": "regret", "bid_regret_mix": mix})
    greedy = with_params("opensky", {})
    state = engine.get("opensky").new(2, seed)
    rng = random.Random(seed)
    bots = [regret, greedy] if seed % 2 else [regret, regret]
    bids = 0
    while not state.is_over():
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if not legal:
                continue
            action = bots[seat].choose(state, seat, legal, rng)
            assert action in legal
            bids += action.TYPE == "bid"
            state.apply(seat, action)
    assert bids > 0
