"""A small afterstate action scorer, evaluated with numpy only (the worker never imports the training stack).

Why: a policy is a softmax over the legal actions of one score per action, the score an MLP of the action's
afterstate features (`ai.policy.features`). Training (`research.train.fit`, PyTorch) writes the weights to a `.npz`
with its metadata; this module reads them and scores, and a test checks it matches the training side's scores.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class PolicyModel:
    """score(x) = w2 . tanh(W1 (x - mean) / std + b1) + b2, or the linear w2 . z + b2 without a hidden layer."""

    mean: np.ndarray
    std: np.ndarray
    layers: list[tuple[np.ndarray, np.ndarray]]
    meta: dict = field(default_factory=dict)

    def scores(self, features: np.ndarray | list[list[float]]) -> np.ndarray:
        """One score per row (a row per legal action)."""
        z = (np.asarray(features, dtype=np.float64) - self.mean) / self.std
        for i, (weight, bias) in enumerate(self.layers):
            z = z @ weight.T + bias
            if i < len(self.layers) - 1:
                z = np.tanh(z)
        return z[:, 0]

    def policy(self, features: np.ndarray | list[list[float]]) -> np.ndarray:
        """Softmax of the scores: the model's probability of each legal action."""
        s = self.scores(features)
        e = np.exp(s - s.max())
        return e / e.sum()

    def save(self, path: str | Path) -> None:
        arrays = {"mean": self.mean, "std": self.std}
        for i, (weight, bias) in enumerate(self.layers):
            arrays[f"w{i}"] = weight
            arrays[f"b{i}"] = bias
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        with open(path, "wb") as handle:
            np.savez(handle, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> PolicyModel:
        with np.load(path, allow_pickle=False) as data:
            layers = []
            i = 0
            while f"w{i}" in data:
                layers.append((data[f"w{i}"].astype(np.float64), data[f"b{i}"].astype(np.float64)))
                i += 1
            meta = json.loads(str(data["meta"]))
            return cls(data["mean"].astype(np.float64), data["std"].astype(np.float64), layers, meta)


def file_digest(path: str | Path) -> str:
    """sha256 of a file's bytes, 16 hex digits: the model's identity in evaluation ledgers."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
