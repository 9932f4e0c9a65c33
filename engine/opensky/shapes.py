"""The public shapes of an OpenSky game, declared: a seat's view (`views.build_view`) and the data of every event
the engine emits (`Event.data`, without `type` and `visible_to`), exposed as `GAME.view_type` and `GAME.event_types`.

Why declared: the gateway derives their JSON Schema from these (its OpenAPI components, and from those the SDKs'
types), and the conformance suite checks every view and event of seeded games against them, so a field added
without its declaration fails the tests. Typing only: `typing_extensions.TypedDict`, which pydantic reads on
Python 3.11. Apart from `views.py` because that module is compiled by mypyc (`ai/native.py`).
"""

from typing import Literal, NotRequired

from typing_extensions import TypedDict

# --------------------------------------------------------------------------- the view


class Offer(TypedDict):
    """A revealed bid (OS-10.3): the seat, its fare, its itinerary's airports and its stops (also the view's)."""

    seat: int
    fare: int
    itinerary: list[str]
    stops: int


class WonOffer(Offer):
    """An offer that flew (OS-13.3), with the ancillaries each winner paid."""

    ancillaries: int


class ScoreBreakdown(TypedDict):
    """OS-19.2/19.3: fare revenue, subsidies, ancillaries and their total."""

    fares: int
    subsidies: int
    ancillaries: int
    total: int


class Player(TypedDict):
    """A seat's public holdings (hands are public: OS-1.5)."""

    seat: int
    hand: list[int]
    table: list[int]
    credit: int
    ancillary_unused: int
    ancillary_used: int
    flash_deal: bool
    subsidies: int
    aircraft_supply: int
    #: route code -> this seat's aircraft on it
    aircraft: dict[str, int]
    hubs: list[str]
    cross_border_routes: list[str]
    score: ScoreBreakdown


class Draft(TypedDict):
    turn: int
    seat: int
    tokens_left_in_turn: int


class HubTurn(TypedDict):
    """OS-20.3 / OS-20.7: whose hub decision it is, which of its hubs (1 or 2) and the airport it stands on."""

    seat: int
    hub: int
    airport: str | None


class SealedBid(TypedDict):
    fare: int
    itinerary: list[str]


class Pricing(TypedDict):
    """The market being priced: who may bid, their itineraries, who decided, the offers standing."""

    eligible: list[int]
    #: seat (as a string) -> its valid itineraries, each a list of airport codes
    valid_itineraries: dict[str, list[list[str]]]
    decided: list[int]
    offers: list[Offer]
    #: only in the bidding seat's own view once it decided (null: it passed)
    my_bid: NotRequired[SealedBid | None]
    #: after the reveal
    provisional_winners: NotRequired[list[int]]


class Lease(TypedDict):
    """OS-17.8: the month whose order applies, the seats still to lease, the aircraft left to place."""

    month: int
    month_name: str
    queue: list[int]
    aircraft_to_place: int


class OpenskyView(TypedDict):
    """Everything public plus the seat's own sealed bid; the phase's own part (`draft`, `hub_turn`, `pricing`,
    `lease`) only in that phase."""

    game: Literal["opensky"]
    map: str
    seat: int | None
    phase: Literal["callsign", "draft", "hubs", "market", "bid", "flash", "ancillary", "lease", "lease_place", "over"]
    to_act: list[int]
    month: int
    month_name: str
    season: int
    roller: int
    aircraft_per_player: int
    #: callsign -> the airport it stands on
    callsigns: dict[str, str]
    #: airport -> the seat whose subsidy cube is there (-1: none)
    subsidy_cubes: dict[str, int]
    dice: list[str]
    market: list[str]
    players: list[Player]
    draft: NotRequired[Draft]
    hub_turn: NotRequired[HubTurn]
    pricing: NotRequired[Pricing]
    lease: NotRequired[Lease]


# --------------------------------------------------------------------------- events


class AircraftPlacedEvent(TypedDict):
    seat: int
    route: str
    #: only on a board with cross-border routes (North America): whether this aircraft is one
    cross_border_token: NotRequired[bool]


class BidSealedEvent(TypedDict):
    seat: int


class BidsRevealedEvent(TypedDict):
    offers: list[Offer]
    passed: list[int]
    provisional_winners: list[int]


class CallsignPlacedEvent(TypedDict):
    seat: int
    callsign: str
    airport: str


class DiceRolledEvent(TypedDict):
    month: str
    roller: int
    callsigns: list[str]
    airports: list[str]


class FlashDealEvent(TypedDict):
    seat: int
    fare: int
    previous: int
    provisional_winners: list[int]


class FlashDeclinedEvent(TypedDict):
    seat: int


class GameOverEvent(TypedDict):
    scores: list[int]


class HubKeptEvent(TypedDict):
    seat: int
    airport: str


#: `from` is a Python keyword, hence the functional form
HubMovedEvent = TypedDict("HubMovedEvent", {"seat": int, "from": str, "to": str})


class HubPlacedEvent(TypedDict):
    seat: int
    airport: str


class LeasedEvent(TypedDict):
    seat: int
    aircraft: int
    cards: list[int]
    credit: int


class MarketChosenEvent(TypedDict):
    seat: int
    origin: str
    destination: str


class MarketNotTravelledEvent(TypedDict):
    reason: str


class MarketWonEvent(TypedDict):
    winners: list[WonOffer]
    tie: bool


#: The seat's own sealed bid (only it sees it): a fare and itinerary, or `pass` (a Python keyword, hence the
#: functional form)
MyBidEvent = TypedDict("MyBidEvent", {"seat": int, "fare": NotRequired[int], "itinerary": NotRequired[list[str]],
                                      "pass": NotRequired[Literal[True]]})


class PriceCheckEvent(TypedDict):
    seat: int
    fare: int
    ancillaries: int
    final_price: int
    roll: int
    accepted: bool


class PricingStartedEvent(TypedDict):
    eligible: list[int]
    valid_itineraries: dict[str, list[list[str]]]


class SeasonResetEvent(TypedDict):
    month: str


class SubsidyTakenEvent(TypedDict):
    seat: int
    airport: str
    callsign: str

#: Event type -> its data
EVENT_TYPES: dict[str, type] = {
    "aircraft_placed": AircraftPlacedEvent,
    "bid_sealed": BidSealedEvent,
    "bids_revealed": BidsRevealedEvent,
    "callsign_placed": CallsignPlacedEvent,
    "dice_rolled": DiceRolledEvent,
    "flash_deal": FlashDealEvent,
    "flash_declined": FlashDeclinedEvent,
    "game_over": GameOverEvent,
    "hub_kept": HubKeptEvent,
    "hub_moved": HubMovedEvent,
    "hub_placed": HubPlacedEvent,
    "leased": LeasedEvent,
    "market_chosen": MarketChosenEvent,
    "market_not_travelled": MarketNotTravelledEvent,
    "market_won": MarketWonEvent,
    "my_bid": MyBidEvent,
    "price_check": PriceCheckEvent,
    "pricing_started": PricingStartedEvent,
    "season_reset": SeasonResetEvent,
    "subsidy_taken": SubsidyTakenEvent,
}
