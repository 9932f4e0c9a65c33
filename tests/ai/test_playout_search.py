"""The playout search (`ISMCTSBot._playout_search`): decision kinds settled by paired greedy playouts."""

from __future__ import annotations

import dataclasses
import random

import pytest

import ai
import engine
from ai.heuristics import Heuristic, for_game
from ai.ismcts import ISMCTSBot
from ai.levels import SEARCH
from engine.core import Action
from tests.ai.toygame import TOY


class LowestCard(Heuristic):
    """A deliberately poor rule for the toy game: always bid the lowest card."""

    game = TOY.name
    playout_kinds = frozenset({"bid"})

    def choose(self, state, seat, actions, rng) -> Action:
        return min(actions, key=lambda a: a.card)


@pytest.fixture
def lowest_card_rule(monkeypatch):
    import ai.heuristics as heuristics

    monkeypatch.setitem(heuristics._CACHE, TOY.name, LowestCard())


def _last_two_rounds():
    """Toy position: seat 0 holds 2 and 8, seat 1 holds 3 and 4, nothing left to deal, a prize of 6 now.
    Bidding 8 wins this prize and most likely the game; the rule's 2 gives it to seat 1."""
    state = TOY.new(2, 1)
    state.deck = []
    state.hands = [[2, 8], [3, 4]]
    state.points = [0, 0]
    state.prize = 6
    return state


def test_playouts_overrule_a_poor_rule_when_the_gain_is_clear(lowest_card_rule):
    state = _last_two_rounds()
    bot = ISMCTSBot("probe", dataclasses.replace(SEARCH["mcts-easy"], max_playouts=40))
    choice = bot.choose(state, 0, random.Random(1), ai.Budget(iterations=1000))
    assert choice.card == 8
    assert bot.stats.iterations == 40  # 20 rounds of both candidates, within `max_playouts`


def test_the_rules_choice_stands_without_a_significant_gain(lowest_card_rule):
    """`playout_confidence`: another candidate must beat the rule's by that many standard errors."""
    state = _last_two_rounds()
    cautious = ISMCTSBot("probe", dataclasses.replace(SEARCH["mcts-easy"], playout_confidence=float("inf")))
    assert cautious.choose(state, 0, random.Random(1), ai.Budget(iterations=1000)).card == 2


def test_playouts_are_paired_and_capped_by_the_budget(lowest_card_rule):
    """Every round plays each candidate once from the same seed, so a budget of 7 plays 3 whole rounds."""
    state = _last_two_rounds()
    bot = ISMCTSBot("probe", SEARCH["mcts-easy"])
    bot.choose(state, 0, random.Random(1), ai.Budget(iterations=7))
    assert bot.stats.iterations == 6
    search = ISMCTSBot("probe", dataclasses.replace(SEARCH["mcts-easy"], playout_kinds=frozenset()))
    search.choose(state, 0, random.Random(1), ai.Budget(iterations=7))
    assert search.stats.iterations == 7  # the tree, not the playout search


def test_a_playout_replays_the_same_game_for_the_same_seed():
    state = engine.get("opensky").new(2, 3)
    heuristic = for_game("opensky")
    bot = ISMCTSBot("probe", SEARCH["mcts-normal"])
    seat = state.to_act()[0]
    action = state.legal_actions(seat)[0]
    first = bot._playout(state, seat, action, 12345, heuristic)
    assert bot._playout(state, seat, action, 12345, heuristic) == first
    assert state.to_act() == [seat]  # the searched state itself is untouched


def test_OS_17_opensky_ranks_every_action_with_the_rules_choice_first():
    """OS-6/OS-17: `ranked` is a permutation of the legal actions led by the greedy choice; placements
    follow by the rule's score, leases by aircraft and payment."""
    heuristic = for_game("opensky")
    state = engine.get("opensky").new(2, 8)
    rng = random.Random(8)
    seen = set()
    while not state.is_over() and len(seen) < 3:
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        kind = legal[-1].TYPE
        if len(legal) > 2 and kind in ("place_aircraft", "lease", "choose_market"):
            ranked = heuristic.ranked(state, seat, legal, random.Random(4))
            assert sorted(map(repr, ranked)) == sorted(map(repr, legal))
            assert ranked[0] == heuristic.choose(state, seat, legal, random.Random(4))
            if kind == "lease":
                rest = [(a.aircraft, sum(a.cards)) for a in ranked[1:]]
                assert rest == sorted(rest)
            else:
                score = heuristic._SCORED[kind](heuristic, heuristic._view(state, seat), seat, legal)
                values = [score(a) for a in ranked]
                assert values[0] == max(values) and values[1:] == sorted(values[1:], reverse=True)
            seen.add(kind)
        state.apply(seat, legal[0] if len(legal) == 1 else heuristic.choose(state, seat, legal, rng))
    assert seen == {"place_aircraft", "lease", "choose_market"}
