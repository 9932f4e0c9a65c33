"""A game's record (services/common/game_record.py) as the messages the service answers: `GameView` (GetGame) and
`GameSummary` (the listings).

A message field named as a record field (by its Python name, services/gamestate/pb_records.python_name: `reserves_ms`
is the record's `reserves`) is the record's value as it is; only the fields computed for the reply are written here
(`VIEW_DERIVED`, `SUMMARY_DERIVED`). So a field added to the .proto and to the record under one name needs no line
here, and tests/services/test_game_record_codecs.py fails while a message field is neither.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from services.gamestate import takeback
from services.gamestate.endings import seat_states
from services.gamestate.pb import pb2
from services.gamestate.pb_records import python_name
from services.gamestate.records import Meta
from services.gamestate.service import ViewData
from services.gamestate.status import game_status, result_places, result_winners
from services.gamestate.wire import dumps


def _seats(meta: Meta) -> list[pb2.SeatState]:
    return [pb2.SeatState(seat=s, kind=k, status=st, bot_level=b, player_id=meta.seat_players.get(s, ""))
            for s, k, st, b in seat_states(meta)]


def _control_pb(obj: dict | None) -> pb2.TimeControl | None:
    if not obj:
        return None
    return pb2.TimeControl(kind=obj["kind"], seconds_per_decision=obj.get("seconds_per_decision", 0.0),
                           reserve_seconds=obj.get("reserve_seconds", 0.0),
                           days_per_decision=obj.get("days_per_decision", 0))


def _may_take_back(v: ViewData) -> bool:
    """Whether the viewing seat may take back its last decision at this version (services/gamestate/takeback.py)."""
    meta = v.meta
    return (v.seat is not None and v.version == meta.version and not meta.ended
            and takeback.refusal(meta.undo, v.seat) is None)


def _digest(v: ViewData, over: bool) -> str:
    """The hash of the full state at the view's version, hidden information included: a seat's view carries it, a
    spectator's only once the game has ended (GetLog publishes the final one then; the log replays every other)."""
    if v.seat is None and not over:
        return ""
    return v.meta.digest if v.version == v.meta.version else v.state.digest()


def _current(v: ViewData, status: str) -> bool:
    """The view is of the game's latest version, which still runs: its clocks are the game's."""
    return v.version == v.meta.version and status == "active"


#: GameView fields computed for a view (v, its status); each other field is the record's
VIEW_DERIVED: dict[str, Callable[[ViewData, str], Any]] = {
    "version": lambda v, status: v.version,
    "status": lambda v, status: status,
    "to_act": lambda v, status: [] if status != "active" else v.state.to_act(),
    "seat": lambda v, status: v.seat,
    "view_json": lambda v, status: dumps(v.state.view(v.seat)),
    "scores": lambda v, status: [] if status == "aborted" else v.state.scores(),
    "winners": lambda v, status: result_winners(v.state, v.meta.forfeited) if status == "finished" else [],
    "places": lambda v, status: result_places(v.state, v.meta.forfeited) if status == "finished" else [],
    "options_json": lambda v, status: json.dumps(v.meta.options),
    "turn_seconds": lambda v, status: v.meta.clock_ms / 1000,
    "deadline_ms": lambda v, status: v.meta.deadline_ms if _current(v, status) else 0,
    "digest": lambda v, status: _digest(v, status != "active"),
    "deadlines_ms": lambda v, status: v.meta.deadlines if _current(v, status) else {},
    "time_control": lambda v, status: _control_pb(v.meta.time_control),
    "seats": lambda v, status: _seats(v.meta),
    "take_back": lambda v, status: _may_take_back(v),
}

#: GameSummary fields computed from the record (a spectator's GameView of it at its version, but the view)
SUMMARY_DERIVED: dict[str, Callable[[Meta], Any]] = {
    "to_act": lambda m: [] if m.ended else m.to_act,
    "time_control": lambda m: _control_pb(m.time_control),
    "scores": lambda m: [] if m.status == "aborted" else m.scores,
    "winners": lambda m: m.winners if m.status == "finished" else [],
    "deadlines_ms": lambda m: {} if m.ended else m.deadlines,
    "seats": _seats,
}


def copied(message: Descriptor, computed: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(message field, record field) for every field of `message` not `computed`."""
    skip = set(computed)
    return tuple((f.name, python_name(f)) for f in message.fields if f.name not in skip)


@cache
def _copied(message: type[Message], computed: frozenset[str]) -> tuple[tuple[str, str], ...]:
    return copied(message.DESCRIPTOR, computed)


def from_record(message: type[Message], record: Meta, computed: dict[str, Any]) -> Any:
    """A `message` of the record: the `computed` fields as given, each other the record's field of its name."""
    pairs = _copied(message, frozenset(computed))
    return message(**{name: getattr(record, attr) for name, attr in pairs}, **computed)


def view_of(v: ViewData) -> pb2.GameView:
    """GetGame's reply: the game as `v.seat` (None: a spectator) sees it at `v.version`."""
    status = game_status(v.meta, v.state)
    return from_record(pb2.GameView, v.meta, {name: f(v, status) for name, f in VIEW_DERIVED.items()})


def summary_of(m: Meta, message: type[Message] = pb2.GameSummary) -> pb2.GameSummary:
    """A game as its metadata says it at its version (what a spectator's GameView says of it, but the view); `message`:
    the GameSummary class (tests/services/test_pb_records.py passes one with a field more)."""
    return from_record(message, m, {name: f(m) for name, f in SUMMARY_DERIVED.items()})
