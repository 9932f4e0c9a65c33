"""The bot levels, by the names the REST contract uses.

| level | what it is | default budget |
|---|---|---|
| `random` | uniformly random legal action | none |
| `greedy` | the game's heuristic rule (`ai/heuristics/<game>.py`) | none |
| `mcts-easy` | ISMCTS | 0.1 s, at most 200 iterations |
| `fast` | the measured rule (OpenSky), a learned policy (Blue Skies), a short guided search (Aeroplanes) | none |
| `mcts-normal` | ISMCTS | 1.0 s, at most 20,000 iterations |
| `mcts-hard` | ISMCTS | 3.0 s, at most 100,000 iterations |

A game's heuristic may lower the default iteration caps (`max_search_iterations`; OpenSky: 1,000). Everything a
game does otherwise is its bot profile (`ai/games/<game>.py`, `ai.games`), with the measurements behind it: the
levels it plays as others (`same_as`: a game may offer fewer distinct strengths than there are levels, `ladder`;
today `mcts-easy` plays as `greedy` in every game, in OpenSky every search level plays as `fast`, and in Aeroplanes
and Blue Skies `mcts-hard` plays as `mcts-normal`), its own search settings (`search`: in Blue Skies and Aeroplanes
`mcts-normal` is guided by a learned policy and stops at 1,000 iterations) and what its `fast` level plays (a short
guided search in Aeroplanes, a learned model in Blue Skies, the rule with its weights measured in paired games in
OpenSky). (`mcts-easy`'s search budget stays the floor of the degradation policy's shrunk budgets, `floor_budget`.)

What a player is offered is a game's `ladder`: the levels that play as themselves there, named for players in
`ai.level_figures.LABELS` (Beginner, Casual, Strong, Expert) and rated per player count by one fit over the stored
paired ledgers (`research.lab.ladder_fit`); every other name stays accepted everywhere as an alias of the level
it plays as.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ai.bot import Bot, Budget
from ai.games import profile, profiles
from ai.greedy import GreedyBot
from ai.ismcts import ISMCTSBot, SearchConfig
from ai.random_bot import RandomBot
from ai.search_settings import SEARCH

_FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "mcts-easy": lambda: _search_bot("mcts-easy"),
    "fast": lambda: _fast_bot(),
    **{name: (lambda name=name: _search_bot(name)) for name in SEARCH if name != "mcts-easy"},
}


def _search_bot(level: str) -> Bot:
    """A search level's bot, with the settings of every game that plays the level its own way (`ai.games`)."""
    by_game = {game: entry.search[level] for game, entry in profiles().items() if level in entry.search}
    return ISMCTSBot(level, SEARCH[level], by_game)


def _fast_bot() -> Bot:
    """The `fast` level's bot, imported when first made: numpy and the model load in the workers that play it, not
    in every service that only names the levels."""
    from ai.games import fast_rule_params, fast_search_iterations, shipped_model
    from ai.policy.bot import FastBot

    return FastBot(short_search=short_search, search_iterations=fast_search_iterations,
                   rule_params=fast_rule_params, model=shipped_model)


def short_search(game: str, iterations: int) -> Bot:
    """The `fast` level's search where it searches (the profile's `fast_search`): the game's guided `mcts-normal`
    (its profile's `search`) held to `iterations` and no time limit, a fresh bot for each decision (Aeroplanes
    keeps no tree between decisions)."""
    config = dataclasses.replace(profile(game).search["mcts-normal"], budget=Budget(iterations=iterations))
    return ISMCTSBot("fast", config)


def levels() -> list[str]:
    """Level names, weakest first."""
    return list(_FACTORIES)


def played_as(level: str, game: str | None) -> str:
    """The level whose bot plays `level` in `game` (itself unless the game's profile says otherwise)."""
    return profile(game).played_as(level) if game is not None else level


def ladder(game: str) -> list[str]:
    """The distinct strengths `game` offers, weakest first: every level that plays as itself there."""
    return [level for level in levels() if played_as(level, game) == level]


def make_bot(level: str, game: str | None = None) -> Bot:
    """A fresh bot of `level` (as it plays in `game`, when given); ValueError naming the known levels otherwise."""
    factory = _FACTORIES.get(level) if isinstance(level, str) else None
    if factory is None:
        raise ValueError(f"unknown bot level {level!r}; known levels: {', '.join(_FACTORIES)}")
    played = played_as(level, game)
    return factory() if played == level else _FACTORIES[played]()


def search_config(level: str, game: str | None = None) -> SearchConfig | None:
    """The search settings `level` itself plays `game` with (the game's profile, else `SEARCH`; None for levels
    that do not search), whatever level the game offers it as (`played_as` says that)."""
    make_bot(level)
    config = profile(game).search.get(level) if game is not None else None
    return config or SEARCH.get(level)


def default_budget(level: str, game: str | None = None) -> Budget | None:
    """The think limit a level uses when given none, in `game` when given (None for non-searching levels)."""
    config = search_config(level, game)
    return config.budget if config else None


#: The level whose budget is the floor of every shrunk budget (services/common/bot_policy.py).
FLOOR_LEVEL = "mcts-easy"


def game_budget(level: str, game: str) -> Budget | None:
    """The level's default budget in `game`, as it plays there (`played_as`): its iteration cap lowered to the
    game's `max_search_iterations` (what the level's bot uses when given no budget; None for non-searching
    levels)."""
    return _within_game_cap(default_budget(played_as(level, game), game), game)


def floor_budget(game: str) -> Budget:
    """The smallest budget a shrunk search gets in `game`: `FLOOR_LEVEL`'s search, whatever that level plays as
    there."""
    floor = _within_game_cap(default_budget(FLOOR_LEVEL), game)
    assert floor is not None
    return floor


def _within_game_cap(budget: Budget | None, game: str) -> Budget | None:
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
    floor = floor_budget(game)
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


def free_core_iterations(level: str, game: str, as_built: bool = False) -> int | None:
    """The iteration cap that stands for `level`'s time budget on a free core in `game`: its seconds times the
    game's free-core rate, within the level's and the game's caps (None: not a searching level). Capped this way a
    level plays the same on any machine, however busy (bench/bot_cost.py, research/lab/ladder.py). `as_built`: the
    level's own search, even where `game` offers it as another level (`played_as`), to measure it before offering it."""
    budget = _within_game_cap(default_budget(level, game), game) if as_built else game_budget(level, game)
    return _free_core_cap(budget, game) if budget is not None else None


def _free_core_cap(budget: Budget, game: str) -> int:
    """What `budget`'s seconds buy on a free core in `game`, within its iteration cap."""
    cap = round((budget.seconds or 1.0) * profile(game).free_core_rate)
    return min(cap, budget.iterations) if budget.iterations is not None else cap


#: What search a research tool's level name asks for (`split_level`): the level as its game plays it
#: (the game profile's `search` where the game has settings of its own), or `SEARCH[level]` alone, the
#: greedy-prior search a level played before its game got its own (Blue Skies' `mcts-normal` until 3 December:
#: the "today's mcts-normal" of the learned bots' targets (docs/decisions/learned-bots.md)). Written
#: `mcts-normal:greedy-prior`.
SEARCH_KINDS = ("as-played", "greedy-prior")


def split_level(name: str) -> tuple[str, str]:
    """`level[:kind]` as (level, kind), kind one of `SEARCH_KINDS` (default `as-played`); ValueError otherwise."""
    level, _, kind = name.partition(":")
    kind = kind or "as-played"
    if kind not in SEARCH_KINDS:
        raise ValueError(f"unknown search kind {kind!r} in {name!r}; known: {', '.join(SEARCH_KINDS)}")
    if kind == "greedy-prior" and level not in SEARCH:
        raise ValueError(f"{level!r} does not search; the greedy-prior kind is for {', '.join(SEARCH)}")
    return level, kind


class CappedBot:
    """A level's bot held to its free-core iteration cap (no time limit), whatever budget the match passes: it plays
    the same on any machine, however busy (the ladder, `research.lab.ladder`). `as_built`: the level's own bot even
    where the game offers it as another level. `level` may name a search kind (`split_level`):
    `mcts-normal:greedy-prior` is `SEARCH["mcts-normal"]` without the game's own settings, capped at what its seconds
    buy on a free core."""

    def __init__(self, level: str, game: str, as_built: bool = False):
        level, kind = split_level(level)
        if kind == "greedy-prior":
            config = SEARCH[level]
            self.bot: Bot = ISMCTSBot(level, config)  # not the game's own settings
            limit = _within_game_cap(config.budget, game)
            assert limit is not None
            self.budget: Budget | None = Budget(iterations=_free_core_cap(limit, game))
            return
        self.bot = make_bot(level) if as_built else make_bot(level, game)
        cap = free_core_iterations(level, game, as_built)
        self.budget = Budget(iterations=cap) if cap is not None else None

    @property
    def stats(self):
        return self.bot.stats

    def choose(self, state, seat, rng, _budget=None):
        return self.bot.choose(state, seat, rng, self.budget)
