"""Blue Skies actions (the JSON vocabulary) and their precreated instances.

Airports and cards are named by IATA code. Every action a state can offer is
built once here, so `legal_actions` only picks from ready-made tuples.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import ClassVar

from engine.blueskies.data import BOARD
from engine.core import Action, ActionCodec

CODES: tuple[str, ...] = tuple(a.code for a in BOARD.airports)
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}


@dataclass(frozen=True, slots=True)
class BuyGate(Action):
    """Open a gate on the leftmost empty usable space of `airport` (BS-5.1)."""

    TYPE: ClassVar[str] = "buy_gate"
    airport: str


@dataclass(frozen=True, slots=True)
class Buyout(Action):
    """Replace the local-airline gate at `airport` with one of yours (BS-5.4)."""

    TYPE: ClassVar[str] = "buyout"
    airport: str


@dataclass(frozen=True, slots=True)
class Done(Action):
    """End your purchase turn (BS-5.8)."""

    TYPE: ClassVar[str] = "done"


@dataclass(frozen=True, slots=True)
class PlayCard(Action):
    """Play a demand card for `airport` from your hand (BS-8.2)."""

    TYPE: ClassVar[str] = "play_card"
    airport: str


@dataclass(frozen=True, slots=True)
class Special(Action):
    """The once-per-game special action: add passengers at any `airport` (BS-8.2)."""

    TYPE: ClassVar[str] = "special"
    airport: str


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard these cards (airport codes; may be empty) (BS-8.2, BS-8.6.4).

    A discard is a set of cards, so any order is accepted; the constructor puts them in board order, the
    canonical form that `legal_actions` lists and logs record (unknown codes go last, for the rules to refuse).
    """

    TYPE: ClassVar[str] = "discard"
    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        cards = self.cards
        if isinstance(cards, tuple) and all(isinstance(c, str) for c in cards):
            unknown = len(CODES)
            object.__setattr__(self, "cards", tuple(sorted(cards, key=lambda c: (INDEX.get(c, unknown), c))))


@dataclass(frozen=True, slots=True)
class Help(Action):
    """Government help: add passengers at `airport` (BS-8.6.2)."""

    TYPE: ClassVar[str] = "help"
    airport: str


@dataclass(frozen=True, slots=True)
class HelpDone(Action):
    """Stop choosing government-help airports (BS-8.6.3)."""

    TYPE: ClassVar[str] = "help_done"


CODEC = ActionCodec([BuyGate, Buyout, Done, PlayCard, Special, Discard, Help, HelpDone])

DONE = Done()
HELP_DONE = HelpDone()
BUY = tuple(BuyGate(c) for c in CODES)
BUYOUT = tuple(Buyout(c) for c in CODES)
PLAY = tuple(PlayCard(c) for c in CODES)
SPECIAL = tuple(Special(c) for c in CODES)
HELP = tuple(Help(c) for c in CODES)

_DISCARDS: dict[tuple[int, ...], tuple[Discard, ...]] = {}


def discard_options(hand: list[int]) -> tuple[Discard, ...]:
    """Every distinct sub-multiset of a sorted hand, as Discard actions (empty first)."""
    key = tuple(hand)
    options = _DISCARDS.get(key)
    if options is None:
        subsets: list[tuple[int, ...]] = []
        seen: set[tuple[int, ...]] = set()
        for size in range(len(key) + 1):
            for combo in combinations(key, size):
                if combo not in seen:
                    seen.add(combo)
                    subsets.append(combo)
        options = tuple(Discard(tuple(CODES[i] for i in combo)) for combo in subsets)
        _DISCARDS[key] = options
    return options
