"""The engine contract every game implements.

A game is a `Game` (static description + factory) and a `State` (one position).
Callers never touch game internals: they ask who must act, list legal actions,
apply one, and read a per-seat view. Everything is deterministic from the seed,
serialisable to JSON, and redacted per seat.

Seats are numbered 0..players-1 in every game (a spec's "seat 1" is seat 0).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

JSON = Any  # a value made of dict/list/str/int/float/bool/None


class IllegalAction(Exception):
    """An action the rules forbid. Carries the spec's rule id (e.g. 'OS-10.2').

    Raising it must leave the state exactly as it was.
    """

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]" if self.rule else self.message


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Action:
    """Base for a game's actions: frozen dataclasses with a JSON `type` tag.

    Subclasses set `TYPE` and declare fields typed with int, str, bool,
    `X | None` or `tuple[X, ...]`; `ActionCodec` validates JSON against them.
    """

    TYPE: ClassVar[str] = ""

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def _check_value(value: Any, annotation: Any, where: str) -> Any:
    """Validate one JSON value against a field annotation; return the Python value."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(annotation)
        if value is None:
            if type(None) in options:
                return None
            raise ValueError(f"{where} must not be null")
        non_none = [a for a in options if a is not type(None)]
        errors = []
        for option in non_none:
            try:
                return _check_value(value, option, where)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError(errors[0])
    if origin is tuple:
        args = typing.get_args(annotation)
        if not isinstance(value, list):
            raise ValueError(f"{where} must be a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_check_value(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(value) != len(args):
            raise ValueError(f"{where} must have {len(args)} items")
        return tuple(_check_value(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
    if annotation is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be a boolean")
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where} must be an integer")
        return value
    if annotation is str:
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string")
        return value
    raise TypeError(f"unsupported action field type {annotation!r} at {where}")


class ActionCodec:
    """Turns action JSON into Action objects for one game, rejecting anything malformed.

    Well-formed but illegal actions are the rules' business (IllegalAction);
    this only guarantees shape: a known type, exactly the declared fields,
    each of the declared JSON type.
    """

    def __init__(self, action_classes: Iterable[type[Action]]):
        self._classes: dict[str, type[Action]] = {}
        self._fields: dict[str, list[tuple[str, Any]]] = {}
        for cls in action_classes:
            if not cls.TYPE or cls.TYPE in self._classes:
                raise TypeError(f"action class {cls.__name__} needs a unique TYPE")
            hints = typing.get_type_hints(cls)
            self._classes[cls.TYPE] = cls
            self._fields[cls.TYPE] = [(f.name, hints[f.name]) for f in dataclasses.fields(cls)]

    @property
    def types(self) -> list[str]:
        return list(self._classes)

    def decode(self, obj: Any) -> Action:
        if not isinstance(obj, Mapping):
            raise ValueError("an action must be a JSON object")
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise ValueError("an action needs a string field 'type'")
        cls = self._classes.get(kind)
        if cls is None:
            raise ValueError(f"unknown action type {kind!r}; known types: {', '.join(self._classes)}")
        fields = self._fields[kind]
        expected = {name for name, _ in fields}
        extra = set(obj) - expected - {"type"}
        if extra:
            raise ValueError(f"action {kind!r} has unknown field(s): {', '.join(sorted(map(str, extra)))}")
        missing = expected - set(obj)
        if missing:
            raise ValueError(f"action {kind!r} is missing field(s): {', '.join(sorted(missing))}")
        kwargs = {name: _check_value(obj[name], ann, f"{kind}.{name}") for name, ann in fields}
        return cls(**kwargs)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, chance outcomes included.

    `visible_to` is None for a public event, otherwise the seats allowed to see
    it. A game that must tell everyone *that* something happened but only some
    seats *what* emits two events: a public one and a private one.
    """

    type: str
    data: Mapping[str, JSON] = dataclasses.field(default_factory=dict)
    visible_to: tuple[int, ...] | None = None

    def visible(self, seat: int | None) -> bool:
        return self.visible_to is None or (seat is not None and seat in self.visible_to)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"type": self.type, **self.data}
        if self.visible_to is not None:
            out["visible_to"] = list(self.visible_to)
        return out


def redact_events(events: Iterable[Event], seat: int | None) -> list[dict[str, JSON]]:
    """The JSON of the events `seat` may see (None = spectator)."""
    return [e.to_json() for e in events if e.visible(seat)]


# --------------------------------------------------------------------------- RNG helpers


def rng_to_json(rng: random.Random) -> JSON:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def rng_from_json(obj: JSON) -> random.Random:
    try:
        version, internal, gauss = obj
        rng = random.Random()
        rng.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad RNG state: {exc}") from exc
    return rng


def clone_rng(rng: random.Random) -> random.Random:
    """An independent generator in the same state. Made without seeding: `random.Random()` seeds itself from
    os.urandom first (~10 us, most of an Aeroplanes state's clone, which the rules' lookahead makes thousands of
    times a decision), and `setstate` overwrites every word of it anyway."""
    copy = type(rng).__new__(type(rng))
    copy.setstate(rng.getstate())
    return copy


#: orjson options for canonical_json: sorted keys; subclasses and objects the stdlib would not take as they
#: are go to `_not_plain`, i.e. to the stdlib, which encodes or refuses them exactly as it always did
_CANONICAL = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def _not_plain(obj: Any) -> Any:
    raise TypeError(type(obj).__name__)


def canonical_json(obj: JSON) -> str:
    """The text digests hash: `json.dumps(obj, sort_keys=True, separators=(",", ":"))` (sorted keys, no
    spaces, ASCII with escapes).

    orjson writes it about four times faster (the service hashes the whole state at every commit); its text
    is used only where it is byte for byte the stdlib's: pure ASCII without DEL (the stdlib escapes non-ASCII
    and DEL, orjson does not) and without floats (orjson writes some exponents differently; a float's text
    always has a '.', 'e+' or 'e-', and text that merely looks like one just takes the stdlib). Integers past
    64 bits and non-string keys make orjson refuse, and the stdlib writes those too. NaN and infinities,
    which are not JSON and which no engine state holds, would be written as null.
    """
    try:
        out = orjson.dumps(obj, default=_not_plain, option=_CANONICAL)
    except TypeError:  # orjson.JSONEncodeError included
        return json.dumps(obj, sort_keys=True, separators=(",", ":"))
    if not out.isascii() or b"\x7f" in out or b"." in out or b"e+" in out or b"e-" in out:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return out.decode()


# --------------------------------------------------------------------------- where components are


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """What a seat's view tells about one place that holds components (a hand, a deck, a pile, a bag).

    Components are named by strings (e.g. a card's airport code) and counted, so identical copies are
    interchangeable. `size` is how many the place holds; `at_least` the components known to be there; and
    `at_most` every component it can hold (a name absent cannot be there), or None when the view bounds it
    only by what is not placed elsewhere.
    """

    size: int
    at_least: Mapping[str, int] = dataclasses.field(default_factory=dict)
    at_most: Mapping[str, int] | None = None

    def breach(self, held: Mapping[str, int]) -> str | None:
        """Why `held` (the place's true contents) contradicts this, or None if it does not."""
        size = sum(held.values())
        if size != self.size:
            return f"holds {size} components, the view says {self.size}"
        for name, count in self.at_least.items():
            if held.get(name, 0) < count:
                return f"holds {held.get(name, 0)} x {name}, the view says at least {count}"
        if self.at_most is not None:
            for name, count in held.items():
                if count > self.at_most.get(name, 0):
                    return f"holds {count} x {name}, the view says at most {self.at_most.get(name, 0)}"
        return None


# --------------------------------------------------------------------------- results


def places_of(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Each seat's place (1 = first) from rank keys, higher first: 1 + the seats whose key is strictly greater,
    so equal keys share a place and the next place is skipped (1, 1, 3)."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


# --------------------------------------------------------------------------- state and game


class State(ABC):
    """One position of one game. Mutable: `apply` changes it in place.

    Subclasses keep the whole state (RNG included) serialisable through
    `to_json`, and put the RNG state under the top-level key "rng" so that
    tests can tell hidden information apart from future chance.
    """

    game: Game
    num_players: int

    @abstractmethod
    def to_act(self) -> list[int]:
        """Seats that must decide now, ascending; several during sealed bids; [] iff over."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of `seat`, in a deterministic order; [] if it need not act."""

    @abstractmethod
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one decision, resolving chance from the state's RNG.

        Raises IllegalAction (state unchanged) if the rules forbid it.
        """

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, JSON]:
        """Everything `seat` may know and nothing else; None is a spectator."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def scores(self) -> list[int]:
        """Current scores per seat (final once the game is over)."""

    def rank_keys(self) -> list[tuple[int, ...]]:
        """Per seat, what the game's end ranks it by, higher first: its score, then the rules' tie-breaks in
        order. Seats with equal keys share a place (a full tie shares the victory). Default: the score alone."""
        return [(score,) for score in self.scores()]

    def winners(self) -> list[int]:
        """Winning seats after the game's tie-break (the seats first by `rank_keys`); [] while the game runs.
        The engine's own result, which knows nothing of seats that resigned: what players are shown is the
        platform's (services/common/standings.py), from the same keys."""
        if not self.is_over():
            return []
        return [seat for seat, place in enumerate(places_of(self.rank_keys())) if place == 1]

    @abstractmethod
    def to_json(self) -> dict[str, JSON]: ...

    @abstractmethod
    def clone(self) -> State: ...

    @abstractmethod
    def determinize(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with everything `seat` knows: hidden parts resampled, RNG reseeded.

        What the seat knows is its view; where it places components is `game.whereabouts(view(seat))`, and
        no determinization may put a component anywhere that contradicts it."""

    def holdings(self) -> dict[str, dict[str, int]]:
        """Where every component is, seen by no one in particular (for tests): place -> name -> count, places
        named as in `Game.whereabouts`. A determinization moves components between places but never makes or
        loses one. Default: no component is tracked."""
        return {}

    def default_action(self, seat: int) -> Action:
        """The decision taken for a seat whose turn clock expired. Games override
        this with their documented default (e.g. pass); the fallback is the first
        legal action."""
        actions = self.legal_actions(seat)
        if not actions:
            raise IllegalAction(f"seat {seat} has nothing to decide", None)
        return actions[0]

    def digest(self) -> str:
        """Stable hash of the full state (RNG included)."""
        return hashlib.sha256(canonical_json(self.to_json()).encode()).hexdigest()

    def check_seat(self, seat: Any) -> None:
        """Raise IllegalAction unless `seat` is a seat of this game."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise IllegalAction(f"seat {seat!r} is not a seat of this {self.num_players}-player game", None)


class Game(ABC):
    """Static description of a game and the factory of its states."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: JSON-able description of each option, for clients to build forms from.
    options: ClassVar[dict[str, dict[str, JSON]]] = {}
    #: Upper bound on decisions in one game, for playout tests and bots.
    max_game_length: ClassVar[int] = 10_000
    #: False for a game where no seat knows anything another seat does not (determinize then only
    #: reseeds the RNG, and the conformance suite does not expect hidden parts to be resampled).
    has_hidden_information: ClassVar[bool] = True
    codec: ClassVar[ActionCodec]
    #: The shape of `State.view`'s JSON, a seat's or a spectator's: a `TypedDict` declared in the game's package
    #: (typing only). The gateway derives the published JSON Schema from it, and the conformance suite checks
    #: every view of seeded games against it.
    view_type: ClassVar[type]
    #: Every event type the game emits -> the shape of its `Event.data` (a `TypedDict`, as `view_type`).
    event_types: ClassVar[Mapping[str, type]]

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Options with defaults filled in; ValueError naming any bad one."""
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ValueError("options must be a JSON object")
        unknown = set(options) - set(self.options)
        if unknown:
            known = ", ".join(self.options) or "none"
            raise ValueError(f"unknown option(s) {', '.join(sorted(map(str, unknown)))}; known: {known}")
        resolved = {}
        for key, spec in self.options.items():
            value = options.get(key, spec["default"])
            if value not in spec["choices"]:
                choices = ", ".join(map(str, spec["choices"]))
                raise ValueError(f"option {key!r} must be one of {choices}, not {value!r}")
            resolved[key] = value
        return resolved

    def check_players(self, players: Any) -> int:
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError("players must be an integer")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.title} takes {self.min_players}-{self.max_players} players, not {players}"
            )
        return players

    @abstractmethod
    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> State: ...

    @abstractmethod
    def from_json(self, obj: dict[str, JSON]) -> State: ...

    def whereabouts(self, view: Mapping[str, JSON]) -> dict[str, Whereabouts]:
        """What a view (a seat's or a spectator's) tells about where the game's components are, per place:
        sizes, components known to be there, and bounds. Read from the view alone, so it is exactly what
        that observer knows; `State.holdings` gives the truth to check it against. Default: nothing."""
        return {}

    def action_from_json(self, obj: Any) -> Action:
        """Decode an action's JSON form; ValueError if it is malformed."""
        return self.codec.decode(obj)

    def check_take_back(self, before: State, seat: int, action: Action, after: State) -> None:
        """Raise IllegalAction, citing the rule, unless `seat`'s decision `action`, which turned `before` into
        `after`, may be taken back: the game returns to `before` exactly, as Board Game Arena's undo does.

        Each game decides where take-back stops. A decision that resolved chance (a die, a card drawn, a
        shuffle), that revealed something hidden (a sealed bid opened) or that handed the decision to another
        seat can never be taken back: taking it back would let the seat reroll or unsee. What a game does not
        declare here is final; the default declares nothing. Callers add what no game decides: only the seat
        that decided may take it back, and only while no other change came after it (services/gamestate). A
        pure check of the two states: nothing is changed."""
        raise IllegalAction(f"{self.title} decisions cannot be taken back", None)

    def describe(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": self.options,
        }
