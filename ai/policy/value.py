"""A learned position value for the search's cut-off leaves (docs/decisions/learned-bots.md, "the model as evaluation at
the leaves").

Why this shape: the policy's afterstate rows (`ai.policy.features`) already hold, for the position an action leads
to, the seat's own features, its best rival's, the projected margin between them, whether the seat is still to act
and the time left. Those columns alone describe a *position* from one seat's side, so a value model over them can
learn from every labelled action of the ledgers (each root edge's mean result, `values`, a counterfactual label) and
from every chosen action's final result (`outcome`), and be evaluated at a leaf on exactly the same quantities
(`value_features`). The network is the policy's (`PolicyModel`, numpy only); its output is a logit, the seat's
chance to win being its sigmoid.

At a leaf each seat's logit is its *strength* and the seats' rewards come from `ai.outcome.estimated_rewards` over
those strengths on a scale of 1, as the fitted conditional-logit win model's do (`ai.learned`): in a 2-player game
seat 0's win chance is sigmoid(logit v0 - logit v1), symmetric in the seats whatever the model's small errors.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ai.heuristics import for_game
from ai.outcome import WIN_WEIGHT, estimated_rewards
from ai.policy.features import _spec, _time_left, feature_names
from ai.policy.model import PolicyModel
from engine.core import State

#: The afterstate row's columns a value model reads (see the module docstring), by name.
VALUE_TAIL = ("margin", "turn_ends")


def value_feature_names(game: str) -> list[str]:
    """Names of the columns `value_features` returns (a subset of the afterstate row's, in its order)."""
    base = list(for_game(game).FEATURES)
    time_left = _spec(game)[3]
    return [f"mine_{n}" for n in base] + [f"rival_{n}" for n in base] + [*VALUE_TAIL, time_left]


def value_columns(game: str) -> list[int]:
    """Where `value_features`' columns sit in an afterstate row of `ai.policy.features.action_features`."""
    names = feature_names(game)
    return [names.index(n) for n in value_feature_names(game)]


def value_features(state: State, seat: int, heuristic=None) -> list[float]:
    """`seat`'s side of `state` (a determinization, such as a search's cut-off leaf): its features, its best rival's by
    projected score, the projected margin (in the game's margin unit), 1 if the seat is not to act, time left."""
    game = state.game.name
    _version, _types, unit, _time = _spec(game)
    heuristic = heuristic or for_game(game)
    feats = heuristic.features(state)
    proj = heuristic.projected_scores(state)
    return _side(feats, proj, seat, state.to_act(), _time_left(game, heuristic, state), unit)


def _side(feats: Sequence[Sequence[float]], proj: Sequence[float], seat: int, to_act: Sequence[int], left: float,
          unit: float) -> list[float]:
    rival = max((s for s in range(len(proj)) if s != seat), key=lambda s: proj[s])
    return [float(x) for x in feats[seat]] + [float(x) for x in feats[rival]] + [
        (proj[seat] - proj[rival]) / unit, 0.0 if seat in to_act else 1.0, float(left)]


class ValueModel:
    """A `PolicyModel` whose one output is a win logit (meta `labels` == "value"), for the player counts its card
    names (`meta["players_valued"]`)."""

    def __init__(self, model: PolicyModel):
        if model.meta.get("labels") != "value":
            raise ValueError("not a value model (its card's labels are not 'value')")
        self.model = model
        self.game: str = model.meta["game"]
        self.players: tuple[int, ...] = tuple(model.meta.get("players_valued", [2]))
        if list(model.meta.get("value_features", [])) != value_feature_names(self.game):
            raise ValueError("value model's columns differ from this code's value_feature_names")
        self._unit = _spec(self.game)[2]

    def logits(self, rows: np.ndarray | list[list[float]]) -> np.ndarray:
        """Win logit of each row's seat."""
        return self.model.scores(rows)

    def rewards(self, state: State, heuristic, win_weight: float = WIN_WEIGHT) -> list[float]:
        """Every seat's normalized result (`ai.outcome`) of the non-terminal `state`, from each seat's logit."""
        feats = heuristic.features(state)
        proj = heuristic.projected_scores(state)
        left = _time_left(self.game, heuristic, state)
        to_act = state.to_act()
        rows = [_side(feats, proj, s, to_act, left, self._unit) for s in range(len(proj))]
        return estimated_rewards(self.logits(rows).tolist(), 1.0, win_weight)


_LOADED: dict[str, ValueModel] = {}


def load_value(name: str) -> ValueModel:
    """The value model file `name` of `ai.policy.MODELS_DIR` (or a path), loaded once per process."""
    if name not in _LOADED:
        from ai.policy import MODELS_DIR

        path = MODELS_DIR / name
        _LOADED[name] = ValueModel(PolicyModel.load(path if path.exists() else name))
    return _LOADED[name]
