"""The OpenSky action vocabulary: one frozen dataclass per kind of decision.

Airports are IATA codes; fares are fare-card values (200, 250, 300, 400, 500).
Routes, O&D pairs and itineraries are undirected (OS-3.2, OS-8.5), and lease
payments are sets of cards (OS-17.3), so each action accepts any spelling and
keeps one canonical form: routes "AAA-BBB" and O&D pairs in alphabetical
order, itineraries starting at the alphabetically first end, lease cards high
to low. Normalising in the constructor makes every action the engine lists,
records or is given (`action_from_json` included) canonical, so logs are too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import Action, ActionCodec


def canonical_route(code: Any) -> Any:
    """A route code with its two airports in alphabetical order ("LHR-AMS" -> "AMS-LHR"); anything else
    is returned as it is, for the rules to refuse."""
    if not isinstance(code, str):
        return code
    ends = code.split("-")
    return "-".join(sorted(ends)) if len(ends) == 2 else code


def canonical_itinerary(codes: Any) -> Any:
    """An itinerary read from its alphabetically first end (a path flown either way is the same)."""
    if isinstance(codes, tuple) and len(codes) >= 2 and str(codes[0]) > str(codes[-1]):
        return codes[::-1]
    return codes


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "route", canonical_route(self.route))


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
    """OS-8.4: the roller picks two of the three rolled callsigns as the O&D (unordered, OS-8.5: `origin` is
    the alphabetically first code)."""

    TYPE = "choose_market"
    origin: str
    destination: str

    def __post_init__(self) -> None:
        if isinstance(self.origin, str) and isinstance(self.destination, str) and self.origin > self.destination:
            origin = self.origin
            object.__setattr__(self, "origin", self.destination)
            object.__setattr__(self, "destination", origin)


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """OS-10.1/OS-10.2: a sealed fare card with its designated itinerary (airport codes from one end of the
    O&D to the other, kept from the alphabetically first end)."""

    TYPE = "bid"
    fare: int
    itinerary: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "itinerary", canonical_itinerary(self.itinerary))


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
    """OS-17.3: lease `aircraft` aircraft paying with the won `cards` (values, kept high to low); 0 = lease
    nothing."""

    TYPE = "lease"
    aircraft: int
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        cards = self.cards
        if isinstance(cards, tuple) and all(type(c) is int for c in cards):
            object.__setattr__(self, "cards", tuple(sorted(cards, reverse=True)))


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
