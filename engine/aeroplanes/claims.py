"""Claiming passenger tiles (AE-9) and Night Flights extras (AE-11.5)."""

from __future__ import annotations

from engine.aeroplanes.actions import ClaimPassenger
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import CARD_BASE, CARD_IN_SERVICE, CARD_NUMBER, CARD_PAX, Model
from engine.aeroplanes.routes import EUROPE_MASK

TILES = DATA.passengers
SECTIONS = DATA.sections
PER_SECTION = DATA.section_slots


def free_capacity(card: list) -> int:
    """Base capacity minus the capacity required of the passengers on it (AE-1.3)."""
    return card[CARD_BASE] - sum(TILES[t - 1].capacity for t in card[CARD_PAX])


def claimable_tiles(s: Model, p: int, own: int, europe_only: bool) -> list[int]:
    """Passenger tile ids p may claim by AE-9.2/9.5, ignoring capacity; European destinations only for extras."""
    out = []
    for i, tile_id in enumerate(s.waiting):
        if not tile_id:
            continue
        section = SECTIONS[i // PER_SECTION]
        dest = TILES[tile_id - 1].dest
        if own >> section & 1 and own >> dest & 1 and (not europe_only or EUROPE_MASK >> dest & 1):
            out.append(tile_id)
    if not europe_only:
        for tile_id in s.overflow:
            if own >> TILES[tile_id - 1].dest & 1:
                out.append(tile_id)
    return sorted(out)


def can_claim(s: Model, p: int, own: int) -> bool:
    """AE-6.5: can p claim any tile at all (some claimable tile fits on some in-service card)?"""
    room = max((free_capacity(c) for c in s.cards[p] if c[CARD_IN_SERVICE]), default=0)
    if room <= 0:
        return False
    for i, tile_id in enumerate(s.waiting):
        if tile_id:
            tile = TILES[tile_id - 1]
            if tile.capacity <= room and own >> tile.dest & 1 and own >> SECTIONS[i // PER_SECTION] & 1:
                return True
    return any(TILES[t - 1].capacity <= room and own >> TILES[t - 1].dest & 1 for t in s.overflow)


def claim_options(s: Model, p: int, own: int, europe_only: bool = False) -> list[ClaimPassenger]:
    """Every (tile, card) pair with the tile claimable and the card's free capacity enough (AE-9.4)."""
    tiles = claimable_tiles(s, p, own, europe_only)
    if not tiles:
        return []
    free = [(c[CARD_NUMBER], free_capacity(c)) for c in s.cards[p] if c[CARD_IN_SERVICE]]
    out: list[ClaimPassenger] = []
    for tile_id in tiles:
        need = TILES[tile_id - 1].capacity
        out.extend(ClaimPassenger(tile_id, number) for number, room in free if room >= need)
    return out


def take_tile(s: Model, p: int, tile_id: int, card_number: int) -> str:
    """Move the tile from its waiting slot or overflow space onto the card; return where it was."""
    if tile_id in s.overflow:
        s.overflow.remove(tile_id)
        where = "overflow"
    else:
        i = s.waiting.index(tile_id)
        s.waiting[i] = 0
        where = DATA.destinations[SECTIONS[i // PER_SECTION]].id
    for c in s.cards[p]:
        if c[CARD_NUMBER] == card_number:
            c[CARD_PAX].append(tile_id)
            break
    return where
