"""Engine actions <-> integers: one fixed token vocabulary per game, an action as a short token sequence.

The three games' actions carry parameters (an airport, a card, a fare *and* an itinerary, a set of cards to
discard or lease with), so the product of every parameter is far too large to enumerate as flat integers
(an OpenSky bid alone is 5 fares x every simple path of the board). The adapters therefore factorise: an
engine action is the sequence of its JSON parts, each part one integer of a fixed vocabulary:

    [type] + [one token per scalar field] + [one token per element of a tuple field..., END]

fields in their declaration order, e.g. OpenSky `bid(fare=300, itinerary=("AMS","CDG"))` is
`type:bid, 300, "AMS", "CDG", END`. The vocabulary of a game (`ActionTable.tokens`) is: every action type of
the game, then END, then every value a field can hold (read from the game's static data: airport codes,
route codes, card numbers, ...), values shared between fields. It depends on the game only, not on the
player count or the options, so one network serves them all.

A decision is taken one token at a time (`Cursor`): the legal integers are the next tokens of the legal
actions that extend the tokens chosen so far. The first token of each decision is always asked; a later
token is asked only when there is a choice, a forced one being appended by itself. When the tokens name one
legal action it is applied to the engine. Sealed and simultaneous choices (several seats in `to_act()`) are
asked seat by seat in ascending order; each is applied to the engine as soon as it is complete, and the
engine keeps it hidden from the other seats' views until it is revealed, so it is a hidden move.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Sequence
from functools import cache
from typing import Any

import engine
from engine.core import Action, State

END = "END"
Tokens = tuple[int, ...]


def _value_key(value: Any) -> str:
    """A field value as its token label: its JSON ("AMS" quoted, 300, true, null), so 1 and "1" differ."""
    return json.dumps(value)


def _aeroplanes_domains(max_players: int) -> tuple[dict[str, list[Any]], dict[str, int]]:
    from engine.aeroplanes.actions import KINDS
    from engine.aeroplanes.data import ADVANTAGE_TYPES, DATA, START_CITIES

    dests = [d.id for d in DATA.destinations]
    cards = [c.number for c in DATA.cards]
    types = list(ADVANTAGE_TYPES)
    return {
        "choose_home.city": list(START_CITIES),
        "choose_action.kind": list(KINDS),
        "buy_aircraft.card": cards,
        "buy_aircraft.extra": [False, True],
        "place_tile.card": cards,
        "place_tile.target": dests,
        "place_tile.replace": [None, *range(max_players)],
        "choose_route.source": dests,
        "choose_route.via": [None, *dests],
        "claim_passenger.tile": [p.id for p in DATA.passengers],
        "claim_passenger.card": cards,
        "take_advantage.kind": types,
        "pick_advantage_dice.first": types,
        "pick_advantage_dice.second": types,
    }, {}


def _opensky_domains(max_players: int) -> tuple[dict[str, list[Any]], dict[str, int]]:
    from engine.opensky.board import BOARDS
    from engine.opensky.constants import AIRCRAFT, FARES

    airports = sorted({c for b in BOARDS.values() for c in b.codes})
    routes = sorted({r for b in BOARDS.values() for r in b.route_codes})
    return {
        "place_callsign.airport": airports,
        "place_aircraft.route": routes,
        "place_hub.airport": airports,
        "choose_market.origin": airports,
        "choose_market.destination": airports,
        "bid.fare": list(FARES),
        "bid.itinerary": airports,
        "flash_deal.fare": list(FARES),
        "add_ancillaries.tokens": [0, 1, 2, 3],
        "lease.aircraft": list(range(max(AIRCRAFT.values()) + 1)),
        "lease.cards": list(FARES),
    }, {"bid.itinerary": max(len(b.codes) for b in BOARDS.values()), "lease.cards": 2 * len(FARES)}


def _blueskies_domains(max_players: int) -> tuple[dict[str, list[Any]], dict[str, int]]:
    from engine.blueskies.actions import CODES
    from engine.blueskies.data import BOARD

    codes = list(CODES)
    fields = ("buy_gate.airport", "buyout.airport", "play_card.airport", "special.airport", "help.airport")
    return {**{f: codes for f in fields}, "discard.cards": codes}, {"discard.cards": BOARD.hand_size}


_DOMAINS = {"aeroplanes": _aeroplanes_domains, "opensky": _opensky_domains, "blueskies": _blueskies_domains}


class ActionTable:
    """One game's token vocabulary and the encoding of its actions as token sequences."""

    def __init__(self, name: str):
        game = engine.get(name)
        self.name = name
        domains, tuple_max = _DOMAINS[name](game.max_players)
        classes = {cls.TYPE: cls for cls in game.codec._classes.values()}
        self.fields: dict[str, list[tuple[str, bool]]] = {}  # type -> [(field, is_tuple)]
        values: dict[str, Any] = {}
        longest = 1
        for kind, cls in classes.items():
            hints = typing.get_type_hints(cls)
            spec = []
            length = 1
            for f in dataclasses.fields(cls):
                key = f"{kind}.{f.name}"
                if key not in domains:
                    raise ValueError(f"{name}: no token domain for action field {key}")
                is_tuple = typing.get_origin(hints[f.name]) is tuple
                spec.append((f.name, is_tuple))
                length += tuple_max[key] + 1 if is_tuple else 1
                for v in domains[key]:
                    values.setdefault(_value_key(v), v)
            self.fields[kind] = spec
            longest = max(longest, length)
        self.tuple_max = tuple_max
        #: the most tokens one action can take (bounds the adapters' game length)
        self.max_tokens = longest
        labels = [f"type:{t}" for t in classes] + [END] + sorted(values, key=lambda k: (type(values[k]).__name__, k))
        #: token id -> label: "type:<action type>", "END", or a field value's JSON
        self.tokens: list[str] = labels
        self.index = {label: i for i, label in enumerate(labels)}

    @property
    def size(self) -> int:
        return len(self.tokens)

    def encode(self, action: Action) -> Tokens:
        """The token sequence of an engine action; KeyError if a value is outside the vocabulary."""
        out = [self.index[f"type:{action.TYPE}"]]
        for field, is_tuple in self.fields[action.TYPE]:
            value = getattr(action, field)
            if is_tuple:
                limit = self.tuple_max[f"{action.TYPE}.{field}"]
                if len(value) > limit:
                    raise KeyError(f"{action.TYPE}.{field} has {len(value)} items, the table allows {limit}")
                out.extend(self.index[_value_key(v)] for v in value)
                out.append(self.index[END])
            else:
                out.append(self.index[_value_key(value)])
        return tuple(out)

    def label(self, token: int) -> str:
        return self.tokens[token]


@cache
def table(name: str) -> ActionTable:
    """The (immutable, shared) action table of a game."""
    return ActionTable(name)


class Cursor:
    """An engine state driven one token at a time: whose turn, which tokens are legal, apply one.

    `prefix` holds the tokens the seat to act has chosen so far in its current decision; the engine state
    changes only when they complete an action. Copying or pickling a cursor copies the engine state (pickled
    as its JSON, so a pickled cursor is the full game state, RNG included).
    """

    def __init__(self, state: State, prefix: Tokens = ()):
        self.state = state
        self.table = table(state.game.name)
        self.prefix: Tokens = prefix
        self._sequences: list[tuple[Tokens, Action]] | None = None

    # -- copying -----------------------------------------------------------------------------------

    def copy(self) -> Cursor:
        out = Cursor(self.state.clone(), self.prefix)
        out._sequences = self._sequences  # immutable tuples, shared until the engine state moves
        return out

    def __deepcopy__(self, memo: dict) -> Cursor:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        return {"game": self.state.game.name, "state": self.state.to_json(), "prefix": list(self.prefix)}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__init__(engine.get(data["game"]).from_json(data["state"]), tuple(data["prefix"]))  # type: ignore[misc]

    # -- the decision ------------------------------------------------------------------------------

    def seat(self) -> int | None:
        """The seat asked now (the lowest of `to_act()`), None once the game is over."""
        seats = self.state.to_act()
        return seats[0] if seats else None

    def _legal(self) -> list[tuple[Tokens, Action]]:
        if self._sequences is None:
            seat = self.seat()
            actions = [] if seat is None else self.state.legal_actions(seat)
            self._sequences = [(self.table.encode(a), a) for a in actions]
        return self._sequences

    def _candidates(self, prefix: Tokens) -> list[tuple[Tokens, Action]]:
        n = len(prefix)
        return [(s, a) for s, a in self._legal() if s[:n] == prefix]

    def completions(self) -> list[Action]:
        """The legal engine actions the tokens chosen so far extend (every legal action before the first)."""
        return [a for _, a in self._candidates(self.prefix)]

    def legal_tokens(self) -> list[int]:
        """The integers the seat to act may choose now, ascending; [] once the game is over."""
        n = len(self.prefix)
        return sorted({s[n] for s, _ in self._candidates(self.prefix)})

    def step(self, token: int) -> Action | None:
        """Choose one token; returns the engine action it completed and applied, else None.

        ValueError (nothing changed) if the token is not legal now."""
        prefix = (*self.prefix, int(token))
        candidates = self._candidates(prefix)
        if not candidates:
            raise ValueError(f"token {token} ({self._label(token)}) is not legal now")
        while True:
            if len(candidates) == 1 and len(candidates[0][0]) == len(prefix):
                action = candidates[0][1]
                self.state.apply(self.seat(), action)  # type: ignore[arg-type]
                self.prefix = ()
                self._sequences = None
                return action
            following = {s[len(prefix)] for s, _ in candidates}
            if len(following) > 1:
                self.prefix = prefix
                return None
            prefix = (*prefix, following.pop())  # forced: the only way on

    def pending(self) -> list[str]:
        """The labels of the tokens chosen so far in the current decision."""
        return [self._label(t) for t in self.prefix]

    def _label(self, token: int) -> str:
        return self.table.label(token) if 0 <= int(token) < self.table.size else f"<{token}>"

    def describe_token(self, token: int) -> str:
        """A token in the context of the decision: the action type and the parts chosen before it."""
        return " ".join([*self.pending(), self._label(token)])


def rank_returns(scores: Sequence[int], winners: Sequence[int]) -> list[float]:
    """Returns by rank, pairwise: (seats beaten - seats beating) / (players - 1), in [-1, 1], summing to 0.

    Seat i beats seat j if its score is higher, or equal and i is a winner after the game's tie-break while j
    is not; other equal scores are ties."""
    n = len(scores)
    won = set(winners)

    def beats(i: int, j: int) -> bool:
        return scores[i] > scores[j] or (scores[i] == scores[j] and i in won and j not in won)

    return [
        sum((1 if beats(i, j) else -1 if beats(j, i) else 0) for j in range(n) if j != i) / (n - 1) for i in range(n)
    ]
