"""A position evaluation fitted to game outcomes: a conditional-logit win model per game.

Each game's heuristic module may describe a position by a feature vector per
seat (`Heuristic.features`). A seat's *strength* is a weighted sum of its
features, and its chance to win is the softmax of the strengths over the
seats, the conditional logit (McFadden) model: only differences between
seats matter, which suits an evaluation that must say who is ahead, and it
covers every player count with one set of weights.

The weights are fitted by `python -m research.train.fit_win` to the winners of self-play
games and stored as data in `ai/heuristics/fitted/<game>.json`, with the
held-out log-loss that shows whether they predict winners better than the
hand-set projection. MCTS uses them at its cut-off leaves when its
`evaluation` setting is "learned" (see `ai.ismcts`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ai.outcome import WIN_WEIGHT, estimated_rewards, win_chances

FITTED_DIR = Path(__file__).resolve().parent / "heuristics" / "fitted"


@dataclass(frozen=True, slots=True)
class WinModel:
    """Fitted feature weights of one game."""

    game: str
    features: tuple[str, ...]
    weights: tuple[float, ...]

    def strengths(self, features: Sequence[Sequence[float]]) -> list[float]:
        """Each seat's strength: the dot product of its features with the weights."""
        w = self.weights
        return [sum(wi * fi for wi, fi in zip(w, row, strict=True)) for row in features]

    def win_chances(self, features: Sequence[Sequence[float]]) -> list[float]:
        """Softmax of the strengths: every seat's estimated chance to win."""
        return win_chances(self.strengths(features), 1.0)

    def rewards(self, features: Sequence[Sequence[float]], win_weight: float = WIN_WEIGHT) -> list[float]:
        """Normalized results as `ai.outcome` defines them, with the strengths as projected scores on a
        scale of 1 (the logit's own): win chance plus pairwise rank chances."""
        return estimated_rewards(self.strengths(features), 1.0, win_weight)

    def to_json(self) -> dict:
        return {"game": self.game, "features": list(self.features), "weights": list(self.weights)}


_MODELS: dict[str, WinModel | None] = {}


def model_path(game: str) -> Path:
    return FITTED_DIR / f"{game}.json"


def load_model(game: str, feature_names: Sequence[str]) -> WinModel | None:
    """The fitted model of `game`, or None when there is none or it was fitted to other features
    (a heuristic whose features changed must be refitted, never silently mis-weighted)."""
    if game in _MODELS:
        return _MODELS[game]
    model = None
    path = model_path(game)
    if path.exists():
        raw = json.loads(path.read_text(encoding="utf-8"))
        if tuple(raw["features"]) == tuple(feature_names):
            model = WinModel(game, tuple(raw["features"]), tuple(float(w) for w in raw["weights"]))
    _MODELS[game] = model
    return model
