"""Tree reuse (`SearchConfig.reuse_tree`): a search keeps its chosen action's subtree for the same seat's
next decision only when that decision's view is the one it expected, so the kept statistics describe the
same information set and reusing them stays honest."""

from __future__ import annotations

import dataclasses
import json
import random

import engine
from ai.bot import Budget
from ai.greedy import GreedyBot
from ai.ismcts import ISMCTSBot
from ai.levels import SEARCH
from engine.blueskies.state import BUY

BUDGET = Budget(iterations=300)


def _purchase_positions(count: int) -> list:
    """Blue Skies round purchases (BS-5, BS-8.1) where the seat to act can still buy, from greedy games."""
    out = []
    for seed in range(1, 40):
        state = engine.get("blueskies").new(4, seed)
        greedy, rng = GreedyBot(), random.Random(seed)
        while not state.is_over() and len(out) < count:
            seat = state.to_act()[0]
            if state.phase == BUY and len(state.legal_actions(seat)) >= 4:
                out.append(state.clone())
                break
            state.apply(seat, greedy.choose(state, seat, rng))
        if len(out) == count:
            return out
    raise AssertionError("too few purchase positions")


def _bot(**changes) -> ISMCTSBot:
    return ISMCTSBot("mcts-normal", dataclasses.replace(SEARCH["mcts-normal"], **changes))


def _next_own_decision(state, seat, action):
    """The position after `action` if the same seat then decides between several actions, else None."""
    after = state.clone()
    after.apply(seat, action)
    if after.to_act() == [seat] and len(after.legal_actions(seat)) > 1:
        return after
    return None


def test_the_next_purchase_decision_starts_from_the_kept_subtree():
    """BS-5.1/BS-5.8: buying a gate reveals nothing, so the seat's next purchase decision is the kept child."""
    reused = 0
    for state in _purchase_positions(4):
        seat = state.to_act()[0]
        bot = _bot()
        action = bot.choose(state, seat, random.Random(1), BUDGET)
        assert "reused_visits" not in bot.stats.extra
        after = _next_own_decision(state, seat, action)
        if after is None:
            continue
        bot.choose(after, seat, random.Random(2), BUDGET)
        assert bot.stats.extra["reused_visits"] > 0
        reused += 1
    assert reused, "no purchase was followed by another decision of the same seat"


def test_a_view_other_than_the_expected_one_gets_a_fresh_tree():
    state = _purchase_positions(1)[0]
    seat = state.to_act()[0]
    bot = _bot()
    bot.choose(state, seat, random.Random(1), BUDGET)
    bot.choose(state, seat, random.Random(1), BUDGET)  # the same position again, not the one after the move
    assert "reused_visits" not in bot.stats.extra


def test_reuse_can_be_switched_off():
    for state in _purchase_positions(3):
        seat = state.to_act()[0]
        bot = _bot(reuse_tree=False)
        action = bot.choose(state, seat, random.Random(1), BUDGET)
        after = _next_own_decision(state, seat, action)
        if after is not None:
            bot.choose(after, seat, random.Random(2), BUDGET)
            assert "reused_visits" not in bot.stats.extra


def test_a_reused_tree_decides_the_same_whatever_the_hidden_truth():
    """Honesty with reuse: two bots given the same views (the truth, and a determinization of it for the
    deciding seat, whose other hands differ) keep the same subtree and make the same next decision."""
    compared = 0
    for state in _purchase_positions(4):
        seat = state.to_act()[0]
        other = state.determinize(seat, random.Random(99))
        assert other.hands != state.hands
        first, second = _bot(), _bot()
        a = first.choose(state, seat, random.Random(5), BUDGET)
        b = second.choose(other, seat, random.Random(5), BUDGET)
        assert a == b
        after_a, after_b = _next_own_decision(state, seat, a), _next_own_decision(other, seat, b)
        if after_a is None:
            continue
        a2 = first.choose(after_a, seat, random.Random(6), BUDGET)
        b2 = second.choose(after_b, seat, random.Random(6), BUDGET)
        assert first.stats.extra["reused_visits"] == second.stats.extra["reused_visits"] > 0
        assert json.dumps(a2.to_json()) == json.dumps(b2.to_json())
        compared += 1
    assert compared
