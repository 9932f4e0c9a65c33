"""The one bot interface every level implements.

A bot is handed the true state of a game, but it is honest by construction: it
reads that state only through `state.view(seat)`, `state.legal_actions(seat)`
for its own seat, and `state.determinize(seat, rng)`, which resamples whatever
its seat cannot see. Everything else it does happens on determinizations.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from engine.core import Action, State


@dataclass(frozen=True, slots=True)
class Budget:
    """How long a bot may think: wall-clock seconds and/or an iteration cap.

    Either may be None (no limit of that kind); a bot that needs a bound and
    gets neither uses its level's defaults. Iteration-only budgets make a bot
    fully reproducible from its rng, which tests rely on.
    """

    seconds: float | None = None
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError("budget seconds must be positive")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("budget iterations must be at least 1")


@dataclass(slots=True)
class DecisionStats:
    """What the last decision cost, for tournaments and worker metrics."""

    seconds: float = 0.0
    iterations: int = 0
    extra: dict[str, float] = field(default_factory=dict)


class Bot(ABC):
    """Chooses one legal action for one seat.

    `choose` never mutates `state`. `level` is the registry name the bot was
    made from; `stats` describes the most recent decision.
    """

    level: str = ""

    def __init__(self) -> None:
        self.stats = DecisionStats()

    def choose(self, state: State, seat: int, rng: random.Random, budget: Budget | None = None) -> Action:
        """A legal action for `seat`, which must be one of the seats to act."""
        actions = state.legal_actions(seat)
        if not actions:
            raise ValueError(f"seat {seat} has nothing to decide now")
        start = time.perf_counter()
        self.stats = DecisionStats()
        if len(actions) == 1:
            action = actions[0]
        else:
            action = self._choose(state, seat, actions, rng, budget)
        self.stats.seconds = time.perf_counter() - start
        return action

    @abstractmethod
    def _choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        """Pick one of `actions` (at least two) using only honest access to `state`."""
