"""Bradley-Terry ratings of bot levels from their games, on the Elo scale, with 95% intervals.

Why not openskill's ordinals: they depend on the order the games are fed in and rise with the number of games
played (mu - 3 sigma), so a level that played more looks stronger (the audit in docs/decisions/learned-bots.md: Blue
Skies put greedy above mcts-normal although mcts-normal wins 70% head to head). A Bradley-Terry maximum-likelihood fit
uses every game once, whatever its order: P(a beats b) = 1 / (1 + 10 ** ((r_b - r_a) / 400)). A game of several seats
counts as one comparison per pair of seats of different levels (1 for the better rank, 1/2 for a tie). The anchor level
is 0; one virtual draw between every pair of levels that met keeps a clean sweep (greedy against random) finite.
Intervals are +-1.96 standard errors from the observed information (the inverse Hessian).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from research.lab.match import MatchResult

ELO = 400 / math.log(10)


@dataclass(frozen=True, slots=True)
class Rating:
    """A level's Elo relative to the anchor, its 95% interval and the comparisons it took part in."""

    elo: float
    low: float
    high: float
    comparisons: int


def comparisons(results: Iterable[MatchResult]) -> list[tuple[str, str, float]]:
    """(level a, level b, a's score in [0, 1]) for every pair of seats of different levels in every game."""
    out = []
    for result in results:
        key = [(seat in result.winners, result.scores[seat]) for seat in range(len(result.levels))]
        for i in range(len(key)):
            for j in range(i + 1, len(key)):
                if result.levels[i] == result.levels[j]:
                    continue
                score = 1.0 if key[i] > key[j] else 0.0 if key[i] < key[j] else 0.5
                out.append((result.levels[i], result.levels[j], score))
    return out


def bradley_terry(results: Iterable[MatchResult], anchor: str, prior_draws: float = 1.0) -> dict[str, Rating]:
    """Every level's rating from `results` (ValueError when the anchor never played)."""
    pairs = comparisons(results)
    names = sorted({a for a, _, _ in pairs} | {b for _, b, _ in pairs})
    if anchor not in names:
        raise ValueError(f"the anchor level {anchor!r} played none of these games")
    index = {name: i for i, name in enumerate(names)}
    met = {tuple(sorted((a, b))) for a, b, _ in pairs}
    rows = [(index[a], index[b], s, 1.0) for a, b, s in pairs]
    rows += [(index[a], index[b], 0.5, prior_draws) for a, b in met]
    a_idx = np.array([r[0] for r in rows])
    b_idx = np.array([r[1] for r in rows])
    score = np.array([r[2] for r in rows])
    weight = np.array([r[3] for r in rows])
    free = [i for i in range(len(names)) if i != index[anchor]]
    theta = np.zeros(len(names))  # natural-log strength; Elo = ELO * theta
    hessian = np.eye(len(free))
    for _ in range(100):  # Newton's method on the concave log-likelihood, the anchor held at 0
        p = 1 / (1 + np.exp(theta[b_idx] - theta[a_idx]))
        resid = weight * (score - p)
        grad = np.zeros(len(names))
        np.add.at(grad, a_idx, resid)
        np.add.at(grad, b_idx, -resid)
        w = weight * p * (1 - p)
        info = np.zeros((len(names), len(names)))
        np.add.at(info, (a_idx, a_idx), w)
        np.add.at(info, (b_idx, b_idx), w)
        np.add.at(info, (a_idx, b_idx), -w)
        np.add.at(info, (b_idx, a_idx), -w)
        hessian = info[np.ix_(free, free)]
        step = np.linalg.solve(hessian, grad[free])
        theta[free] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    errors = np.zeros(len(names))
    errors[free] = np.sqrt(np.diag(np.linalg.inv(hessian)))
    counts = {name: sum(name in (a, b) for a, b, _ in pairs) for name in names}
    return {name: Rating(ELO * theta[i], ELO * (theta[i] - 1.96 * errors[i]), ELO * (theta[i] + 1.96 * errors[i]),
                         counts[name]) for name, i in index.items()}
