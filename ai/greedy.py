"""Level `greedy`: the game's own heuristic decision rule on one determinization.

The rules live in `ai/heuristics/<game>.py`; this only makes the decision
honest (the rule sees `state.determinize(seat, rng)`, never the truth).
"""

from __future__ import annotations

import random

from ai.bot import Bot, Budget
from ai.heuristics import Heuristic, for_game
from engine.core import Action, State


class GreedyBot(Bot):
    """`heuristic`, when given, replaces the game's own rule (rule variants in `research.lab.rule_variants`, the `fast`
    level's measured rule where no model is shipped: its profile's `rule_params` (`ai/games/<game>.py`))."""

    level = "greedy"

    def __init__(self, heuristic: Heuristic | None = None) -> None:
        super().__init__()
        self.heuristic = heuristic

    def _choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        sample = state.determinize(seat, rng)
        rule = self.heuristic or for_game(state.game.name)
        action = rule.choose(sample, seat, actions, rng)
        if action not in actions:
            raise RuntimeError(f"heuristic of {state.game.name} chose an illegal action {action!r}")
        return action
