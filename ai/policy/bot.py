"""The fast level: play the model's policy (its highest-scoring legal action), numpy only.

Why argmax and no search: one feature pass over the legal actions (~1.5 ms in Blue Skies) and one small matrix
product cost a few milliseconds, far inside the issue's 20 ms a decision. It reads the state only through
`ai.policy.features` (the seat's view, one view-seeded determinization), so it is honest and deterministic: the
rng it is handed is not used at all.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np

from ai.bot import Bot, Budget
from ai.greedy import GreedyBot
from ai.policy import shipped_model
from ai.policy.features import FEATURE_VERSION, action_features
from ai.policy.model import PolicyModel, file_digest
from engine.core import Action, State

_LOADED: dict[Path, tuple[PolicyModel, str]] = {}


def load_cached(path: str | Path) -> tuple[PolicyModel, str]:
    """A model file, loaded once per process (a level's bot is made afresh for every decision), and its digest."""
    key = Path(path).resolve()
    if key not in _LOADED:
        _LOADED[key] = (PolicyModel.load(key), file_digest(key))
    return _LOADED[key]


class PolicyBot(Bot):
    """Plays `model`'s highest-scoring legal action (the first one on a tie: legal order is deterministic) in the
    model's game; in any other game it plays the greedy rule, as `ai.greedy.GreedyBot` does."""

    def __init__(self, model: PolicyModel | str | Path, level: str = "learned-policy"):
        super().__init__()
        self.level = level
        if isinstance(model, (str, Path)):
            self.model, self.digest = load_cached(model)
        else:
            self.model, self.digest = model, "in-memory"
        if self.model.meta.get("feature_version", FEATURE_VERSION) != FEATURE_VERSION:
            raise ValueError(f"model features {self.model.meta.get('feature_version')} != {FEATURE_VERSION}")
        self.game = self.model.meta.get("game", "blueskies")
        #: CPU seconds of every decision this bot made with a choice (for the latency figures).
        self.decision_cpu: list[float] = []

    def _choose(self, state: State, seat: int, actions: list[Action], rng: random.Random,
                budget: Budget | None) -> Action:
        if state.game.name != self.game:
            return GreedyBot()._choose(state, seat, actions, rng, budget)
        start = time.thread_time()
        scores = self.model.scores(action_features(state, seat, actions))
        choice = actions[int(np.argmax(scores))]
        spent = time.thread_time() - start
        self.stats.extra["cpu_seconds"] = spent
        self.decision_cpu.append(spent)
        return choice


class FastBot(Bot):
    """The `fast` level: the model `ai.policy.SHIPPED` names for the game and player count being played (loaded
    once per process), the greedy rule where none is shipped."""

    level = "fast"

    def _choose(self, state: State, seat: int, actions: list[Action], rng: random.Random,
                budget: Budget | None) -> Action:
        path = shipped_model(state.game.name, state.num_players)
        if path is None:
            return GreedyBot()._choose(state, seat, actions, rng, budget)
        policy = PolicyBot(path, level=self.level)
        action = policy._choose(state, seat, actions, rng, budget)
        self.stats.extra.update(policy.stats.extra)
        return action
