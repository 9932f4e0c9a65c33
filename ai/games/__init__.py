"""One bot profile per game: everything the bot side knows about a game, in one module `ai/games/<game>.py`.

A profile (`BotProfile`, the module's `PROFILE`) holds what a game plays at each level and what was measured about
it: the levels it plays as others (`same_as`), its own search settings (`search`), what its `fast` level plays (a
short guided search, a shipped model or the rule with measured parameters), the models it ships (file, sha256,
card), its search rate on a free core, each level's CPU a decision, and the identity each offered level is rated
under (`research.lab.ladder_fit`). Each setting and figure names the section of the report it comes from (`Evidence`).

Profiles are discovered, as the engines are (`engine.games()`): adding a game's bot side is adding its module here.
A game with no module plays every level as itself with the generic settings (`BotProfile(game)`).

    from ai.games import profile
    profile("blueskies").model_for("fast", 2)     # ShippedModel(file='bs2-r5.npz', ...)
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path

from ai.ismcts import SearchConfig
from ai.policy import MODELS_DIR


@dataclass(frozen=True)
class Evidence:
    """Where a setting or figure comes from: a document of the repository (a path from its root) and the heading of
    the section there (a test checks the heading exists)."""

    document: str
    heading: str


REPORT = "bench/RESULTS.md"


def report(heading: str) -> Evidence:
    """A section of the report of current figures."""
    return Evidence(REPORT, heading)


def experiment(folder: str, heading: str) -> Evidence:
    """A section of an experiment's write-up, `research/<folder>/README.md`."""
    return Evidence(f"research/{folder}/README.md", heading)


@dataclass(frozen=True)
class ShippedModel:
    """A learned model a level plays: its file in `ai/policy/models`, the file's sha256, its card (data manifest,
    training command) beside it, and the player counts it was measured at."""

    file: str
    sha256: str
    players: tuple[int, ...]
    evidence: Evidence

    @property
    def card(self) -> str:
        return self.file.removesuffix(".npz") + ".card.json"


@dataclass(frozen=True)
class FastSearch:
    """The `fast` level as a short search: the game's own `mcts-normal` (its learned prior) held to `iterations` and
    no time limit, at the listed player counts."""

    iterations: int
    players: tuple[int, ...]
    evidence: Evidence


@dataclass(frozen=True)
class BotProfile:
    """A game's bot side (see the module's docstring). Every field but `game` has a default: a game that plays
    every level as itself with the generic settings needs nothing more."""

    game: str
    #: level -> the level it plays as in this game (absent: itself). The ladder a player is offered is the levels
    #: that play as themselves (`ai.levels.ladder`); every other name stays accepted as an alias.
    same_as: dict[str, str] = field(default_factory=dict)
    #: level -> the search settings this game plays it with (absent: `ai.levels.SEARCH`).
    search: dict[str, SearchConfig] = field(default_factory=dict)
    #: The `fast` level's short search, where it plays one (it then plays it whatever `fast_model` and `rule_params`
    #: say at those player counts).
    fast_search: FastSearch | None = None
    #: The learned model the `fast` level plays, where one is shipped.
    fast_model: ShippedModel | None = None
    #: player count -> the rule's parameters (`RuleParams` fields) the `fast` level plays: the rule alone where no
    #: model is shipped, else the rule the model corrects. The `greedy` level keeps the game's own rule.
    rule_params: dict[int, dict[str, float | int]] = field(default_factory=dict)
    #: The models the game's search settings name as prior (file -> its record); with `fast_model`, every model
    #: this game plays (a test checks they are exactly `ai/policy/models/manifest.json`'s).
    priors: tuple[ShippedModel, ...] = ()
    #: Search iterations a second on a free core: what a level's time budget buys here
    #: (`ai.levels.free_core_iterations`).
    free_core_rate: int = 5000
    #: Measured figures, not play: level (as it plays here) -> mean CPU seconds of one decision with a choice on a
    #: free core, which is also its think time there.
    decision_cpu_s: dict[str, float] = field(default_factory=dict)
    #: level -> the identity its games are filed under in the ladders' fit (`research.lab.ladder_fit`), for every level
    #: this game offers (a test derives them from the settings above).
    level_identity: dict[str, str] = field(default_factory=dict)
    #: field name -> where that field's values come from.
    evidence: dict[str, Evidence] = field(default_factory=dict)

    def played_as(self, level: str) -> str:
        return self.same_as.get(level, level)

    def models(self) -> tuple[ShippedModel, ...]:
        """Every model file some level plays in this game."""
        return ((self.fast_model,) if self.fast_model else ()) + self.priors

    def fast_search_iterations(self, players: int) -> int | None:
        entry = self.fast_search
        return entry.iterations if entry is not None and players in entry.players else None

    def fast_model_file(self, players: int) -> str | None:
        entry = self.fast_model
        return entry.file if entry is not None and players in entry.players else None

    def play_key(self) -> str:
        """What in this profile decides moves, as text: the code fingerprint hashes this, not the module's source,
        so writing a measured figure (`decision_cpu_s`, `level_identity`, evidence) does not void a ledger."""
        play = {"same_as": sorted(self.same_as.items()),
                "search": sorted((level, repr(config)) for level, config in self.search.items()),
                "fast_search": self.fast_search and (self.fast_search.iterations, self.fast_search.players),
                "fast_model": self.fast_model and (self.fast_model.file, self.fast_model.players),
                "rule_params": sorted((n, sorted(p.items())) for n, p in self.rule_params.items()),
                "priors": sorted(m.file for m in self.priors), "free_core_rate": self.free_core_rate}
        return repr(play)


@functools.cache
def profiles() -> dict[str, BotProfile]:
    """Every game's profile, by game: the `PROFILE` of each module in this package."""
    found: dict[str, BotProfile] = {}
    for module in pkgutil.iter_modules(__path__):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        entry = getattr(loaded, "PROFILE", None)
        if isinstance(entry, BotProfile):
            if entry.game in found:
                raise RuntimeError(f"two bot profiles are for {entry.game!r}")
            found[entry.game] = entry
    return dict(sorted(found.items()))


def profile(game: str | None) -> BotProfile:
    """`game`'s profile; a game with none (or None) gets the generic one, every level playing as itself."""
    found = profiles().get(game) if game is not None else None
    return found if found is not None else BotProfile(game or "")


def fast_search_iterations(game: str, players: int) -> int | None:
    """The iteration cap of the short guided search the `fast` level plays at a `players`-player table of `game`,
    or None (it plays a model or a rule there)."""
    return profile(game).fast_search_iterations(players)


def fast_rule_params(game: str, players: int) -> dict[str, float | int]:
    """The `RuleParams` fields of the rule the `fast` level plays at a `players`-player table of `game` ({}: the
    game's own rule)."""
    return dict(profile(game).rule_params.get(players, {}))


def shipped_model(game: str, players: int) -> Path | None:
    """The model file the `fast` level plays in a `players`-player game of `game`, or None (the rule plays)."""
    name = profile(game).fast_model_file(players)
    return MODELS_DIR / name if name is not None else None


def replace(game: str, **changes) -> BotProfile:
    """`game`'s profile with `changes` (`dataclasses.replace`): for tests and research tools that try other settings
    (install it with `monkeypatch.setitem(profiles(), game, ...)`)."""
    return dataclasses.replace(profile(game), **changes)
