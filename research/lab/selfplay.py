"""Positions along greedy self-play games: the sample the bench's analysis tools study."""

from __future__ import annotations

import random
from collections.abc import Iterator

import engine
from ai.greedy import GreedyBot
from engine.core import Action, State


def greedy_positions(game: str, players: int, seed: int, every: int) -> Iterator[tuple[State, int, list[Action], int]]:
    """Every `every`-th decision of greedy self-play game `seed` where the deciding seat has a choice:
    (state, seat, legal actions, decision number). The caller must leave the state as it finds it;
    the game goes on by the greedy level's choice once the caller is done with the position."""
    state = engine.get(game).new(players, seed)
    rng = random.Random(seed)
    greedy = GreedyBot()
    step = 0
    while not state.is_over():
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if not legal:
                continue
            if len(legal) > 1 and step % every == 0:
                yield state, seat, legal, step
            state.apply(seat, greedy.choose(state, seat, rng))
            step += 1
