"""OS-17.3 lease payments: which sets of won cards may pay for k aircraft."""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from engine.opensky.constants import FARES, LEASE_COST


@lru_cache(maxsize=4096)
def lease_options(table: tuple[int, ...], credit: int, max_aircraft: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every legal lease `(k, cards)` with k >= 1 (OS-17.3, OS-17.6).

    `table` counts won cards per FARES value. A payment C must cover 200 x k with
    the change credit and contain no superfluous card: dropping its cheapest card
    must leave it short. Cards are listed high to low; options ordered by (k, cards).
    """
    subsets: list[tuple[int, tuple[int, ...]]] = []
    for counts in product(*(range(n + 1) for n in table)):
        cards = tuple(v for v, n in sorted(zip(FARES, counts), reverse=True) for _ in range(n))
        subsets.append((sum(cards), cards))
    out: list[tuple[int, tuple[int, ...]]] = []
    for k in range(1, max_aircraft + 1):
        due = LEASE_COST * k
        for value, cards in subsets:
            if value + credit < due:
                continue
            if cards and value - cards[-1] + credit >= due:
                continue
            out.append((k, cards))
    out.sort()
    return tuple(out)


def lease_credit(credit: int, cards: tuple[int, ...], aircraft: int) -> int:
    """The change credit after paying for `aircraft` with `cards` (OS-17.3)."""
    return credit + sum(cards) - LEASE_COST * aircraft
