"""A game's state from its stored log: the engine replays it (no second copy of the rules), from a snapshot when
one replays, else from the seed. The service's reads, the archiver, the workers' loader and the web client's
replays of finished games share it.

A log entry is `{"v", "seat", "kind", "action", "at_ms"}`; an entry without an action (a resignation, an abort)
changes no state, and a take-back (kind "take_back", services/gamestate/takeback.py) returns the state to what it
was at version `restores`, which the replay kept when it passed that version."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from engine.core import Event, Game, State

log = logging.getLogger(__name__)

#: The kind of a take-back's log entry and stream entry.
TAKE_BACK = "take_back"


def taken_back_event(seat: int, restores: int) -> Event:
    """The public event of a take-back (the live stream's and a replay's): `seat` took back its decision(s), and
    the state is the one of version `restores` again."""
    return Event("taken_back", {"seat": seat, "restores": restores})


def from_snapshot(game: Game, snap_state: str, tail: list[str]) -> State | None:
    """Snapshot + log tail, or None if they do not replay (a damaged snapshot: rebuild from the log)."""
    try:
        state = game.from_json(json.loads(snap_state))
        return replay_entries(state, game, [json.loads(e) for e in tail])
    except Exception:
        log.exception("snapshot of a %s game does not replay; rebuilding from the log", game.name)
        return None


def replay_entries(state: State, game: Game, entries: list[dict[str, Any]]) -> State:
    """Apply log entries in order, `state` being the state just before the first; returns the state after the last
    (the same object unless a take-back replaced it)."""
    for after, _events in steps(state, game, entries):
        state = after
    return state


def steps(state: State, game: Game, entries: list[dict[str, Any]]) -> Iterator[tuple[State, list[Event]]]:
    """Each entry replayed: the state after it and the events it made (none for an entry without an action, the
    public `taken_back` for a take-back). ValueError for a take-back to a version before `state`'s."""
    wanted = {e["restores"] for e in entries if e.get("kind") == TAKE_BACK}
    kept: dict[int, State] = {}
    if wanted and entries:
        start = entries[0]["v"] - 1
        if start in wanted:
            kept[start] = state.clone()
    for entry in entries:
        events: list[Event] = []
        if entry.get("kind") == TAKE_BACK:
            earlier = kept.get(entry["restores"])
            if earlier is None:
                raise ValueError(f"log entry {entry['v']} takes back to version {entry['restores']}, "
                                 "before the replay's start")
            state = earlier.clone()
            events = [taken_back_event(entry["seat"], entry["restores"])]
        elif entry.get("action") is not None:
            events = state.apply(entry["seat"], game.action_from_json(entry["action"]))
        if entry.get("v") in wanted:
            kept[entry["v"]] = state.clone()
        yield state, events
