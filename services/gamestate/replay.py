"""A game's state from its stored log: the engine replays it (no second copy of the rules), from a snapshot when
one replays, else from the seed. The service's reads, the archiver and the workers' loader share it."""

from __future__ import annotations

import json
import logging
from typing import Any

from engine.core import Game, State

log = logging.getLogger(__name__)


def from_snapshot(game: Game, snap_state: str, tail: list[str]) -> State | None:
    """Snapshot + log tail, or None if they do not replay (a damaged snapshot: rebuild from the log)."""
    try:
        state = game.from_json(json.loads(snap_state))
        return replay_entries(state, game, [json.loads(e) for e in tail])
    except Exception:
        log.exception("snapshot of a %s game does not replay; rebuilding from the log", game.name)
        return None


def replay_entries(state: State, game: Game, entries: list[dict[str, Any]]) -> State:
    """Apply log entries in order (entries without an action, e.g. resignations, change no state)."""
    for entry in entries:
        if entry.get("action") is not None:
            state.apply(entry["seat"], game.action_from_json(entry["action"]))
    return state
