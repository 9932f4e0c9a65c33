"""The bot levels, by the names the REST contract uses.

| level | what it is | default budget |
|---|---|---|
| `random` | uniformly random legal action | none |
| `greedy` | the game's heuristic rule (`ai/heuristics/<game>.py`) | none |
| `mcts-easy` | ISMCTS | 0.1 s, at most 200 iterations |
| `fast` | a policy learned offline (`ai/policy`), alone or guiding a 100-iteration search | none (~1-9 ms) |
| `mcts-normal` | ISMCTS | 1.0 s, at most 20,000 iterations |
| `mcts-hard` | ISMCTS | 3.0 s, at most 100,000 iterations |

A game's heuristic may lower the default iteration caps (`max_search_iterations`; OpenSky: 1,000). A game may
offer fewer distinct strengths than there are levels (`SAME_AS`, `ladder`): `mcts-easy` plays as `greedy` in every
game, in OpenSky every search level does, and in Aeroplanes and Blue Skies `mcts-hard` plays as `mcts-normal`
(so no game plays `mcts-hard`'s own search today). `fast` plays a
short guided search where a game's model is a better prior than a player (`ai.policy.SEARCHED`: Aeroplanes, the
guided `mcts-normal` held to 100 iterations), a learned model where one is shipped (`ai.policy.SHIPPED`: Blue Skies)
and elsewhere the rule with its weights measured in paired games (`ai.policy.RULE_PARAMS`: OpenSky at 2-4 players)
or the game's own rule. A game
may play a search level with its own settings (`GAME_SEARCH`): in Blue Skies and Aeroplanes `mcts-normal` is guided
by a learned policy and stops at 1,000 iterations.
(`mcts-easy`'s search budget stays the floor of the degradation policy's shrunk budgets, `floor_budget`.)
"""

from __future__ import annotations

import dataclasses
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

#: A search level's settings in a game that plays it otherwise than `SEARCH` says. Blue Skies' `mcts-normal` is
#: the guided search: the shipped model's policy (`ai.policy`, bs2-r3) as the root's PUCT prior, at most 1,000
#: iterations. It took 72.5% [57.2, 83.9] of 40 paired games against the greedy-prior search at equal 1,000
#: caps, and 60.0% [53.1, 66.5] of 200 (separated) against that search at its own 5,300 iterations (what 1.0 s
#: buys on a free core, the level until 3 December) at under half its CPU a decision (0.17-0.20 s against 0.41 s;
#: bench/RESULTS.md, "Blue Skies guided search"). Research tools that name `mcts-normal` get this search in Blue
#: Skies; the greedy-prior search is `SEARCH["mcts-normal"]`. Aeroplanes' `mcts-normal` is guided the same way by
#: ap3-r3 (fitted on the greedy-prior search's own choices, `ai.train` plan `ap3-distill`): at 1,000 iterations it
#: took 44.3% [34.7, 54.2] of 96 paired 3-player games against two greedy-prior searches at their 5,200 (fair 33.3%),
#: separated above a fair third, at 0.21 of their CPU in the same run (0.19 at 4 players; bench/RESULTS.md,
#: "Aeroplanes guided search"; strength at 4-5 players not measured).
GAME_SEARCH: dict[str, dict[str, SearchConfig]] = {
    "mcts-normal": {
        "blueskies": dataclasses.replace(SEARCH["mcts-normal"], budget=Budget(seconds=1.0, iterations=1000),
                                         policy_prior="bs2-r3.npz", policy_weight=1.0),
        "aeroplanes": dataclasses.replace(SEARCH["mcts-normal"], budget=Budget(seconds=1.0, iterations=1000),
                                          policy_prior="ap3-r3.npz", policy_weight=1.0),
    },
}

#: Levels that play as another level in a game, so that every level a game offers is measurably stronger than
#: the one below it (the ladder, `ai.lab.ladder`; bench/RESULTS.md "The ladder"). A 200-iteration search
#: (mcts-easy's) was not shown stronger than the greedy rule in any game (paired games: OpenSky 41.2% of 40,
#: Blue Skies 48.8% of 40, Aeroplanes 3p 52.4% of 42), so mcts-easy plays the rule everywhere. In OpenSky no search
#: was shown stronger than the rule (mcts-normal, 1,000 iterations: 55.0% [48.1, 61.7] of 200 paired games, 53.0%
#: of 269; a longer search plays worse), so mcts-easy plays the rule there and the other search levels play the
#: `fast` level, the rule with its weights measured in paired games (2 players: 67.2% [66.4, 68.1] of 12,000
#: fresh paired games against greedy; 3 players: 38.7% [36.9, 40.4] of 3,000 against two greedy, fair 33.3%;
#: 4 players: 26.7% of 3,000 against three, +1.1 points over the rule in the same games): three strengths at
#: every table. In Aeroplanes
#: mcts-hard plays as mcts-normal until its pair is measured (42 paired 3-player games, some 4 CPU hours on a free
#: core: `python -m ai.lab.ladder --estimate --tables aeroplanes:3 --levels mcts-normal,mcts-hard --as-built`):
#: a level is offered once shown stronger than the one below it (`--as-built` plays the pair). In Blue Skies the
#: learned `fast` level sits between greedy and mcts-normal, each pair separated (fast 68.8% of 80 against greedy,
#: mcts-normal 69.8% of 43 against fast: bench/RESULTS.md "The ladder"; that was the greedy-prior search, which the
#: guided one of `GAME_SEARCH` beats 60.0% of 200). Blue Skies' mcts-hard took 72.5% of 80 against the greedy-prior
#: search but only 55.5% [45.7, 64.9] of 100 against the guided one (not separated; the rule written before those
#: games: RESULTS "Blue Skies' ladder at today's levels"), so it plays as mcts-normal there too until a pair shows
#: its own search stronger.
SAME_AS: dict[str, dict[str, str]] = {
    "mcts-easy": {"opensky": "greedy", "blueskies": "greedy", "aeroplanes": "greedy"},
    "mcts-normal": {"opensky": "fast"},
    "mcts-hard": {"opensky": "fast", "aeroplanes": "mcts-normal", "blueskies": "mcts-normal"},
}

_FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "mcts-easy": lambda: ISMCTSBot("mcts-easy", SEARCH["mcts-easy"], GAME_SEARCH.get("mcts-easy")),
    "fast": lambda: _fast_bot(),
    **{name: (lambda name=name: ISMCTSBot(name, SEARCH[name], GAME_SEARCH.get(name)))
       for name in SEARCH if name != "mcts-easy"},
}


def _fast_bot() -> Bot:
    """The `fast` level's bot, imported when first made: numpy and the model load in the workers that play it, not
    in every service that only names the levels."""
    from ai.policy.bot import FastBot

    return FastBot(short_search=short_search)


def short_search(game: str, iterations: int) -> Bot:
    """The `fast` level's search where it searches (`ai.policy.SEARCHED`): the game's guided `mcts-normal`
    (`GAME_SEARCH`) held to `iterations` and no time limit, a fresh bot for each decision (Aeroplanes keeps no tree
    between decisions)."""
    config = dataclasses.replace(GAME_SEARCH["mcts-normal"][game], budget=Budget(iterations=iterations))
    return ISMCTSBot("fast", config)


def levels() -> list[str]:
    """Level names, weakest first."""
    return list(_FACTORIES)


def played_as(level: str, game: str | None) -> str:
    """The level whose bot plays `level` in `game` (itself unless `SAME_AS` says otherwise)."""
    return SAME_AS.get(level, {}).get(game, level) if game is not None else level


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
    """The search settings `level` itself plays `game` with (`GAME_SEARCH`, else `SEARCH`; None for levels that
    do not search), whatever level the game offers it as (`played_as` says that)."""
    make_bot(level)
    config = GAME_SEARCH.get(level, {}).get(game) if game is not None else None
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


#: Search iterations a second on a free core by game (`python -m bench.bots` on a quiet core: 5,200-7,100 at the
#: first decision; mid-game positions are similar): what a level's time budget buys there. Aeroplanes' rate is
#: the engine's from source; compiled (since 5 December) it runs about 1.6x as many, but the rate stays, since it
#: defines the greedy-prior reference caps of issue #35's targets, and the one search Aeroplanes plays (the guided
#: `mcts-normal`) reaches its 1,000-iteration cap well inside its second either way.
FREE_CORE_RATE: dict[str, int] = {"opensky": 7000, "aeroplanes": 5200, "blueskies": 5300}


def free_core_iterations(level: str, game: str, as_built: bool = False) -> int | None:
    """The iteration cap that stands for `level`'s time budget on a free core in `game`: its seconds times the
    game's free-core rate, within the level's and the game's caps (None: not a searching level). Capped this way a
    level plays the same on any machine, however busy (bench/bot_cost.py, ai/lab/ladder.py). `as_built`: the
    level's own search, even where `game` offers it as another level (`SAME_AS`), to measure it before offering it."""
    budget = _within_game_cap(default_budget(level, game), game) if as_built else game_budget(level, game)
    return _free_core_cap(budget, game) if budget is not None else None


def _free_core_cap(budget: Budget, game: str) -> int:
    """What `budget`'s seconds buy on a free core in `game`, within its iteration cap."""
    cap = round((budget.seconds or 1.0) * FREE_CORE_RATE.get(game, 5000))
    return min(cap, budget.iterations) if budget.iterations is not None else cap


#: What search a research tool's level name asks for (`split_level`): the level as its game plays it
#: (`GAME_SEARCH` where the game has settings of its own), or `SEARCH[level]` alone, the greedy-prior search a level
#: played before its game got its own (Blue Skies' `mcts-normal` until 3 December: the "today's mcts-normal" of
#: issue #35's targets). Written `mcts-normal:greedy-prior`.
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
    the same on any machine, however busy (the ladder, `ai.lab.ladder`). `as_built`: the level's own bot even where
    the game offers it as another level. `level` may name a search kind (`split_level`): `mcts-normal:greedy-prior`
    is `SEARCH["mcts-normal"]` without the game's own settings, capped at what its seconds buy on a free core."""

    def __init__(self, level: str, game: str, as_built: bool = False):
        level, kind = split_level(level)
        if kind == "greedy-prior":
            config = SEARCH[level]
            self.bot: Bot = ISMCTSBot(level, config)  # no GAME_SEARCH
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
