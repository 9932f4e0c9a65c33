"""Match points from a table's finishing order (pure).

Why here and not from scores: a tournament ranks by places, the one result every surface shows
(services/common/standings.places, forfeited seats last), so a title's score scale never leaks into the event's.
A table's points by place default to N-1 for first down to 0 for last; seats that share a place share the points
of the positions they cover (two seats tied first at a 4-seat table get (3 + 2) / 2 each), so a table always
hands out the same total whatever its ties. Points are whole numbers of UNIT (1/60 of a point: a share among up
to 5 seats of whole points is exact), so standings recomputed in any order agree to the last digit and compare
as fast as integers (Fractions made a 10,000-player ranking ten times slower).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

MIN_SEATS, MAX_SEATS = 2, 5
#: points are kept in 1/UNIT: lcm(1..MAX_SEATS), so a place shared by up to 5 seats splits whole points exactly
UNIT = 60
#: the most points an organiser may give one place
MAX_PLACE_POINTS = 100


def default_points(seats: int) -> tuple[int, ...]:
    """N-1 for first, N-2 for second, ..., 0 for last (whole points)."""
    return tuple(seats - 1 - i for i in range(seats))


def shown(units: int) -> float:
    """Points as every surface shows them (2.5, 0.33)."""
    return round(units / UNIT, 2)


def check_points(seats: int, points: Sequence[int]) -> tuple[int, ...]:
    """An organiser's whole points by place, validated: one per seat, 0-MAX_PLACE_POINTS, never more for a worse
    place."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"seats must be {MIN_SEATS}-{MAX_SEATS}, not {seats}")
    if len(points) != seats:
        raise ValueError(f"points must give one value per place ({seats}), not {len(points)}")
    if any(isinstance(p, bool) or not isinstance(p, int) for p in points):
        raise ValueError("points must be whole numbers")
    out = tuple(points)
    if any(not 0 <= p <= MAX_PLACE_POINTS for p in out):
        raise ValueError(f"points must lie in 0-{MAX_PLACE_POINTS}")
    if any(a < b for a, b in itertools.pairwise(out)):
        raise ValueError("points must not grow with a worse place")
    return out


def table_points(places: Sequence[int], by_place: Sequence[int]) -> list[int]:
    """Each seat's points in UNITs from its place (1 = first; equal places are a tie, as standings.places gives
    them).

    Seats sharing place p cover positions p .. p+k-1 and each gets the mean of those positions' points."""
    if len(places) != len(by_place):
        raise ValueError(f"{len(places)} places for a table of {len(by_place)}")
    sharing: dict[int, int] = {}
    for p in places:
        sharing[p] = sharing.get(p, 0) + 1
    out = []
    for p in places:
        k = sharing[p]
        if p < 1 or p + k - 1 > len(by_place):
            raise ValueError(f"places {list(places)} are not a finishing order")
        out.append(sum(by_place[p - 1:p - 1 + k]) * UNIT // k)
    return out
