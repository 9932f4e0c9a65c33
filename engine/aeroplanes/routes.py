"""Static route tables built once at import (AE-8.3 to AE-8.11).

Destinations are small ints, so sets of destinations are int bitmasks. For
every source S we precompute which targets a normal card and a long-haul card
can reach, and every (S, X, T) hop with its two legs, so that enumerating
placements is a handful of mask operations.
"""

from __future__ import annotations

from engine.aeroplanes.data import DATA, Connection

N_DEST = len(DATA.destinations)
EUROPE_MASK = sum(1 << d.index for d in DATA.destinations if d.region == "Europe")
AMERICAS = frozenset(d.index for d in DATA.destinations if d.region == "Americas")
REGION_OF = tuple(d.region for d in DATA.destinations)

#: DIRECT[s][t] = the connection followed from s to t (special ones only outward), if any.
DIRECT: tuple[dict[int, Connection], ...] = tuple({t: c for t, c in DATA.out[s]} for s in range(N_DEST))


def _leg_ok(c: Connection, long_haul_card: bool) -> bool:
    """AE-8.5: a long-haul connection needs a tile from a long-haul card."""
    return long_haul_card or not c.long_haul


#: Targets reachable by one connection from s, for a normal card / a long-haul card.
DIRECT_MASK_NORMAL = tuple(sum(1 << t for t, c in DIRECT[s].items() if _leg_ok(c, False)) for s in range(N_DEST))
DIRECT_MASK_LONG = tuple(sum(1 << t for t in DIRECT[s]) for s in range(N_DEST))

#: HOPS[s][t] = ((x, leg1, leg2), ...): every hop s-x-t a long-haul tile may fly (AE-8.6).
HOPS: tuple[dict[int, tuple[tuple[int, Connection, Connection], ...]], ...]
_hops: list[dict[int, list[tuple[int, Connection, Connection]]]] = []
for _s in range(N_DEST):
    table: dict[int, list[tuple[int, Connection, Connection]]] = {}
    for _x, _c1 in DATA.out[_s]:
        for _t, _c2 in DATA.out[_x]:
            if _t != _s:
                table.setdefault(_t, []).append((_x, _c1, _c2))
    _hops.append(table)
HOPS = tuple({t: tuple(v) for t, v in sorted(h.items())} for h in _hops)
HOP_MASK = tuple(sum(1 << t for t in HOPS[s]) for s in range(N_DEST))
#: Everything a tile from a normal / long-haul card can be declared towards from s.
REACH_NORMAL = DIRECT_MASK_NORMAL
REACH_LONG = tuple(DIRECT_MASK_LONG[s] | HOP_MASK[s] for s in range(N_DEST))


def leg_rolls(c1: Connection, c2: Connection | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The roll thresholds of leg 1 and leg 2 (AE-8.9, AE-8.11); a direct route is leg 2 only.

    Red adds 12, black 14, a dangerous leg its own list, white nothing; two white
    legs need one 10+ roll, assigned to leg 2.
    """
    if c2 is None:
        return (), c1.rolls()
    first, second = c1.rolls(), c2.rolls()
    if not first and not second:
        return (), (10,)
    return first, second


def route_rolls(c1: Connection, c2: Connection | None, rival_x: bool, rival_t: bool) -> tuple[tuple[int, int], ...]:
    """Required rolls in route order as (threshold, bonus) pairs (AE-8.9 to AE-8.12).

    A direct route or leg 2 gets +2 if a rival is at T; leg 1 of a hop gets +2
    only if rivals are at both X and T.
    """
    first, second = leg_rolls(c1, c2)
    bonus1 = 2 if (rival_x and rival_t) else 0
    bonus2 = 2 if rival_t else 0
    return tuple((t, bonus1) for t in first) + tuple((t, bonus2) for t in second)


def mask_items(mask: int) -> list[int]:
    """Set bits of `mask`, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
