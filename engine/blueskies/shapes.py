"""The public shapes of a Blue Skies game, declared: a seat's view (`views.build_view`) and the data of every event
the engine emits (`Event.data`, without `type` and `visible_to`), exposed as `GAME.view_type` and `GAME.event_types`.

Why declared: the gateway derives their JSON Schema from these (its OpenAPI components, and from those the SDKs'
types), and the conformance suite checks every view and event of seeded games against them, so a field added
without its declaration fails the tests. Typing only: `typing_extensions.TypedDict`, which pydantic reads on
Python 3.11. Apart from `views.py` because that module is compiled by mypyc (`ai/native.py`).
"""

from typing import Literal

from typing_extensions import TypedDict

# --------------------------------------------------------------------------- the view


class RegionAward(TypedDict):
    """One region's final scoring (BS-9.2.4-7): each seat's value, the seats first and second, their bonuses."""

    region: str
    values: list[int]
    first: list[int]
    first_bonus: int
    second: list[int]
    second_bonus: int


class FinalScoring(TypedDict):
    """The final scoring's breakdown (BS-9): the regions' awards, the unused-special bonus and each seat's gain,
    and the scores after it (also the view's `final`)."""

    regions: list[RegionAward]
    unused_special: list[int]
    gains: list[int]
    scores: list[int]


class Gate(TypedDict):
    """One gate of an airport: its space, its owner (a seat, or a local airline) and the passengers it carries."""

    space: int
    owner: int | Literal["local"]
    passengers: int


class Airport(TypedDict):
    code: str
    passengers: int
    gates: list[Gate]
    usable_spaces: int
    next_cost: int | None


class Bag(TypedDict):
    red: int
    green: int


class Government(TypedDict):
    """Government help (BS-8.6): whether it was used, each seat's entitlement, the airports chosen so far."""

    used: bool
    entitlement: list[int]
    chosen: list[str]


class DeckKnown(TypedDict):
    """What the seat knows of the deck: cards surely in it, and every card it can hold (null: any card unseen)."""

    at_least: dict[str, int]
    at_most: dict[str, int] | None


class BlueskiesView(TypedDict):
    """The board and every public count; `hand` and `deck_known` only in a seat's own view (null for a
    spectator)."""

    game: Literal["blueskies"]
    players: int
    seat: int | None
    phase: Literal["setup_buy", "buy", "play", "special_discard", "help", "help_discard", "over"]
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
    #: card code -> copies in the discard pile
    discard: dict[str, int]
    bag: Bag
    airports: list[Airport]
    budget: int | None
    setup_gates_added: int | None
    government: Government
    final: FinalScoring | None
    deck_known: DeckKnown | None


# --------------------------------------------------------------------------- events


class BuyoutEvent(TypedDict):
    seat: int
    airport: str
    cost: int


class DeckEmptyEvent(TypedDict):
    """The deck ran out (no fields)."""


class DiscardEvent(TypedDict):
    seat: int
    cards: list[str]


class DoneEvent(TypedDict):
    seat: int
    unspent: int


class DrawEvent(TypedDict):
    seat: int
    count: int


class DrawCardsEvent(TypedDict):
    seat: int
    cards: list[str]


class FirstPlayerEvent(TypedDict):
    seat: int


class GameOverEvent(FinalScoring):
    pass


class GateEvent(TypedDict):
    seat: int
    airport: str
    space: int
    cost: int


class GovernmentHelpEvent(TypedDict):
    entitlement: list[int]


class HelpEvent(TypedDict):
    seat: int
    airport: str
    red: int
    green: int


class HelpDiscardEvent(TypedDict):
    seat: int
    count: int


class HelpDiscardCardsEvent(TypedDict):
    seat: int
    cards: list[str]


class HelpDoneEvent(TypedDict):
    seat: int
    airports: int


class IncomeEvent(TypedDict):
    income: list[int]
    scores: list[int]


class LocalGateEvent(TypedDict):
    airport: str


class PlayEvent(TypedDict):
    seat: int
    card: str
    red: int
    green: int


class ReshuffleEvent(TypedDict):
    cards: int


class RevealEvent(TypedDict):
    card: str
    red: int
    green: int


class RoundEvent(TypedDict):
    round: int
    first_player: int


class SkipPlayEvent(TypedDict):
    seat: int


class SpecialEvent(TypedDict):
    seat: int
    airport: str
    red: int
    green: int

#: Event type -> its data
EVENT_TYPES: dict[str, type] = {
    "buyout": BuyoutEvent,
    "deck_empty": DeckEmptyEvent,
    "discard": DiscardEvent,
    "done": DoneEvent,
    "draw": DrawEvent,
    "draw_cards": DrawCardsEvent,
    "first_player": FirstPlayerEvent,
    "game_over": GameOverEvent,
    "gate": GateEvent,
    "government_help": GovernmentHelpEvent,
    "help": HelpEvent,
    "help_discard": HelpDiscardEvent,
    "help_discard_cards": HelpDiscardCardsEvent,
    "help_done": HelpDoneEvent,
    "income": IncomeEvent,
    "local_gate": LocalGateEvent,
    "play": PlayEvent,
    "reshuffle": ReshuffleEvent,
    "reveal": RevealEvent,
    "round": RoundEvent,
    "skip_play": SkipPlayEvent,
    "special": SpecialEvent,
}
