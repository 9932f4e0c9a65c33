"""OS-11.3 winner algorithm: pure, so the tests can drive it with the spec's vectors."""

from __future__ import annotations

from collections.abc import Sequence


def market_winners(offers: Sequence[tuple[int, int, int]]) -> list[int]:
    """Winning seats among standing offers `(seat, fare, stops)` (OS-11.3, OS-11.4).

    (a) no offers, no winner; (b) one stop count: the lowest fare(s); (c) nonstop and
    one-stop mixed: one-stops with 2 x fare <= the lowest nonstop fare N win (lowest of
    them), otherwise the nonstops at N. Offers with 2+ stops are never mixed with
    shorter ones (OS-9.4, OS-11.3(d)); a mix is a caller bug.
    """
    if not offers:
        return []
    kinds = {stops for _, _, stops in offers}
    if len(kinds) == 1:
        low = min(fare for _, fare, _ in offers)
        return sorted(seat for seat, fare, _ in offers if fare == low)
    if kinds != {0, 1}:
        raise ValueError(f"offers with {sorted(kinds)} stops cannot compete (OS-9.4)")
    nonstop = min(fare for _, fare, stops in offers if stops == 0)
    qualifying = [(seat, fare) for seat, fare, stops in offers if stops == 1 and 2 * fare <= nonstop]
    if qualifying:
        low = min(fare for _, fare in qualifying)
        return sorted(seat for seat, fare in qualifying if fare == low)
    return sorted(seat for seat, fare, stops in offers if stops == 0 and fare == nonstop)
