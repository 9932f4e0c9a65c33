"""Level `random`: a uniformly random legal action; the baseline every bot must beat."""

from __future__ import annotations

import random

from ai.bot import Bot, Budget
from engine.core import Action, State


class RandomBot(Bot):
    level = "random"

    def _choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        return actions[rng.randrange(len(actions))]
