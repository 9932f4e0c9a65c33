"""The plain-data position of an Aeroplanes game: fields, copy and JSON.

All fields are ints, strings, lists and small dicts so that `clone` is a few
list copies and `to_json` is nearly free. Encodings:

- a slot holds EMPTY, BLOCKED, or `owner * 4 + stage` (stage 0 = home tile, 1-3 = I-III);
- an owned aircraft card is `[number, in_service, face_up, base_capacity, airport_tiles, [passenger ids]]`;
- advantage holdings are lists indexed by type number 0-6 (only 2-6 used);
- a Risk die shows 0 for a skull.
"""

from __future__ import annotations

import random
from typing import Any

from engine.aeroplanes.data import DATA
from engine.core import clone_rng, rng_from_json, rng_to_json

EMPTY = -1
BLOCKED = -2

CARD_NUMBER, CARD_IN_SERVICE, CARD_FACE_UP, CARD_BASE, CARD_TILES, CARD_PAX = range(6)
#: The advantage types a player can hold (the type numbers used, 2-6).
ADV_TYPES = (2, 3, 4, 5, 6)

FIELDS = ("era", "phase", "current", "first", "acted", "home_order", "money", "vp", "home", "supply", "failures",
          "adv", "adv_supply", "cards", "set_aside", "slots", "display", "deck", "waiting", "overflow", "bag",
          "removed", "notes", "marker_taker", "pending", "bonus_vp", "maintained")
#: Fields a state saved before they existed may lack, with the value they then had.
OPTIONAL_FIELDS = {"maintained": False}


class Model:
    """Fields of one position; `AeroState` adds the rules on top."""

    num_players: int
    rng: random.Random
    era: int
    phase: str
    current: int
    first: int
    acted: int
    home_order: list[int]
    money: list[int]
    vp: list[int]
    home: list[int]
    supply: list[list[int]]
    failures: list[int]
    adv: list[list[int]]
    adv_supply: list[int]
    cards: list[list[list[Any]]]
    set_aside: list[list[int]]
    slots: list[list[int]]
    display: list[int]
    deck: list[int]
    waiting: list[int]
    overflow: list[int]
    bag: list[int]
    removed: list[int]
    notes: int
    marker_taker: int
    pending: dict[str, Any] | None
    bonus_vp: list[int]
    #: True once Engine Maintenance was used at this turn start (AE-11.3: once, before the action).
    maintained: bool
    #: Derived from `slots` (not serialised): bitmask of destinations where each seat has an airport.
    owned: list[int]

    def refresh_owned(self) -> None:
        """Recompute the derived `owned` masks from the slots."""
        owned = [0] * self.num_players
        for d, row in enumerate(self.slots):
            for v in row:
                if v >= 0:
                    owned[v >> 2] |= 1 << d
        self.owned = owned

    def copy_fields_from(self, other: Model, copy_rng: bool = True) -> None:
        """Hand-written deep copy of every field (cheap: only lists of ints). `copy_rng=False` leaves the
        RNG unset for a caller that replaces it (copying its state is the dearest part of the copy)."""
        self.num_players = other.num_players
        if copy_rng:
            self.rng = clone_rng(other.rng)
        self.era = other.era
        self.phase = other.phase
        self.current = other.current
        self.first = other.first
        self.acted = other.acted
        self.home_order = other.home_order[:]
        self.money = other.money[:]
        self.vp = other.vp[:]
        self.home = other.home[:]
        self.supply = [s[:] for s in other.supply]
        self.failures = other.failures[:]
        self.adv = [a[:] for a in other.adv]
        self.adv_supply = other.adv_supply[:]
        self.cards = [[[c[0], c[1], c[2], c[3], c[4], c[5][:]] for c in hand] for hand in other.cards]
        self.set_aside = [s[:] for s in other.set_aside]
        self.slots = [s[:] for s in other.slots]
        self.display = other.display[:]
        self.deck = other.deck[:]
        self.waiting = other.waiting[:]
        self.overflow = other.overflow[:]
        self.bag = other.bag[:]
        self.removed = other.removed[:]
        self.notes = other.notes
        self.marker_taker = other.marker_taker
        self.pending = None if other.pending is None else dict(other.pending)
        self.bonus_vp = other.bonus_vp[:]
        self.maintained = other.maintained
        self.owned = other.owned[:]

    def fields_to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"players": self.num_players, "rng": rng_to_json(self.rng)}
        for name in FIELDS:
            out[name] = getattr(self, name)
        return _plain(out)

    def fields_from_json(self, obj: dict[str, Any]) -> None:
        """Restore every field; ValueError on a malformed object."""
        if not isinstance(obj, dict):
            raise ValueError("an Aeroplanes state must be a JSON object")
        missing = [k for k in ("players", "rng", *FIELDS) if k not in obj and k not in OPTIONAL_FIELDS]
        if missing:
            raise ValueError(f"Aeroplanes state lacks {', '.join(missing)}")
        players = obj["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 3 <= players <= 5:
            raise ValueError("Aeroplanes state has a bad player count")
        self.num_players = players
        self.rng = rng_from_json(obj["rng"])
        for name in FIELDS:
            setattr(self, name, _copy_json(obj.get(name, OPTIONAL_FIELDS.get(name))))
        if len(self.slots) != len(DATA.destinations) or len(self.money) != players:
            raise ValueError("Aeroplanes state does not match the board or the player count")
        self.refresh_owned()


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively, so JSON round trips compare equal."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _copy_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    return value
