"""Per-game knowledge for bots: one small module per registered game.

Each module `ai/heuristics/<game>.py` exposes `HEURISTIC`, a `Heuristic` whose
methods see only a *determinized* state (never the truth), so using them keeps
a bot honest:

- `projected_scores(state)`: an estimate of every seat's final score, used to
  cut MCTS rollouts short (see `ai.outcome.estimated_rewards`);
- `scale(state)`: the expected error of that projection, in points;
- `choose(state, seat, actions, rng)`: the `greedy` level's decision rule.

A game without a module falls back to `Heuristic` itself: current scores as the
projection and a one-ply lookahead as the greedy rule. Every registered game
is expected to have its own module (a test checks it).
"""

from __future__ import annotations

import importlib
import random

from engine.core import Action, IllegalAction, State


class Heuristic:
    """Game-agnostic defaults; game modules subclass and override."""

    game: str = ""
    #: Longest random rollout worth playing before evaluating (None: the level's depth).
    #: Games whose random play is far from real play cut rollouts short and trust the evaluation.
    max_rollout_depth: int | None = None
    #: Most iterations a search level spends on one decision by default (None: the level's own cap).
    #: For a game where a longer search measured weaker, because a deeper tree overrules the greedy rule
    #: on the evaluation's errors, this keeps every level at the best measured budget. An explicit
    #: budget passed to a bot is not capped.
    max_search_iterations: int | None = None
    #: Decision kinds (action TYPEs) that MCTS leaves to `choose` without searching (see `ai.ismcts`).
    rule_kinds: frozenset[str] = frozenset()
    #: Decision kinds (action TYPEs) that MCTS settles by paired greedy playouts to the end of the game
    #: among the rule's best candidates (`ranked`) instead of by its tree (see `ai.ismcts`).
    playout_kinds: frozenset[str] = frozenset()
    #: Whether MCTS keeps the subtree of its chosen action for the seat's next decision, when that
    #: decision comes straight after with nothing new seen (see `ai.ismcts`, `reuse_tree`).
    reuse_tree: bool = False
    #: Names of the per-seat features `features` returns, for a fitted win model (`ai.learned`);
    #: empty: the game has none and MCTS values leaves by the projection.
    FEATURES: tuple[str, ...] = ()

    def features(self, state: State) -> list[list[float]]:
        """One row of `FEATURES` values per seat."""
        raise NotImplementedError(f"{self.game or 'this game'} declares no features")

    def projected_scores(self, state: State) -> list[float]:
        """Estimated final score of every seat. Default: the current scores."""
        return [float(s) for s in state.scores()]

    def scale(self, state: State) -> float:
        """Expected projection error in points. Default: a tenth of the score spread, at least 1."""
        scores = state.scores()
        return max(1.0, (max(scores) - min(scores)) / 10.0, max(abs(s) for s in scores) / 10.0)

    def margin(self, state: State, seat: int) -> float:
        """The seat's projected lead over its best opponent (negative when behind)."""
        projected = self.projected_scores(state)
        others = [p for i, p in enumerate(projected) if i != seat]
        return projected[seat] - (max(others) if others else 0.0)

    def choose(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
        """Default greedy rule: the action whose immediate result has the best projected margin."""
        return one_ply(self, state, seat, actions, rng)

    def ranked(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> list[Action]:
        """Every action, best first by the greedy rule, the rule's own choice first. Default: that
        choice, then the rest in legal order (games whose rule scores candidates override this)."""
        first = self.choose(state, seat, actions, rng)
        return [first] + [a for a in actions if a != first]

    def prior(self, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
        """The action MCTS favours at its root (see `ai.ismcts`); by default the greedy choice.
        Games whose greedy rule is expensive return a cheaper approximation."""
        return self.choose(state, seat, actions, rng)


def one_ply(heuristic: Heuristic, state: State, seat: int, actions: list[Action], rng: random.Random) -> Action:
    """Apply each action to a copy and keep the best projected margin; ties go to a random one."""
    best: list[Action] = []
    best_value = float("-inf")
    for action in actions:
        trial = state.clone()
        try:
            trial.apply(seat, action)
        except IllegalAction:  # pragma: no cover - legal_actions and apply disagree: skip, stay legal
            continue
        value = heuristic.margin(trial, seat)
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    if not best:
        return actions[rng.randrange(len(actions))]
    return best[rng.randrange(len(best))]


_CACHE: dict[str, Heuristic] = {}


def has_module(game: str) -> bool:
    """Whether `game` has its own heuristic module."""
    try:
        importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{game}":
            return False
        raise
    return True


def for_game(game: str) -> Heuristic:
    """The heuristic of `game` (the generic default if it has no module)."""
    cached = _CACHE.get(game)
    if cached is None:
        cached = importlib.import_module(f"{__name__}.{game}").HEURISTIC if has_module(game) else Heuristic()
        _CACHE[game] = cached
    return cached


_TUNED: dict[tuple[str, tuple[tuple[str, object], ...]], Heuristic] = {}


def with_params(game: str, params: dict[str, object] | None) -> Heuristic:
    """`game`'s rule with some of its `RuleParams` fields replaced (its own rule when `params` is empty): a level
    may play a variant measured stronger without changing `greedy`, the baseline everything is measured against.
    ValueError when the game's rule has no such parameters."""
    if not params:
        return for_game(game)
    key = (game, tuple(sorted(params.items())))
    cached = _TUNED.get(key)
    if cached is None:
        module = importlib.import_module(f"{__name__}.{game}") if has_module(game) else None
        if module is None or not hasattr(module, "RuleParams"):
            raise ValueError(f"the {game} rule has no RuleParams to vary")
        cached = module.HEURISTIC.__class__(module.RuleParams(**params))
        _TUNED[key] = cached
    return cached
