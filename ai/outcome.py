"""Normalized results: what a finished (or estimated) game is worth to each seat.

Every value is in [0, 1] and is the *mover's own* result, so MCTS can back up
one vector and let each node read the entry of the seat that moved there.

Choice (documented for multiplayer): `WIN_WEIGHT * win share + (1 - WIN_WEIGHT)
* rank share`.
- win share: 1/len(winners) for each winner after the game's tie-break, else 0;
  bots are judged on wins, so this dominates.
- rank share: the fraction of opponents the seat beats on score, ties counting
  one half; it keeps a gradient when a win is out of reach (second place beats
  last in a 4-player game) and is 0/1 in a 2-player game like the win share.

A non-terminal position is valued the same way from a per-game projection of
final scores (`ai.heuristics`): the win share becomes a softmax of projected
scores over an uncertainty scale, and the rank share uses pairwise logistic
win chances over the same scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.core import State

WIN_WEIGHT = 0.75


def terminal_rewards(state: State, win_weight: float = WIN_WEIGHT) -> list[float]:
    """The normalized result of a finished game for every seat (`win_weight`: the win share's part)."""
    scores = state.scores()
    winners = state.winners()
    players = len(scores)
    share = 1.0 / len(winners) if winners else 0.0
    out = []
    for i in range(players):
        win = share if i in winners else 0.0
        out.append(win_weight * win + (1.0 - win_weight) * _rank_share(scores, i))
    return out


def _rank_share(scores: Sequence[float], i: int) -> float:
    if len(scores) < 2:
        return 1.0
    beaten = 0.0
    for j, s in enumerate(scores):
        if j != i:
            if scores[i] > s:
                beaten += 1.0
            elif scores[i] == s:
                beaten += 0.5
    return beaten / (len(scores) - 1)


def win_chances(projected: Sequence[float], scale: float) -> list[float]:
    """Every seat's chance to win: a softmax of projected scores over `scale` points."""
    scale = max(scale, 1e-9)
    top = max(projected)
    weights = [math.exp(max(-60.0, (p - top) / scale)) for p in projected]
    total = sum(weights)
    return [w / total for w in weights]


def estimated_rewards(projected: Sequence[float], scale: float, win_weight: float = WIN_WEIGHT) -> list[float]:
    """Normalized results estimated from projected final scores.

    `scale` is how many points of projection error one expects at this point
    of the game: a lead of one scale is worth about a 73% pairwise chance.
    """
    players = len(projected)
    scale = max(scale, 1e-9)
    chances = win_chances(projected, scale)
    out = []
    for i in range(players):
        win = chances[i]
        if players > 1:
            rank = sum(
                1.0 / (1.0 + math.exp(max(-60.0, min(60.0, (projected[j] - projected[i]) / scale))))
                for j in range(players)
                if j != i
            ) / (players - 1)
        else:
            rank = 1.0
        out.append(win_weight * win + (1.0 - win_weight) * rank)
    return out
