"""Aeroplanes decisions, one frozen dataclass per JSON `type`.

An action turn is a short chain of decisions (choose the action, then its
parts), so that every choice is a legal action and random players pick each
of the five actions with comparable odds.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Action, ActionCodec


@dataclass(frozen=True, slots=True)
class ChooseHome(Action):
    """Setup (AE-3.3): put the home airport tile in a start city without one."""

    TYPE = "choose_home"
    city: str


@dataclass(frozen=True, slots=True)
class EngineMaintenance(Action):
    """Free action at the start of one's own turn (AE-11.3): discard all Engine Failure tiles."""

    TYPE = "engine_maintenance"


@dataclass(frozen=True, slots=True)
class ChooseAction(Action):
    """Pick this turn's action (AE-6.4): buy, place, claim, advantage or subsidy."""

    TYPE = "choose_action"
    kind: str


@dataclass(frozen=True, slots=True)
class BuyAircraft(Action):
    """AE-7: buy display card `card`; `extra` plays Increased Production (AE-11.4)."""

    TYPE = "buy_aircraft"
    card: int
    extra: bool


@dataclass(frozen=True, slots=True)
class PlaceTile(Action):
    """AE-8: take a tile from aircraft card `card` to destination `target`.

    `replace` is the seat whose tile is replaced when the target is full (AE-8.8),
    else null. If the player already has a tile there this is an upgrade (AE-8.7).
    """

    TYPE = "place_tile"
    card: int
    target: str
    replace: int | None


@dataclass(frozen=True, slots=True)
class ChooseRoute(Action):
    """AE-8.2: the route of the declared attempt: from own airport `source`, direct or hopping `via`."""

    TYPE = "choose_route"
    source: str
    via: str | None


@dataclass(frozen=True, slots=True)
class KeepRoll(Action):
    """AE-8.13 step 2: keep the current Risk roll (only offered when a Radio Beacon could re-roll it)."""

    TYPE = "keep_roll"


@dataclass(frozen=True, slots=True)
class RollNext(Action):
    """AE-8.15: go on to the next required roll of a multi-roll attempt (the alternative is abort)."""

    TYPE = "roll_next"


@dataclass(frozen=True, slots=True)
class RadioBeacon(Action):
    """AE-11.6: discard a Radio Beacons tile to re-roll all three dice."""

    TYPE = "radio_beacon"


@dataclass(frozen=True, slots=True)
class DaringPilot(Action):
    """AE-11.2: +3 to the current roll's total (target outside Europe)."""

    TYPE = "daring_pilot"


@dataclass(frozen=True, slots=True)
class PayShortfall(Action):
    """AE-8.13 step 5: pay £1 per missing point to make the roll succeed."""

    TYPE = "pay_shortfall"


@dataclass(frozen=True, slots=True)
class Abort(Action):
    """AE-8.15: give up the attempt; the tile returns to its card and the action ends."""

    TYPE = "abort"


@dataclass(frozen=True, slots=True)
class EndAction(Action):
    """Stop placing further tiles (AE-8.1) or claiming Night Flights extras (AE-11.5)."""

    TYPE = "end_action"


@dataclass(frozen=True, slots=True)
class ClaimPassenger(Action):
    """AE-9: claim passenger tile `tile` onto own in-service aircraft card `card`."""

    TYPE = "claim_passenger"
    tile: int
    card: int


@dataclass(frozen=True, slots=True)
class TakeAdvantage(Action):
    """AE-10.1 (a): pay £1 and take one tile of type `kind` (2-6)."""

    TYPE = "take_advantage"
    kind: int


@dataclass(frozen=True, slots=True)
class RollAdvantage(Action):
    """AE-10.1 (b): pay £1 and roll three Risk dice."""

    TYPE = "roll_advantage"


@dataclass(frozen=True, slots=True)
class PickAdvantageDice(Action):
    """AE-10.1 (b): use two of the rolled dice as types `first` <= `second` (a skull names any available type)."""

    TYPE = "pick_advantage_dice"
    first: int
    second: int


ACTIONS = (ChooseHome, EngineMaintenance, ChooseAction, BuyAircraft, PlaceTile, ChooseRoute, RollNext, KeepRoll,
           RadioBeacon, DaringPilot, PayShortfall, Abort, EndAction, ClaimPassenger, TakeAdvantage, RollAdvantage,
           PickAdvantageDice)
CODEC = ActionCodec(ACTIONS)

KINDS = ("buy", "place", "claim", "advantage", "subsidy")
