"""Era bookkeeping: passenger setup (AE-3.1), income (AE-5), era-end scoring (AE-13),
the end-of-era update (AE-14) and the final scoring (AE-15.1)."""

from __future__ import annotations

from engine.aeroplanes import dice as D
from engine.aeroplanes import scoring
from engine.aeroplanes.claims import free_capacity
from engine.aeroplanes.data import DATA, MARKETS
from engine.aeroplanes.model import (
    CARD_BASE,
    CARD_FACE_UP,
    CARD_IN_SERVICE,
    CARD_NUMBER,
    CARD_PAX,
    CARD_TILES,
    Model,
)
from engine.aeroplanes.routes import REGION_OF
from engine.core import Event

TILES = DATA.passengers
CARDS = DATA.cards
SUBSIDY_NOTES = 8
INCOME = {1: 12, 2: 22, 3: 32}


def draw_tile(s: Model) -> int:
    """A uniformly random tile from the bag (no hidden order: drawn from the multiset at draw time)."""
    return s.bag.pop(s.rng.randrange(len(s.bag)))


def setup_waiting_area(s: Model) -> None:
    """AE-3.1: fill the 24 slots Rome -> Berlin; '¤' tiles drawn are set aside, then returned to the bag."""
    aside: list[int] = []
    for i in range(len(s.waiting)):
        while s.bag:
            tile_id = draw_tile(s)
            if TILES[tile_id - 1].not_era1:
                aside.append(tile_id)
                continue
            s.waiting[i] = tile_id
            break
    s.bag = sorted(s.bag + aside)


def pay_income(s: Model) -> list[Event]:
    """AE-5: the subsidy notes and marker go out, then each player's era money (home modifier in era 1)."""
    s.notes = SUBSIDY_NOTES
    s.marker_taker = -1
    amounts = []
    for p in range(s.num_players):
        amount = INCOME[s.era]
        if s.era == 1:
            amount += DATA.destinations[s.home[p]].income_modifier
        s.money[p] += amount
        amounts.append(amount)
    return [Event("income", {"era": s.era, "amounts": amounts})]


def market_counts(s: Model) -> dict[str, list[int]]:
    """Airport tiles per player per majority market, home tiles counted, blocking tiles not (AE-13.2)."""
    counts = {m: [0] * s.num_players for m in MARKETS}
    for d, slots in enumerate(s.slots):
        row = counts.get(REGION_OF[d])
        if row is None:
            continue
        for v in slots:
            if v >= 0:
                row[v >> 2] += 1
    return counts


def profits(s: Model) -> list[int]:
    """AE-13.3: passengers carried minus free seats, over in-service cards (face down included)."""
    out = []
    for hand in s.cards:
        carried = free = 0
        for c in hand:
            if c[CARD_IN_SERVICE]:
                carried += sum(TILES[t - 1].capacity for t in c[CARD_PAX])
                free += free_capacity(c)
        out.append(carried - free)
    return out


def score_era(s: Model) -> list[Event]:
    """AE-13: majorities in the three markets and profit, from the VPs/Era table."""
    gained = [0] * s.num_players
    detail: dict[str, list[int]] = {}
    for market, counts in market_counts(s).items():
        first, second = DATA.majority_vp[s.era - 1][market]
        awards = scoring.majority_awards(counts, first, second)
        detail[market] = awards
        gained = [g + a for g, a in zip(gained, awards)]
    prof = profits(s)
    awards = scoring.profit_awards(prof, DATA.profit_vp[s.era - 1])
    detail["profit"] = awards
    gained = [g + a for g, a in zip(gained, awards)]
    for p in range(s.num_players):
        s.vp[p] += gained[p]
    return [Event("era_scoring", {"era": s.era, "profits": prof, "awards": detail, "vp": s.vp[:]})]


def update_era(s: Model) -> list[Event]:
    """AE-14.1-14.8: display, aircraft, passengers, overflow, refill, era marker."""
    # AE-14.1 display: drop the two lowest, draw two.
    removed_cards = s.display[:2]
    s.display = s.display[2:]
    for _ in range(2):
        if s.deck:
            s.display.append(s.deck.pop(0))
    s.display.sort()
    # AE-14.2 / 14.3 aircraft, then AE-14.4 passengers off every card.
    for p, hand in enumerate(s.cards):
        for c in hand:
            if c[CARD_IN_SERVICE]:
                room = free_capacity(c)
                if room == 0:
                    c[CARD_IN_SERVICE] = 0
                    s.supply[p][CARDS[c[CARD_NUMBER] - 1].stage] += c[CARD_TILES]
                    c[CARD_TILES] = 0
                else:
                    c[CARD_FACE_UP] = 0
                    c[CARD_BASE] = room
            for t in c[CARD_PAX]:
                (s.set_aside[p] if TILES[t - 1].vp > 0 else s.removed).append(t)
            c[CARD_PAX] = []
    # AE-14.5 one non-European tile per section to overflow, up to 8.
    per = DATA.section_slots
    for sec in range(len(DATA.sections)):
        if len(s.overflow) >= DATA.overflow_spaces:
            break
        for i in range(sec * per, sec * per + per):
            t = s.waiting[i]
            if t and REGION_OF[TILES[t - 1].dest] != "Europe":
                s.overflow.append(t)
                s.waiting[i] = 0
                break
    # AE-14.6 refill Rome -> Berlin; '¤' tiles are ordinary now.
    for i in range(len(s.waiting)):
        if not s.waiting[i] and s.bag:
            s.waiting[i] = draw_tile(s)
    s.era += 1
    return [Event("era_update", {"removed_cards": removed_cards, "display": s.display[:],
                                 "overflow": s.overflow[:], "waiting": s.waiting[:], "era": s.era})]


def final_scoring(s: Model) -> list[Event]:
    """AE-15.1: every bought card's VP and every claimed passenger tile's VP."""
    added = []
    for p in range(s.num_players):
        extra = sum(CARDS[c[CARD_NUMBER] - 1].vp for c in s.cards[p])
        extra += sum(TILES[t - 1].vp for t in s.set_aside[p])
        extra += sum(TILES[t - 1].vp for c in s.cards[p] for t in c[CARD_PAX])
        s.vp[p] += extra
        added.append(extra)
    return [Event("final_scoring", {"added": added, "vp": s.vp[:], "money": s.money[:]})]


def end_era(s: Model) -> list[Event]:
    """The subsidy marker was taken: score; then either end the game or update, pass the die, pay income."""
    events = score_era(s)
    if s.era == 3:
        events += final_scoring(s)
        s.phase = "over"
        s.pending = None
        return events
    events += update_era(s)
    roll = D.roll_first_player_die(s.rng)
    s.first = D.new_first_player(s.marker_taker, roll, s.num_players)
    s.acted = 0
    s.current = s.first
    events.append(Event("first_player_die", {"seat": s.marker_taker, "roll": roll, "first": s.first}))
    events += pay_income(s)
    return events
