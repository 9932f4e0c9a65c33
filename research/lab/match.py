"""Play one full game between bots: the loop shared by tournaments, tests and benchmarks."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import engine
from ai.bot import Bot, Budget
from ai.levels import make_bot
from engine.core import Game


@dataclass(slots=True)
class MatchResult:
    """Outcome of one game; per-seat lists are indexed by seat."""

    levels: list[str]
    scores: list[int]
    winners: list[int]
    decisions: list[int] = field(default_factory=list)
    think_seconds: list[float] = field(default_factory=list)
    iterations: list[int] = field(default_factory=list)


def play_match(
    game: str | Game,
    levels: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
    budget: Budget | None = None,
    bots: list[Bot] | None = None,
) -> MatchResult:
    """Seat i is played by a bot of `levels[i]`; the game and every bot are seeded from `seed`.

    `budget` overrides every searching bot's think limit (None: each level's default). `bots`, when
    given, plays the seats instead of bots made from `levels` (which then only label the result): for
    comparing bots that no level name stands for, such as other search settings.
    """
    game_obj = engine.get(game) if isinstance(game, str) else game
    players = len(levels)
    state = game_obj.new(players, seed, options)
    master = random.Random(seed * 7919 + 17)
    if bots is None:
        bots = [make_bot(level, game_obj.name) for level in levels]
    elif len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} seats")
    rngs = [random.Random(master.getrandbits(64)) for _ in levels]
    result = MatchResult(
        list(levels), [], [], decisions=[0] * players, think_seconds=[0.0] * players, iterations=[0] * players
    )
    steps = 0
    while not state.is_over():
        if steps > game_obj.max_game_length:
            raise RuntimeError(f"{game_obj.name} did not end within {game_obj.max_game_length} decisions")
        for seat in state.to_act():
            if not state.legal_actions(seat):  # an earlier seat's decision this step changed the situation
                continue
            start = time.perf_counter()
            action = bots[seat].choose(state, seat, rngs[seat], budget)
            result.think_seconds[seat] += time.perf_counter() - start
            result.decisions[seat] += 1
            result.iterations[seat] += bots[seat].stats.iterations
            state.apply(seat, action)
            steps += 1
    result.scores = state.scores()
    result.winners = state.winners()
    return result
