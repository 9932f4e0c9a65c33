"""The fast level: play the model's policy, numpy only.

Two ways, as the model's metadata says (`play`): its highest-scoring legal action (models of visit shares), or
"the rule corrected" (models of measured gains over the rule, OpenSky plan A): among the rule's `top` best-ranked
actions, the model's best if its predicted gain over the rule's own choice clears `margin`, else the rule's
choice; decisions the rule answers at every level (`Heuristic.rule_kinds`, OpenSky's sealed bids) stay the
greedy rule's.

Why no search: one feature pass over the legal actions (~1.5 ms) and one small matrix product cost a few
milliseconds, far inside the issue's 20 ms a decision. It reads the state only through the seat's view (the
features and the rule's ranking are computed on one determinization seeded by the view), so it is honest and
deterministic: the rng it is handed is used only where the greedy rule itself would use it (sealed bids).

Where a model is a poor player but a good prior (Aeroplanes: the game profile's `fast_search`), the fast level is
instead a short search it guides, held to an iteration cap (~9 ms): deterministic from the rng it is handed, which
seeds the search's determinizations, and honest as every search level is.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ai.bot import Bot, Budget
from ai.greedy import GreedyBot
from ai.heuristics import for_game, with_params
from ai.policy.features import action_features, feature_version, view_seed
from ai.policy.model import PolicyModel, file_digest
from engine.core import Action, State

_LOADED: dict[Path, tuple[PolicyModel, str]] = {}


def load_cached(path: str | Path) -> tuple[PolicyModel, str]:
    """A model file, loaded once per process (a level's bot is made afresh for every decision), and its digest."""
    key = Path(path).resolve()
    if key not in _LOADED:
        _LOADED[key] = (PolicyModel.load(key), file_digest(key))
    return _LOADED[key]


def corrected_choice(scores: np.ndarray, cands: np.ndarray, top: int, margin: float) -> int:
    """Position in `cands` of the rule corrected by the model: among the rule's `top` best candidates (the first
    `top` of `cands`, the rule's choice first), the highest-scoring one if its score beats the rule's choice by
    more than `margin`, else the rule's choice (0). `research.train.fit` measures the same on held-out games."""
    best = 0
    for j in range(1, min(top, len(cands))):
        if scores[cands[j]] > scores[cands[best]]:
            best = j
    return best if scores[cands[best]] - scores[cands[0]] > margin else 0


class PolicyBot(Bot):
    """Plays `model`'s highest-scoring legal action (the first one on a tie: legal order is deterministic), or the
    rule corrected by it where the model's `play` metadata says so, in the model's game; in any other game it
    plays the greedy rule, as `ai.greedy.GreedyBot` does."""

    def __init__(self, model: PolicyModel | str | Path, level: str = "learned-policy",
                 rule_params: dict[str, float | int] | None = None):
        super().__init__()
        self.level = level
        #: The rule's parameters where the model corrects the rule (the game profile's `rule_params`): the rule it ranks
        #: candidates with and answers sealed bids by; the game's own rule when empty.
        self.rule_params = dict(rule_params or {})
        if isinstance(model, (str, Path)):
            self.model, self.digest = load_cached(model)
        else:
            self.model, self.digest = model, "in-memory"
        self.game = self.model.meta.get("game", "blueskies")
        if self.model.meta.get("feature_version", feature_version(self.game)) != feature_version(self.game):
            raise ValueError(f"model features {self.model.meta.get('feature_version')} != "
                             f"{feature_version(self.game)}")
        #: None: argmax of the scores; else {"mode": "rule-corrected", "top": n, "margin": m (score units)}
        self.play = self.model.meta.get("play")
        #: CPU seconds of every decision this bot made with a choice (for the latency figures).
        self.decision_cpu: list[float] = []

    def _choose(self, state: State, seat: int, actions: list[Action], rng: random.Random,
                budget: Budget | None) -> Action:
        if state.game.name != self.game:
            return GreedyBot()._choose(state, seat, actions, rng, budget)
        heuristic = with_params(self.game, self.rule_params) if self.play is not None else for_game(self.game)
        if self.play is not None and actions[-1].TYPE in heuristic.rule_kinds:
            return GreedyBot(heuristic)._choose(state, seat, actions, rng, budget)
        start = time.thread_time()
        if self.play is None:
            choice = actions[int(np.argmax(self.model.scores(action_features(state, seat, actions))))]
        else:
            choice = self._corrected(state, seat, actions, heuristic)
        spent = time.thread_time() - start
        self.stats.extra["cpu_seconds"] = spent
        self.decision_cpu.append(spent)
        return choice

    def _corrected(self, state: State, seat: int, actions: list[Action], heuristic) -> Action:
        """The rule corrected by the model (`corrected_choice`, the rule the card measured): the rule's ranking on
        the view-seeded determinization, with a view-seeded rng for its ties; only its top candidates scored."""
        seed = view_seed(state, seat)
        det = state.determinize(seat, random.Random(seed))
        ranked = heuristic.ranked(det, seat, actions, random.Random(seed))
        cands = np.array([actions.index(a) for a in ranked[: self.play["top"]]])
        scores = np.full(len(actions), np.nan)
        scores[cands] = self.model.scores(action_features(state, seat, actions, only=cands.tolist()))
        return actions[int(cands[corrected_choice(scores, cands, self.play["top"], self.play["margin"])])]


class FastBot(Bot):
    """The `fast` level at the game and player count being played (the game's profile, `ai.games`): a short guided
    search where its `fast_search` lists the table; else the model its `fast_model` names (loaded once per process),
    correcting the rule its `rule_params` gives where the model's card says so; where no model is shipped, that rule
    alone (the game's own rule where no parameters were measured stronger). Its cost is fixed by what it plays, so it
    ignores a `budget`: the level is never shrunk under load (`ai.levels.default_budget` is None for it)."""

    level = "fast"

    def __init__(self, short_search: Callable[[str, int], Bot],
                 search_iterations: Callable[[str, int], int | None],
                 rule_params: Callable[[str, int], dict[str, float | int]],
                 model: Callable[[str, int], Path | None]):
        super().__init__()
        #: (game, players) -> what the table plays: the short search's cap, the rule's parameters, the model file
        #: (`ai.games`, which `ai.levels` hands in: the profiles import the search, which imports this package)
        self.search_iterations, self.rule_params, self.model = search_iterations, rule_params, model
        #: (game, iteration cap) -> a fresh bot of the game's guided search held to that cap (`ai.levels` makes it:
        #: the search and its settings live there, and this package imports neither)
        self.short_search = short_search

    def _choose(self, state: State, seat: int, actions: list[Action], rng: random.Random,
                budget: Budget | None) -> Action:
        game, players = state.game.name, state.num_players
        iterations = self.search_iterations(game, players)
        if iterations is not None:
            search = self.short_search(game, iterations)
            action = search._choose(state, seat, actions, rng, None)
            self.stats.iterations = search.stats.iterations
            self.stats.extra.update(search.stats.extra)
            return action
        params = self.rule_params(game, players)
        path = self.model(game, players)
        if path is None:
            return GreedyBot(with_params(game, params))._choose(state, seat, actions, rng, budget)
        policy = PolicyBot(path, level=self.level, rule_params=params)
        action = policy._choose(state, seat, actions, rng, budget)
        self.stats.extra.update(policy.stats.extra)
        return action
