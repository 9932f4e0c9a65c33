"""The OpenSky action vocabulary: one frozen dataclass per kind of decision.

Airports are IATA codes; routes are "AAA-BBB" with the codes in alphabetical
order; fares are fare-card values (200, 250, 300, 400, 500).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Action, ActionCodec


@dataclass(frozen=True, slots=True)
class PlaceCallsign(Action):
    """OS-4.2: put the next callsign marker (Alpha..Foxtrot) on a free airport."""

    TYPE = "place_callsign"
    airport: str


@dataclass(frozen=True, slots=True)
class PlaceAircraft(Action):
    """OS-6.5 / OS-17.7: one aircraft token on a route (draft or lease placement).

    In North America a cross-border route not yet authorised for the player
    takes one of its Cross-border tokens at the same moment (OS-21.4).
    """

    TYPE = "place_aircraft"
    route: str


@dataclass(frozen=True, slots=True)
class PlaceHub(Action):
    """OS-20.3 / OS-20.7: put (or, at the reset, move) one Hub token on an airport."""

    TYPE = "place_hub"
    airport: str


@dataclass(frozen=True, slots=True)
class KeepHub(Action):
    """OS-20.7: at the season reset, leave this Hub token where it is."""

    TYPE = "keep_hub"


@dataclass(frozen=True, slots=True)
class ChooseMarket(Action):
    """OS-8.4: the roller picks two of the three rolled callsigns as the O&D."""

    TYPE = "choose_market"
    origin: str
    destination: str


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """OS-10.1/OS-10.2: a sealed fare card with its designated itinerary (airport codes, O to D)."""

    TYPE = "bid"
    fare: int
    itinerary: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """OS-10.1: offer no fare this month."""

    TYPE = "pass"


@dataclass(frozen=True, slots=True)
class FlashDeal(Action):
    """OS-12: discard the Flash Deal token and replace the standing fare with a lower card."""

    TYPE = "flash_deal"
    fare: int


@dataclass(frozen=True, slots=True)
class DeclineFlash(Action):
    """OS-12.5: decline a Flash Deal when asked."""

    TYPE = "decline_flash"


@dataclass(frozen=True, slots=True)
class AddAncillaries(Action):
    """OS-14.2: a sole winner attaches 0-3 unused ancillary tokens (+100 each)."""

    TYPE = "add_ancillaries"
    tokens: int


@dataclass(frozen=True, slots=True)
class Lease(Action):
    """OS-17.3: lease `aircraft` aircraft paying with the won `cards` (values); 0 = lease nothing."""

    TYPE = "lease"
    aircraft: int
    cards: tuple[int, ...]


ACTION_CLASSES = (
    PlaceCallsign,
    PlaceAircraft,
    PlaceHub,
    KeepHub,
    ChooseMarket,
    Bid,
    Pass,
    FlashDeal,
    DeclineFlash,
    AddAncillaries,
    Lease,
)
CODEC = ActionCodec(ACTION_CLASSES)

PASS = Pass()
KEEP_HUB = KeepHub()
DECLINE_FLASH = DeclineFlash()
LEASE_NOTHING = Lease(0, ())
