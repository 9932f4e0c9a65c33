"""Placing airport tiles (AE-8): what may be declared, the risk rolls, and the outcome.

An attempt is a chain of decisions kept in `state.pending`:
place_tile (card, target, replacement) -> choose_route (source, via) -> for each
required roll: roll_next (after the first) -> keep_roll / radio_beacon (era 3 with
Beacons) -> daring_pilot / pay_shortfall / abort on a shortfall. Upgrades skip the
route and the rolls (AE-8.7).
"""

from __future__ import annotations

from typing import Any

from engine.aeroplanes import dice as D
from engine.aeroplanes.actions import ChooseRoute, PlaceTile
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import CARD_NUMBER, CARD_TILES, EMPTY, Model
from engine.aeroplanes.routes import (
    AMERICAS,
    DIRECT,
    EUROPE_MASK,
    HOPS,
    REACH_LONG,
    REACH_NORMAL,
    mask_items,
    route_rolls,
)
from engine.core import Event

CARDS = DATA.cards
DESTS = DATA.destinations
IDS = tuple(d.id for d in DESTS)
ADV_PILOT, ADV_MAINTENANCE, ADV_PRODUCTION, ADV_NIGHT, ADV_BEACON = 2, 3, 4, 5, 6


def own_mask(s: Model, p: int) -> int:
    """Destinations where p has an airport, home tile included (AE-1.3)."""
    return s.owned[p]


_PLACE: dict[tuple[int, str, int | None], PlaceTile] = {}
_ROUTE: dict[tuple[str, str | None], ChooseRoute] = {}


def _place_action(card: int, target: str, replace: int | None) -> PlaceTile:
    """Interned actions: building frozen dataclasses is the slowest part of listing them."""
    key = (card, target, replace)
    action = _PLACE.get(key)
    if action is None:
        action = _PLACE[key] = PlaceTile(card, target, replace)
    return action


def _route_action(source: str, via: str | None) -> ChooseRoute:
    key = (source, via)
    action = _ROUTE.get(key)
    if action is None:
        action = _ROUTE[key] = ChooseRoute(source, via)
    return action


def own_stage(s: Model, p: int, d: int) -> int | None:
    """Stage of p's tile at d (0 = home), or None."""
    for v in s.slots[d]:
        if v >= 0 and v >> 2 == p:
            return v & 3
    return None


def has_rival(s: Model, p: int, d: int) -> bool:
    """AE-8.12: another player's airport (home included; blocking tiles are nobody's) at d."""
    return any(v >= 0 and v >> 2 != p for v in s.slots[d])


def replace_options(slots: list[int], stage: int) -> list[int | None]:
    """AE-8.8 rules 4-6 for a player without a tile at the target: the empty slot, else lower-stage rivals."""
    if EMPTY in slots:
        return [None]
    # a comprehension, not `sorted(...)` alone: its type is then the declared list[int | None], which mypyc checks
    return [owner for owner in sorted(v >> 2 for v in slots if v >= 0 and 0 < (v & 3) < stage)]


def _targets(s: Model, p: int, stage: int, long_haul: bool, first_only: bool) -> list[tuple[str, int | None]]:
    """(target, replace) pairs open to a tile of this stage from this kind of card."""
    own = s.owned[p]
    reach = own
    table = REACH_LONG if long_haul else REACH_NORMAL
    m = own
    while m:
        low = m & -m
        reach |= table[low.bit_length() - 1]
        m ^= low
    options: list[tuple[str, int | None]] = []
    all_slots = s.slots
    while reach:
        low = reach & -reach
        t = low.bit_length() - 1
        reach ^= low
        slots = all_slots[t]
        if own & low:
            mine = own_stage(s, p, t)
            if mine and mine < stage and EMPTY not in slots:
                options.append((IDS[t], p))
        elif EMPTY in slots:
            options.append((IDS[t], None))
        else:
            for r in replace_options(slots, stage):
                options.append((IDS[t], r))
        if first_only and options:
            return options
    return options


def can_place(s: Model, p: int) -> bool:
    """AE-6.5: is any placement attempt or upgrade possible?"""
    seen = set()
    for c in s.cards[p]:
        if c[CARD_TILES] > 0:
            card = CARDS[c[CARD_NUMBER] - 1]
            key = (card.stage, card.long_haul)
            if key not in seen:
                seen.add(key)
                if _targets(s, p, card.stage, card.long_haul, True):
                    return True
    return False


def place_options(s: Model, p: int) -> list[PlaceTile]:
    """Every legal first step of a placement attempt, or of an upgrade (AE-8.2, AE-8.7, AE-8.8)."""
    out: list[PlaceTile] = []
    cache: dict[tuple[int, bool], list[tuple[str, int | None]]] = {}
    for c in s.cards[p]:
        if c[CARD_TILES] <= 0:
            continue
        card = CARDS[c[CARD_NUMBER] - 1]
        key = (card.stage, card.long_haul)
        options = cache.get(key)
        if options is None:
            options = cache[key] = _targets(s, p, card.stage, card.long_haul, False)
        number = c[CARD_NUMBER]
        out.extend(_place_action(number, t, r) for t, r in options)
    return out


def routes_to(s: Model, p: int, target: int, long_haul: bool) -> list[ChooseRoute]:
    """Every declarable route to `target` (AE-8.3 to AE-8.6), by source then via."""
    out: list[ChooseRoute] = []
    for src in mask_items(own_mask(s, p)):
        c = DIRECT[src].get(target)
        if c is not None and (long_haul or not c.long_haul):
            out.append(_route_action(IDS[src], None))
        if long_haul:
            for x, _c1, _c2 in HOPS[src].get(target, ()):
                out.append(_route_action(IDS[src], IDS[x]))
    return out


def required_rolls(s: Model, p: int, source: int, via: int | None, target: int) -> list[list[int]]:
    """[threshold, bonus] per required roll of a declared route (AE-8.9 to AE-8.12)."""
    rival_t = has_rival(s, p, target)
    if via is None:
        rolls = route_rolls(DIRECT[source][target], None, False, rival_t)
    else:
        rolls = route_rolls(DIRECT[source][via], DIRECT[via][target], has_rival(s, p, via), rival_t)
    return [[t, b] for t, b in rolls]


def find_card(s: Model, p: int, number: int) -> list[Any]:
    for c in s.cards[p]:
        if c[CARD_NUMBER] == number:
            return c
    raise KeyError(number)


def put_tile(s: Model, p: int, card_number: int, target: int, replace: int | None) -> list[Event]:
    """AE-8.16/8.17: move the tile from its card into the slot, replacing if declared; America bonus."""
    stage = CARDS[card_number - 1].stage
    find_card(s, p, card_number)[CARD_TILES] -= 1
    slots = s.slots[target]
    events: list[Event] = []
    s.owned[p] |= 1 << target
    if replace is None:
        slots[slots.index(EMPTY)] = p * 4 + stage
        if target in AMERICAS:
            s.money[p] += 3
            s.vp[p] += 1
            s.bonus_vp[p] += 1
            events.append(Event("america_bonus", {"seat": p, "destination": IDS[target], "money": 3, "vp": 1}))
    else:
        for i, v in enumerate(slots):
            if v >= 0 and v >> 2 == replace:
                s.supply[replace][v & 3] += 1
                slots[i] = p * 4 + stage
                if replace != p:
                    s.owned[replace] &= ~(1 << target)
                events.append(Event("tile_replaced", {"seat": replace, "destination": IDS[target], "stage": v & 3}))
                break
    events.insert(0, Event("tile_placed", {"seat": p, "card": card_number, "destination": IDS[target],
                                           "stage": stage}))
    return events


def outside_europe(target: int) -> bool:
    """AE-11.2: Daring Pilots help only when the target is not European."""
    return not (EUROPE_MASK >> target & 1)


def roll_now(s: Model, p: int) -> list[Event]:
    """Roll the three Risk dice for the pending roll (AE-8.13 step 1)."""
    pend = s.pending
    assert pend is not None
    rolled = D.roll_risk(s.rng)
    pend["dice"] = rolled
    pend["pilots"] = 0
    threshold, bonus = pend["rolls"][pend["i"]]
    return [Event("risk_roll", {"seat": p, "dice": rolled, "threshold": threshold, "bonus": bonus,
                                "roll": pend["i"] + 1, "of": len(pend["rolls"])})]


def current_shortfall(s: Model) -> int:
    pend = s.pending
    assert pend is not None
    threshold, bonus = pend["rolls"][pend["i"]]
    return D.shortfall(pend["dice"], threshold, bonus, pend["pilots"])
