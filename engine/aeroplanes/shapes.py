"""The public shapes of an Aeroplanes game, declared: a seat's view (`views.build_view`) and the data of every event
the engine emits (`Event.data`, without `type` and `visible_to`), exposed as `GAME.view_type` and `GAME.event_types`.

Why declared: the gateway derives their JSON Schema from these (its OpenAPI components, and from those the SDKs'
types), and the conformance suite checks every view and event of seeded games against them, so a field added
without its declaration fails the tests. Typing only: `typing_extensions.TypedDict`, which pydantic reads on
Python 3.11. Apart from `views.py` because that module is compiled by mypyc (`ai/native.py`).
"""

from typing import Literal

from typing_extensions import TypedDict

# --------------------------------------------------------------------------- the view


class Advantages(TypedDict):
    """Advantage tokens per type (a player's, or the supply's)."""

    daring_pilot: int
    engine_maintenance: int
    increased_production: int
    night_flights: int
    radio_beacons: int


#: Airport tiles left per stage (the keys are the stages' numerals)
class Supply(TypedDict):
    I: int  # noqa: E741 (the stage's numeral, as printed)
    II: int
    III: int


class Aircraft(TypedDict):
    """One bought aircraft card: whether it is in service and face up, its capacity and its passengers."""

    card: int
    in_service: bool
    face_up: bool
    capacity: int
    free_capacity: int
    airport_tiles: int
    passengers: list[int]


class Player(TypedDict):
    seat: int
    money: int
    vp: int
    home: str | None
    supply: Supply
    engine_failures: int
    advantages: Advantages
    aircraft: list[Aircraft]
    passengers_set_aside: list[int]


class SlotTile(TypedDict):
    """An airport tile in a destination's slot: its owner and stage."""

    seat: int
    stage: int


class DisplayCard(TypedDict):
    card: int
    cost: int


class PlacementPending(TypedDict):
    """A placement declared and not yet resolved: the card, the destination and the tile it would replace."""

    card: int
    target: str
    replace: int | None


class RoutePending(PlacementPending):
    """A route declared: where it starts, its stop, the risk rolls it needs, which is next and the dice so far."""

    source: str
    via: str | None
    rolls: list[list[int]]
    i: int
    dice: list[int]
    pilots: int


class AdvantageDicePending(TypedDict):
    """Advantage dice rolled: the dice and the advantage types a wild die may take."""

    dice: list[int]
    wild: list[int]


class AeroplanesView(TypedDict):
    """What any seat (and a spectator) sees: everything but the RNG."""

    game: Literal["aeroplanes"]
    seat: int | None
    players_count: int
    era: int
    #: a turn's start, then the action chosen (AE-6.4) and its steps
    phase: Literal["home", "turn", "buy", "place", "place_more", "route", "roll", "roll_next", "shortfall", "claim",
                   "claim_more", "advantage", "advantage_dice", "over"]
    to_act: list[int]
    first_player: int
    acted_this_go_around: int
    players: list[Player]
    #: destination -> its slots: empty (null), blocked, or a tile
    slots: dict[str, list[SlotTile | Literal["blocked"] | None]]
    display: list[DisplayCard]
    deck: list[int]
    #: waiting-area section -> its passenger tiles (0: an empty space)
    waiting: dict[str, list[int]]
    overflow: list[int]
    bag: list[int]
    removed_passengers: list[int]
    subsidy_notes: int
    subsidy_marker_taker: int | None
    advantage_supply: Advantages
    pending: RoutePending | PlacementPending | AdvantageDicePending | None
    #: market -> each seat's count
    majority_counts: dict[str, list[int]]
    profits: list[int]


# --------------------------------------------------------------------------- events


class ActionChosenEvent(TypedDict):
    seat: int
    kind: str


class ActionEndedEvent(TypedDict):
    seat: int


class AdvantageBoughtEvent(TypedDict):
    seat: int
    kind: int
    money: int


class AdvantageGainedEvent(TypedDict):
    seat: int
    kinds: list[int]


class AdvantageRollEvent(TypedDict):
    seat: int
    dice: list[int]
    money: int


class AircraftBoughtEvent(TypedDict):
    seat: int
    card: int
    cost: int
    tiles: int
    increased_production: bool
    display: list[int]


class AmericaBonusEvent(TypedDict):
    seat: int
    destination: str
    money: int
    vp: int


class AttemptCrashedEvent(TypedDict):
    seat: int
    card: int


class AttemptFailedEvent(TypedDict):
    seat: int
    card: int


class DaringPilotEvent(TypedDict):
    seat: int
    missing: int


class EngineFailuresEvent(TypedDict):
    seat: int
    new: int
    total: int


class EngineMaintenanceEvent(TypedDict):
    seat: int
    discarded: int


class EraScoringEvent(TypedDict):
    era: int
    profits: list[int]
    awards: dict[str, list[int]]
    vp: list[int]


class EraUpdateEvent(TypedDict):
    removed_cards: list[int]
    display: list[int]
    overflow: list[int]
    waiting: list[int]
    era: int


class FinalScoringEvent(TypedDict):
    added: list[int]
    vp: list[int]
    money: list[int]


class FirstPlayerDieEvent(TypedDict):
    seat: int
    roll: int
    first: int


class HomeChosenEvent(TypedDict):
    seat: int
    city: str


class IncomeEvent(TypedDict):
    era: int
    amounts: list[int]


#: `from` is a Python keyword, hence the functional form
PassengerClaimedEvent = TypedDict("PassengerClaimedEvent", {
    "seat": int, "tile": int, "card": int, "from": str, "night_flights": bool})


class PlacementDeclaredEvent(TypedDict):
    seat: int
    card: int
    target: str
    replace: int | None


class RadioBeaconEvent(TypedDict):
    seat: int


class RiskRollEvent(TypedDict):
    seat: int
    dice: list[int]
    threshold: int
    bonus: int
    roll: int
    of: int


class RouteDeclaredEvent(TypedDict):
    seat: int
    source: str
    via: str | None
    rolls: list[list[int]]


class ShortfallEvent(TypedDict):
    seat: int
    missing: int


class ShortfallPaidEvent(TypedDict):
    seat: int
    money: int


class SubsidyEvent(TypedDict):
    seat: int
    money: int
    notes_left: int


class SubsidyMarkerEvent(TypedDict):
    seat: int
    era: int


class TilePlacedEvent(TypedDict):
    seat: int
    card: int
    destination: str
    stage: int


class TileReplacedEvent(TypedDict):
    seat: int
    destination: str
    stage: int

#: Event type -> its data
EVENT_TYPES: dict[str, type] = {
    "action_chosen": ActionChosenEvent,
    "action_ended": ActionEndedEvent,
    "advantage_bought": AdvantageBoughtEvent,
    "advantage_gained": AdvantageGainedEvent,
    "advantage_roll": AdvantageRollEvent,
    "aircraft_bought": AircraftBoughtEvent,
    "america_bonus": AmericaBonusEvent,
    "attempt_crashed": AttemptCrashedEvent,
    "attempt_failed": AttemptFailedEvent,
    "daring_pilot": DaringPilotEvent,
    "engine_failures": EngineFailuresEvent,
    "engine_maintenance": EngineMaintenanceEvent,
    "era_scoring": EraScoringEvent,
    "era_update": EraUpdateEvent,
    "final_scoring": FinalScoringEvent,
    "first_player_die": FirstPlayerDieEvent,
    "home_chosen": HomeChosenEvent,
    "income": IncomeEvent,
    "passenger_claimed": PassengerClaimedEvent,
    "placement_declared": PlacementDeclaredEvent,
    "radio_beacon": RadioBeaconEvent,
    "risk_roll": RiskRollEvent,
    "route_declared": RouteDeclaredEvent,
    "shortfall": ShortfallEvent,
    "shortfall_paid": ShortfallPaidEvent,
    "subsidy": SubsidyEvent,
    "subsidy_marker": SubsidyMarkerEvent,
    "tile_placed": TilePlacedEvent,
    "tile_replaced": TileReplacedEvent,
}
