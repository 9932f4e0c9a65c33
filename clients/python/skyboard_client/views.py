"""Each title's view and each engine event, as `TypedDict`s: what `Game.view` and `Submitted.events` hold.

Generated from the OpenAPI document (`clients/tools/write_python_views.py`, `make sdk-generate`), whose schemas are
the engines' declarations: do not edit. Narrow a view by its `game` and an event by its `type`:

    if game.view["game"] == "opensky":
        print(game.view["month_name"])
"""

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict


class AeroplanesActionChosenEvent(TypedDict):
    type: Literal['action_chosen']
    seat: int
    kind: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesActionEndedEvent(TypedDict):
    type: Literal['action_ended']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAdvantageBoughtEvent(TypedDict):
    type: Literal['advantage_bought']
    seat: int
    kind: int
    money: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAdvantageDicePending(TypedDict):
    """Advantage dice rolled: the dice and the advantage types a wild die may take."""

    dice: list[int]
    wild: list[int]


class AeroplanesAdvantageGainedEvent(TypedDict):
    type: Literal['advantage_gained']
    seat: int
    kinds: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAdvantageRollEvent(TypedDict):
    type: Literal['advantage_roll']
    seat: int
    dice: list[int]
    money: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAdvantages(TypedDict):
    """Advantage tokens per type (a player's, or the supply's)."""

    daring_pilot: int
    engine_maintenance: int
    increased_production: int
    night_flights: int
    radio_beacons: int


class AeroplanesAircraft(TypedDict):
    """One bought aircraft card: whether it is in service and face up, its capacity and its passengers."""

    card: int
    in_service: bool
    face_up: bool
    capacity: int
    free_capacity: int
    airport_tiles: int
    passengers: list[int]


class AeroplanesAircraftBoughtEvent(TypedDict):
    type: Literal['aircraft_bought']
    seat: int
    card: int
    cost: int
    tiles: int
    increased_production: bool
    display: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAmericaBonusEvent(TypedDict):
    type: Literal['america_bonus']
    seat: int
    destination: str
    money: int
    vp: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAttemptCrashedEvent(TypedDict):
    type: Literal['attempt_crashed']
    seat: int
    card: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesAttemptFailedEvent(TypedDict):
    type: Literal['attempt_failed']
    seat: int
    card: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesDaringPilotEvent(TypedDict):
    type: Literal['daring_pilot']
    seat: int
    missing: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesDisplayCard(TypedDict):
    card: int
    cost: int


class AeroplanesEngineFailuresEvent(TypedDict):
    type: Literal['engine_failures']
    seat: int
    new: int
    total: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesEngineMaintenanceEvent(TypedDict):
    type: Literal['engine_maintenance']
    seat: int
    discarded: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesEraScoringEvent(TypedDict):
    type: Literal['era_scoring']
    era: int
    profits: list[int]
    awards: dict[str, list[int]]
    vp: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesEraUpdateEvent(TypedDict):
    type: Literal['era_update']
    removed_cards: list[int]
    display: list[int]
    overflow: list[int]
    waiting: list[int]
    era: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesFinalScoringEvent(TypedDict):
    type: Literal['final_scoring']
    added: list[int]
    vp: list[int]
    money: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesFirstPlayerDieEvent(TypedDict):
    type: Literal['first_player_die']
    seat: int
    roll: int
    first: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesHomeChosenEvent(TypedDict):
    type: Literal['home_chosen']
    seat: int
    city: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesIncomeEvent(TypedDict):
    type: Literal['income']
    era: int
    amounts: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


AeroplanesPassengerClaimedEvent = TypedDict('AeroplanesPassengerClaimedEvent', {'type': Literal['passenger_claimed'], 'seat': int, 'tile': int, 'card': int, 'from': str, 'night_flights': bool, 'version': NotRequired[int], 'visible_to': NotRequired[list[int]]})


class AeroplanesPlacementDeclaredEvent(TypedDict):
    type: Literal['placement_declared']
    seat: int
    card: int
    target: str
    replace: int | None
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesPlacementPending(TypedDict):
    """A placement declared and not yet resolved: the card, the destination and the tile it would replace."""

    card: int
    target: str
    replace: int | None


class AeroplanesSupply(TypedDict):
    I: int
    II: int
    III: int


class AeroplanesPlayer(TypedDict):
    seat: int
    money: int
    vp: int
    home: str | None
    supply: AeroplanesSupply
    engine_failures: int
    advantages: AeroplanesAdvantages
    aircraft: list[AeroplanesAircraft]
    passengers_set_aside: list[int]


class AeroplanesRadioBeaconEvent(TypedDict):
    type: Literal['radio_beacon']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesRiskRollEvent(TypedDict):
    type: Literal['risk_roll']
    seat: int
    dice: list[int]
    threshold: int
    bonus: int
    roll: int
    of: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesRouteDeclaredEvent(TypedDict):
    type: Literal['route_declared']
    seat: int
    source: str
    via: str | None
    rolls: list[list[int]]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesRoutePending(TypedDict):
    """A route declared: where it starts, its stop, the risk rolls it needs, which is next and the dice so far."""

    card: int
    target: str
    replace: int | None
    source: str
    via: str | None
    rolls: list[list[int]]
    i: int
    dice: list[int]
    pilots: int


class AeroplanesShortfallEvent(TypedDict):
    type: Literal['shortfall']
    seat: int
    missing: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesShortfallPaidEvent(TypedDict):
    type: Literal['shortfall_paid']
    seat: int
    money: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesSlotTile(TypedDict):
    """An airport tile in a destination's slot: its owner and stage."""

    seat: int
    stage: int


class AeroplanesSubsidyEvent(TypedDict):
    type: Literal['subsidy']
    seat: int
    money: int
    notes_left: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesSubsidyMarkerEvent(TypedDict):
    type: Literal['subsidy_marker']
    seat: int
    era: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesTilePlacedEvent(TypedDict):
    type: Literal['tile_placed']
    seat: int
    card: int
    destination: str
    stage: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesTileReplacedEvent(TypedDict):
    type: Literal['tile_replaced']
    seat: int
    destination: str
    stage: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class AeroplanesView(TypedDict):
    """What any seat (and a spectator) sees: everything but the RNG."""

    game: Literal['aeroplanes']
    seat: int | None
    players_count: int
    era: int
    phase: Literal['home', 'turn', 'buy', 'place', 'place_more', 'route', 'roll', 'roll_next', 'shortfall', 'claim', 'claim_more', 'advantage', 'advantage_dice', 'over']
    to_act: list[int]
    first_player: int
    acted_this_go_around: int
    players: list[AeroplanesPlayer]
    slots: dict[str, list[AeroplanesSlotTile | Literal['blocked'] | None]]
    display: list[AeroplanesDisplayCard]
    deck: list[int]
    waiting: dict[str, list[int]]
    overflow: list[int]
    bag: list[int]
    removed_passengers: list[int]
    subsidy_notes: int
    subsidy_marker_taker: int | None
    advantage_supply: AeroplanesAdvantages
    pending: AeroplanesRoutePending | AeroplanesPlacementPending | AeroplanesAdvantageDicePending | None
    majority_counts: dict[str, list[int]]
    profits: list[int]


class BlueskiesGate(TypedDict):
    """One gate of an airport: its space, its owner (a seat, or a local airline) and the passengers it carries."""

    space: int
    owner: int | Literal['local']
    passengers: int


class BlueskiesAirport(TypedDict):
    code: str
    passengers: int
    gates: list[BlueskiesGate]
    usable_spaces: int
    next_cost: int | None


class BlueskiesBag(TypedDict):
    red: int
    green: int


class BlueskiesBuyoutEvent(TypedDict):
    type: Literal['buyout']
    seat: int
    airport: str
    cost: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesDeckEmptyEvent(TypedDict):
    """The deck ran out (no fields)."""

    type: Literal['deck_empty']
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesDeckKnown(TypedDict):
    """What the seat knows of the deck: cards surely in it, and every card it can hold (null: any card unseen)."""

    at_least: dict[str, int]
    at_most: dict[str, int] | None


class BlueskiesDiscardEvent(TypedDict):
    type: Literal['discard']
    seat: int
    cards: list[str]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesDoneEvent(TypedDict):
    type: Literal['done']
    seat: int
    unspent: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesDrawCardsEvent(TypedDict):
    type: Literal['draw_cards']
    seat: int
    cards: list[str]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesDrawEvent(TypedDict):
    type: Literal['draw']
    seat: int
    count: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesRegionAward(TypedDict):
    """One region's final scoring (BS-9.2.4-7): each seat's value, the seats first and second, their bonuses."""

    region: str
    values: list[int]
    first: list[int]
    first_bonus: int
    second: list[int]
    second_bonus: int


class BlueskiesFinalScoring(TypedDict):
    """The final scoring's breakdown (BS-9): the regions' awards, the unused-special bonus and each seat's gain,
and the scores after it (also the view's `final`)."""

    regions: list[BlueskiesRegionAward]
    unused_special: list[int]
    gains: list[int]
    scores: list[int]


class BlueskiesFirstPlayerEvent(TypedDict):
    type: Literal['first_player']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesGameOverEvent(TypedDict):
    type: Literal['game_over']
    regions: list[BlueskiesRegionAward]
    unused_special: list[int]
    gains: list[int]
    scores: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesGateEvent(TypedDict):
    type: Literal['gate']
    seat: int
    airport: str
    space: int
    cost: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesGovernment(TypedDict):
    """Government help (BS-8.6): whether it was used, each seat's entitlement, the airports chosen so far."""

    used: bool
    entitlement: list[int]
    chosen: list[str]


class BlueskiesGovernmentHelpEvent(TypedDict):
    type: Literal['government_help']
    entitlement: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesHelpDiscardCardsEvent(TypedDict):
    type: Literal['help_discard_cards']
    seat: int
    cards: list[str]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesHelpDiscardEvent(TypedDict):
    type: Literal['help_discard']
    seat: int
    count: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesHelpDoneEvent(TypedDict):
    type: Literal['help_done']
    seat: int
    airports: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesHelpEvent(TypedDict):
    type: Literal['help']
    seat: int
    airport: str
    red: int
    green: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesIncomeEvent(TypedDict):
    type: Literal['income']
    income: list[int]
    scores: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesLocalGateEvent(TypedDict):
    type: Literal['local_gate']
    airport: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesPlayEvent(TypedDict):
    type: Literal['play']
    seat: int
    card: str
    red: int
    green: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesReshuffleEvent(TypedDict):
    type: Literal['reshuffle']
    cards: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesRevealEvent(TypedDict):
    type: Literal['reveal']
    card: str
    red: int
    green: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesRoundEvent(TypedDict):
    type: Literal['round']
    round: int
    first_player: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesSkipPlayEvent(TypedDict):
    type: Literal['skip_play']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesSpecialEvent(TypedDict):
    type: Literal['special']
    seat: int
    airport: str
    red: int
    green: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class BlueskiesView(TypedDict):
    """The board and every public count; `hand` and `deck_known` only in a seat's own view (null for a
spectator)."""

    game: Literal['blueskies']
    players: int
    seat: int | None
    phase: Literal['setup_buy', 'buy', 'play', 'special_discard', 'help', 'help_discard', 'over']
    step: int | None
    round: int
    first_player: int
    to_act: list[int]
    scores: list[int]
    income: list[int]
    supply: list[int]
    special_used: list[bool]
    hand_counts: list[int]
    hand: list[str] | None
    deck_count: int
    discard: dict[str, int]
    bag: BlueskiesBag
    airports: list[BlueskiesAirport]
    budget: int | None
    setup_gates_added: int | None
    government: BlueskiesGovernment
    final: BlueskiesFinalScoring | None
    deck_known: BlueskiesDeckKnown | None


class OpenskyAircraftPlacedEvent(TypedDict):
    type: Literal['aircraft_placed']
    seat: int
    route: str
    cross_border_token: NotRequired[bool]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyBidSealedEvent(TypedDict):
    type: Literal['bid_sealed']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyOffer(TypedDict):
    """A revealed bid (OS-10.3): the seat, its fare, its itinerary's airports and its stops (also the view's)."""

    seat: int
    fare: int
    itinerary: list[str]
    stops: int


class OpenskyBidsRevealedEvent(TypedDict):
    type: Literal['bids_revealed']
    offers: list[OpenskyOffer]
    passed: list[int]
    provisional_winners: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyCallsignPlacedEvent(TypedDict):
    type: Literal['callsign_placed']
    seat: int
    callsign: str
    airport: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyDiceRolledEvent(TypedDict):
    type: Literal['dice_rolled']
    month: str
    roller: int
    callsigns: list[str]
    airports: list[str]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyDraft(TypedDict):
    turn: int
    seat: int
    tokens_left_in_turn: int


class OpenskyFlashDealEvent(TypedDict):
    type: Literal['flash_deal']
    seat: int
    fare: int
    previous: int
    provisional_winners: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyFlashDeclinedEvent(TypedDict):
    type: Literal['flash_declined']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyGameOverEvent(TypedDict):
    type: Literal['game_over']
    scores: list[int]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyHubKeptEvent(TypedDict):
    type: Literal['hub_kept']
    seat: int
    airport: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


OpenskyHubMovedEvent = TypedDict('OpenskyHubMovedEvent', {'type': Literal['hub_moved'], 'seat': int, 'from': str, 'to': str, 'version': NotRequired[int], 'visible_to': NotRequired[list[int]]})


class OpenskyHubPlacedEvent(TypedDict):
    type: Literal['hub_placed']
    seat: int
    airport: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyHubTurn(TypedDict):
    """OS-20.3 / OS-20.7: whose hub decision it is, which of its hubs (1 or 2) and the airport it stands on."""

    seat: int
    hub: int
    airport: str | None


class OpenskyLease(TypedDict):
    """OS-17.8: the month whose order applies, the seats still to lease, the aircraft left to place."""

    month: int
    month_name: str
    queue: list[int]
    aircraft_to_place: int


class OpenskyLeasedEvent(TypedDict):
    type: Literal['leased']
    seat: int
    aircraft: int
    cards: list[int]
    credit: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyMarketChosenEvent(TypedDict):
    type: Literal['market_chosen']
    seat: int
    origin: str
    destination: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyMarketNotTravelledEvent(TypedDict):
    type: Literal['market_not_travelled']
    reason: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyWonOffer(TypedDict):
    """An offer that flew (OS-13.3), with the ancillaries each winner paid."""

    seat: int
    fare: int
    itinerary: list[str]
    stops: int
    ancillaries: int


class OpenskyMarketWonEvent(TypedDict):
    type: Literal['market_won']
    winners: list[OpenskyWonOffer]
    tie: bool
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


OpenskyMyBidEvent = TypedDict('OpenskyMyBidEvent', {'type': Literal['my_bid'], 'seat': int, 'fare': NotRequired[int], 'itinerary': NotRequired[list[str]], 'pass': NotRequired[Literal[True]], 'version': NotRequired[int], 'visible_to': NotRequired[list[int]]})


class OpenskyScoreBreakdown(TypedDict):
    """OS-19.2/19.3: fare revenue, subsidies, ancillaries and their total."""

    fares: int
    subsidies: int
    ancillaries: int
    total: int


class OpenskyPlayer(TypedDict):
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
    aircraft: dict[str, int]
    hubs: list[str]
    cross_border_routes: list[str]
    score: OpenskyScoreBreakdown


class OpenskyPriceCheckEvent(TypedDict):
    type: Literal['price_check']
    seat: int
    fare: int
    ancillaries: int
    final_price: int
    roll: int
    accepted: bool
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskySealedBid(TypedDict):
    fare: int
    itinerary: list[str]


class OpenskyPricing(TypedDict):
    """The market being priced: who may bid, their itineraries, who decided, the offers standing."""

    eligible: list[int]
    valid_itineraries: dict[str, list[list[str]]]
    decided: list[int]
    offers: list[OpenskyOffer]
    my_bid: NotRequired[OpenskySealedBid | None]
    provisional_winners: NotRequired[list[int]]


class OpenskyPricingStartedEvent(TypedDict):
    type: Literal['pricing_started']
    eligible: list[int]
    valid_itineraries: dict[str, list[list[str]]]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskySeasonResetEvent(TypedDict):
    type: Literal['season_reset']
    month: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskySubsidyTakenEvent(TypedDict):
    type: Literal['subsidy_taken']
    seat: int
    airport: str
    callsign: str
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class OpenskyView(TypedDict):
    """Everything public plus the seat's own sealed bid; the phase's own part (`draft`, `hub_turn`, `pricing`,
`lease`) only in that phase."""

    game: Literal['opensky']
    map: str
    seat: int | None
    phase: Literal['callsign', 'draft', 'hubs', 'market', 'bid', 'flash', 'ancillary', 'lease', 'lease_place', 'over']
    to_act: list[int]
    month: int
    month_name: str
    season: int
    roller: int
    aircraft_per_player: int
    callsigns: dict[str, str]
    subsidy_cubes: dict[str, int]
    dice: list[str]
    market: list[str]
    players: list[OpenskyPlayer]
    draft: NotRequired[OpenskyDraft]
    hub_turn: NotRequired[OpenskyHubTurn]
    pricing: NotRequired[OpenskyPricing]
    lease: NotRequired[OpenskyLease]


class PlatformGameAbortedEvent(TypedDict):
    type: Literal['game_aborted']
    seat: int | None
    reason: Literal['requested', 'inactive']
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformGameCreatedEvent(TypedDict):
    type: Literal['game_created']
    game: str
    players: int
    options: dict[str, Any]
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformGameForfeitedEvent(TypedDict):
    type: Literal['game_forfeited']
    seat: int
    reason: Literal['resigned', 'abandoned']
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformSeatAbandonedEvent(TypedDict):
    type: Literal['seat_abandoned']
    seat: int
    bot: str | None
    reason: Literal['timeouts', 'inactive']
    timeouts: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformSeatAutoPlayedEvent(TypedDict):
    type: Literal['seat_auto_played']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformSeatResignedEvent(TypedDict):
    type: Literal['seat_resigned']
    seat: int
    bot: str | None
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformTakenBackEvent(TypedDict):
    type: Literal['taken_back']
    seat: int
    restores: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


class PlatformTimeoutEvent(TypedDict):
    type: Literal['timeout']
    seat: int
    version: NotRequired[int]
    visible_to: NotRequired[list[int]]


#: Any title's view (`Game.view`): its `game` says which
View = AeroplanesView | BlueskiesView | OpenskyView


#: An event of a game of Aeroplanes (its `type` says which), or the platform's
AeroplanesEvent = PlatformGameCreatedEvent | PlatformTimeoutEvent | PlatformSeatAutoPlayedEvent | PlatformSeatResignedEvent | PlatformSeatAbandonedEvent | PlatformGameForfeitedEvent | PlatformGameAbortedEvent | PlatformTakenBackEvent | AeroplanesActionChosenEvent | AeroplanesActionEndedEvent | AeroplanesAdvantageBoughtEvent | AeroplanesAdvantageGainedEvent | AeroplanesAdvantageRollEvent | AeroplanesAircraftBoughtEvent | AeroplanesAmericaBonusEvent | AeroplanesAttemptCrashedEvent | AeroplanesAttemptFailedEvent | AeroplanesDaringPilotEvent | AeroplanesEngineFailuresEvent | AeroplanesEngineMaintenanceEvent | AeroplanesEraScoringEvent | AeroplanesEraUpdateEvent | AeroplanesFinalScoringEvent | AeroplanesFirstPlayerDieEvent | AeroplanesHomeChosenEvent | AeroplanesIncomeEvent | AeroplanesPassengerClaimedEvent | AeroplanesPlacementDeclaredEvent | AeroplanesRadioBeaconEvent | AeroplanesRiskRollEvent | AeroplanesRouteDeclaredEvent | AeroplanesShortfallEvent | AeroplanesShortfallPaidEvent | AeroplanesSubsidyEvent | AeroplanesSubsidyMarkerEvent | AeroplanesTilePlacedEvent | AeroplanesTileReplacedEvent


#: An event of a game of Blueskies (its `type` says which), or the platform's
BlueskiesEvent = PlatformGameCreatedEvent | PlatformTimeoutEvent | PlatformSeatAutoPlayedEvent | PlatformSeatResignedEvent | PlatformSeatAbandonedEvent | PlatformGameForfeitedEvent | PlatformGameAbortedEvent | PlatformTakenBackEvent | BlueskiesBuyoutEvent | BlueskiesDeckEmptyEvent | BlueskiesDiscardEvent | BlueskiesDoneEvent | BlueskiesDrawEvent | BlueskiesDrawCardsEvent | BlueskiesFirstPlayerEvent | BlueskiesGameOverEvent | BlueskiesGateEvent | BlueskiesGovernmentHelpEvent | BlueskiesHelpEvent | BlueskiesHelpDiscardEvent | BlueskiesHelpDiscardCardsEvent | BlueskiesHelpDoneEvent | BlueskiesIncomeEvent | BlueskiesLocalGateEvent | BlueskiesPlayEvent | BlueskiesReshuffleEvent | BlueskiesRevealEvent | BlueskiesRoundEvent | BlueskiesSkipPlayEvent | BlueskiesSpecialEvent


#: An event of a game of Opensky (its `type` says which), or the platform's
OpenskyEvent = PlatformGameCreatedEvent | PlatformTimeoutEvent | PlatformSeatAutoPlayedEvent | PlatformSeatResignedEvent | PlatformSeatAbandonedEvent | PlatformGameForfeitedEvent | PlatformGameAbortedEvent | PlatformTakenBackEvent | OpenskyAircraftPlacedEvent | OpenskyBidSealedEvent | OpenskyBidsRevealedEvent | OpenskyCallsignPlacedEvent | OpenskyDiceRolledEvent | OpenskyFlashDealEvent | OpenskyFlashDeclinedEvent | OpenskyGameOverEvent | OpenskyHubKeptEvent | OpenskyHubMovedEvent | OpenskyHubPlacedEvent | OpenskyLeasedEvent | OpenskyMarketChosenEvent | OpenskyMarketNotTravelledEvent | OpenskyMarketWonEvent | OpenskyMyBidEvent | OpenskyPriceCheckEvent | OpenskyPricingStartedEvent | OpenskySeasonResetEvent | OpenskySubsidyTakenEvent


#: An event of any title's game (`Submitted.events`)
GameEventData = AeroplanesEvent | BlueskiesEvent | OpenskyEvent
