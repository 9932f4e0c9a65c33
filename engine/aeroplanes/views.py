"""The JSON view of an Aeroplanes state: everything is public; only the RNG (future chance) is withheld."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.aeroplanes import claims, era
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import (
    ADV_TYPES,
    CARD_BASE,
    CARD_FACE_UP,
    CARD_IN_SERVICE,
    CARD_NUMBER,
    CARD_PAX,
    CARD_TILES,
)
from engine.aeroplanes.placement import IDS

if TYPE_CHECKING:
    from engine.aeroplanes.state import AeroState

CARDS = DATA.cards


def build_view(state: AeroState, seat: int | None) -> dict[str, Any]:
    """Each player's money, VP, aircraft and advantages; the board's slots, display, deck and bag."""
    names = DATA.advantage_names
    players = []
    for p in range(state.num_players):
        players.append({
            "seat": p,
            "money": state.money[p],
            "vp": state.vp[p],
            "home": IDS[state.home[p]] if state.home[p] >= 0 else None,
            "supply": {"I": state.supply[p][1], "II": state.supply[p][2], "III": state.supply[p][3]},
            "engine_failures": state.failures[p],
            "advantages": {names[t]: state.adv[p][t] for t in ADV_TYPES},
            "aircraft": [{"card": c[CARD_NUMBER], "in_service": bool(c[CARD_IN_SERVICE]),
                          "face_up": bool(c[CARD_FACE_UP]), "capacity": c[CARD_BASE],
                          "free_capacity": claims.free_capacity(c), "airport_tiles": c[CARD_TILES],
                          "passengers": c[CARD_PAX][:]} for c in state.cards[p]],
            "passengers_set_aside": state.set_aside[p][:],
        })
    slots = {}
    for d, row in enumerate(state.slots):
        slots[IDS[d]] = [None if v == -1 else ("blocked" if v == -2 else {"seat": v >> 2, "stage": v & 3})
                         for v in row]
    pend = None
    if state.pending is not None:
        pend = {k: (IDS[v] if k in ("target", "source", "via") and v is not None else v)
                for k, v in state.pending.items()}
    sections = DATA.sections
    per = DATA.section_slots
    return {
        "game": "aeroplanes",
        "seat": seat,
        "players_count": state.num_players,
        "era": state.era,
        "phase": state.phase,
        "to_act": state.to_act(),
        "first_player": state.first,
        "acted_this_go_around": state.acted,
        "players": players,
        "slots": slots,
        "display": [{"card": n, "cost": CARDS[n - 1].price + k} for k, n in enumerate(state.display)],
        "deck": state.deck[:],
        "waiting": {IDS[sec]: state.waiting[i * per:(i + 1) * per] for i, sec in enumerate(sections)},
        "overflow": state.overflow[:],
        "bag": state.bag[:],
        "removed_passengers": state.removed[:],
        "subsidy_notes": state.notes,
        "subsidy_marker_taker": state.marker_taker if state.marker_taker >= 0 else None,
        "advantage_supply": {names[t]: state.adv_supply[t] for t in ADV_TYPES},
        "pending": pend,
        "majority_counts": era.market_counts(state),
        "profits": era.profits(state),
    }
