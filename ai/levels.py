"""The bot levels, by the names the REST contract uses.

| level | what it is | default budget |
|---|---|---|
| `random` | uniformly random legal action | none |
| `greedy` | the game's heuristic rule (`ai/heuristics/<game>.py`) | none |
| `mcts-easy` | ISMCTS | 0.1 s, at most 200 iterations |
| `mcts-normal` | ISMCTS | 1.0 s, at most 20,000 iterations |
| `mcts-hard` | ISMCTS | 3.0 s, at most 100,000 iterations |

A game's heuristic may lower the default iteration caps (`max_search_iterations`; OpenSky: 1,000, so there
`mcts-normal` and `mcts-hard` stop at 1,000 iterations and `mcts-easy` keeps its 200).
"""

from __future__ import annotations

from collections.abc import Callable

from ai.bot import Bot, Budget
from ai.greedy import GreedyBot
from ai.ismcts import ISMCTSBot, SearchConfig
from ai.random_bot import RandomBot

#: Every search level values its cut-off leaves with the game's fitted win model (`ai.learned`): against
#: three greedy bots at 1,000 iterations it lifted 4-player Aeroplanes from 26% to 62% of the same 24 games
#: and 4-player Blue Skies from 28% to 39% of 32 (bench/RESULTS.md, "A fitted evaluation").
SEARCH: dict[str, SearchConfig] = {
    "mcts-easy": SearchConfig(Budget(seconds=0.1, iterations=200), rollout_depth=20, evaluation="learned"),
    "mcts-normal": SearchConfig(Budget(seconds=1.0, iterations=20_000), rollout_depth=30, evaluation="learned"),
    "mcts-hard": SearchConfig(Budget(seconds=3.0, iterations=100_000), rollout_depth=40, evaluation="learned"),
}

_FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    **{name: (lambda name=name: ISMCTSBot(name, SEARCH[name])) for name in SEARCH},
}


def levels() -> list[str]:
    """Level names, weakest first."""
    return list(_FACTORIES)


def make_bot(level: str) -> Bot:
    """A fresh bot of `level`; ValueError naming the known levels otherwise."""
    factory = _FACTORIES.get(level) if isinstance(level, str) else None
    if factory is None:
        raise ValueError(f"unknown bot level {level!r}; known levels: {', '.join(_FACTORIES)}")
    return factory()


def default_budget(level: str) -> Budget | None:
    """The think limit a level uses when given none (None for non-searching levels)."""
    make_bot(level)
    config = SEARCH.get(level)
    return config.budget if config else None


#: The level whose budget is the floor of every shrunk budget (services/bot_policy.py).
FLOOR_LEVEL = "mcts-easy"


def game_budget(level: str, game: str) -> Budget | None:
    """The level's default budget in `game`: its iteration cap lowered to the game's `max_search_iterations`
    (what the level's bot uses when given no budget; None for non-searching levels)."""
    budget = default_budget(level)
    if budget is None:
        return None
    from ai.heuristics import for_game

    limit = for_game(game).max_search_iterations
    if limit is None or (budget.iterations is not None and budget.iterations <= limit):
        return budget
    return Budget(seconds=budget.seconds, iterations=limit)


def scaled_budget(level: str, game: str, scale: float) -> Budget | None:
    """`level`'s budget in `game` with its seconds and iteration cap multiplied by `scale` (at most 1), never
    below `mcts-easy`'s; None for non-searching levels, and the level's own budget when `scale` >= 1."""
    budget = game_budget(level, game)
    if budget is None or scale >= 1:
        return budget
    floor = game_budget(FLOOR_LEVEL, game) or budget
    seconds = budget.seconds
    if seconds is not None:
        seconds = max(seconds * scale, floor.seconds or 0.0, 1e-3)
    iterations = budget.iterations
    if iterations is not None:
        iterations = max(round(iterations * scale), floor.iterations or 1, 1)
        iterations = min(iterations, budget.iterations)
    if seconds is not None and budget.seconds is not None:
        seconds = min(seconds, budget.seconds)
    return Budget(seconds=seconds, iterations=iterations)
