"""End-of-era scoring (AE-13) and the winner (AE-15), as pure functions of counts."""

from __future__ import annotations

from collections.abc import Sequence


def majority_awards(counts: Sequence[int], first: int, second: int) -> list[int]:
    """VP per player for one market (AE-13.2).

    Every player tied for the top count gets `first` and then no second place is
    given; otherwise every player with the next-highest count gets `second`.
    A player with 0 tiles never places.
    """
    awards = [0] * len(counts)
    top = max(counts, default=0)
    if top <= 0:
        return awards
    leaders = [i for i, c in enumerate(counts) if c == top]
    for i in leaders:
        awards[i] = first
    if len(leaders) > 1:
        return awards
    rest = [c for c in counts if c < top]
    runner = max(rest, default=0)
    if runner <= 0:
        return awards
    for i, c in enumerate(counts):
        if c == runner:
            awards[i] = second
    return awards


def competition_ranks(values: Sequence[int]) -> list[int]:
    """rank = 1 + number of players with a strictly higher value (AE-13.3)."""
    return [1 + sum(1 for w in values if w > v) for v in values]


def profit_awards(profits: Sequence[int], table: Sequence[int]) -> list[int]:
    """VP per player for profit (AE-13.3): ranks 1-3 get the era's 1st/2nd/3rd amount, others 0."""
    return [table[r - 1] if r <= 3 else 0 for r in competition_ranks(profits)]

