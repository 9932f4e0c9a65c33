"""The search levels' own rule (`ai.heuristics.for_search`): OpenSky's tuned ancillary weight, kept apart from
the `greedy` level's rule."""

from __future__ import annotations

import random

import ai
import engine
from ai.heuristics import for_game, for_search
from ai.heuristics.opensky import HEURISTIC, SEARCH_HEURISTIC, SEARCH_PARAMS, RuleParams
from ai.ismcts import ISMCTSBot
from ai.levels import SEARCH
from engine.opensky.actions import AddAncillaries


def test_search_levels_use_the_tuned_rule_and_greedy_keeps_the_plain_one():
    assert for_game("opensky") is HEURISTIC and HEURISTIC.params == RuleParams()
    assert for_search("opensky") is SEARCH_HEURISTIC and SEARCH_HEURISTIC.params == SEARCH_PARAMS
    assert RuleParams() != SEARCH_PARAMS
    for game in ("aeroplanes", "blueskies"):  # no tuned rule: the search uses greedy's
        assert for_search(game) is for_game(game)


def _ancillaries(rule, fare: int) -> int:
    view = {"pricing": {"offers": [{"seat": 0, "fare": fare, "stops": 0}]}}
    actions = [AddAncillaries(k) for k in range(4)]
    return rule._ancillaries(view, 0, actions, random.Random(0)).tokens


def test_a_sole_winner_at_300_risks_two_tokens_under_the_tuned_rule():
    """OS-14.2/OS-15.8: at 300 two tokens make 500, accepted on 3 faces of 6. Greedy counts a card returned by
    a failed check at 0.3 of its fare and attaches none; the search rule counts it at 0.45 and attaches two.
    Both attach two at 200 and 250, and none at 400 or 500."""
    assert [_ancillaries(HEURISTIC, f) for f in (200, 250, 300, 400, 500)] == [2, 2, 0, 0, 0]
    assert [_ancillaries(SEARCH_HEURISTIC, f) for f in (200, 250, 300, 400, 500)] == [2, 2, 2, 0, 0]


def test_search_levels_leave_ancillaries_to_the_tuned_rule_without_a_search():
    """OS-14: an ancillary decision of a search level is the search rule's, made with no iterations."""
    assert "add_ancillaries" in for_search("opensky").rule_kinds
    bot = ISMCTSBot("mcts-easy", SEARCH["mcts-easy"])
    greedy = ai.make_bot("greedy")
    seen = 0
    for seed in range(40):
        state = engine.get("opensky").new(2, seed)
        rng = random.Random(seed)
        while not state.is_over() and seen < 3:
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            if legal[-1].TYPE == "add_ancillaries" and len(legal) > 1:
                chosen = bot.choose(state, seat, random.Random(9), ai.Budget(iterations=50))
                sample = state.determinize(seat, random.Random(9))
                assert chosen == SEARCH_HEURISTIC.choose(sample, seat, legal, random.Random(9))
                assert bot.stats.iterations == 0
                seen += 1
            state.apply(seat, greedy.choose(state, seat, rng))
        if seen >= 3:
            break
    assert seen == 3
