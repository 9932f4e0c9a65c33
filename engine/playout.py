"""Random playouts: the smallest complete player, used by tests, benchmarks and bots."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.core import Action, Event, State


def random_step(state: State, rng: random.Random) -> tuple[int, Action, list[Event]]:
    """One uniformly random decision by one uniformly chosen seat that must act."""
    seats = state.to_act()
    seat = seats[0] if len(seats) == 1 else seats[rng.randrange(len(seats))]
    actions = state.legal_actions(seat)
    action = actions[rng.randrange(len(actions))]
    return seat, action, state.apply(seat, action)


def play_random(
    state: State,
    rng: random.Random,
    max_steps: int | None = None,
    on_step: Callable[[State, int, Action, list[Event]], None] | None = None,
) -> int:
    """Play random decisions until the game ends (or `max_steps`); return the step count."""
    limit = state.game.max_game_length if max_steps is None else max_steps
    steps = 0
    while not state.is_over() and steps < limit:
        seat, action, events = random_step(state, rng)
        steps += 1
        if on_step is not None:
            on_step(state, seat, action, events)
    return steps
