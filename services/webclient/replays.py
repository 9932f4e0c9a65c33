"""Replay steps of finished games, computed off the event loop once per (game, version, step) and kept in a
bounded LRU cache.

Why: a replay step re-runs the game's engine from the start (7-14 ms for a whole game), and anyone may ask for
it anonymously. Run in the event loop, every such request stalled every other request of the gateway; run
each time, a handful of clients could keep a core busy. A finished game's log never changes (its version is in
the key all the same), so one computation answers every later request; concurrent requests for the same step
share one computation; the cache holds at most `size` steps (GATEWAY_REPLAY_CACHE_SIZE).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from prometheus_client import Counter

import engine
from engine.core import redact_events
from services.gamestate.replay import steps

Key = tuple[str, int, int]


def replay_step(log: dict[str, Any], step: int) -> dict[str, Any]:
    """The public view of the logged game after its first `step` log entries, with step `step`'s action and events
    (CPU-bound: run in a worker thread). An entry without an action (a resignation, an abort) changes no state; a
    take-back returns to an earlier step's state (services/gamestate/replay.py)."""
    entries = log["actions"]
    game = engine.get(log["game"])
    state = game.new(log["players"], log["seed"], log["options"])
    events: list[dict[str, Any]] = []
    for after, made in steps(state, game, entries[:step]):
        state, events = after, redact_events(made, None)
    last = entries[step - 1] if step else None
    return {
        "game_id": log["game_id"], "game": log["game"], "players": log["players"], "step": step,
        "steps": len(entries), "seat": last["seat"] if last else None, "action": last["action"] if last else None,
        "events": events, "view": state.view(None), "to_act": state.to_act(), "scores": log["scores"],
        "winners": log["winners"],
    }


def replay_events(log: dict[str, Any]) -> dict[str, Any]:
    """Every public event of the logged game, each with the version its action made (the game's events stream
    redacted for a spectator, as the live stream sent it): what an archived game's end screen and event log read,
    since the archive keeps the log, not the events (CPU-bound: run in a worker thread)."""
    game = engine.get(log["game"])
    state = game.new(log["players"], log["seed"], log["options"])
    events: list[dict[str, Any]] = []
    # a resignation or an abort made no engine event (the live stream's platform events are not in the log); a
    # take-back made its public `taken_back`, as the live stream sent it
    for version, (_state, made) in enumerate(steps(state, game, log["actions"]), start=1):
        for event in redact_events(made, None):
            events.append({**event, "version": version})
    return {"game_id": log["game_id"], "game": log["game"], "version": len(log["actions"]), "events": events}


#: the cache key's step for a game's whole event list (replay_events) rather than one step
ALL_EVENTS = -1


class Replays:
    """The LRU cache of computed steps (one per gateway process)."""

    def __init__(self, size: int, computed: Counter):
        self.size = size
        self.computed = computed
        self._steps: OrderedDict[Key, asyncio.Future[dict[str, Any]]] = OrderedDict()

    async def step(self, log: dict[str, Any], step: int) -> dict[str, Any]:
        key = (log["game_id"], int(log["version"]), step)
        future = self._steps.get(key)
        if future is not None:
            self._steps.move_to_end(key)
        else:
            future = asyncio.ensure_future(self._compute(log, step))
            self._steps[key] = future
            while len(self._steps) > self.size:
                self._steps.popitem(last=False)
        try:
            return await asyncio.shield(future)  # a client going away does not cancel the shared computation
        except Exception:
            if self._steps.get(key) is future:
                del self._steps[key]  # a failed computation is not kept
            raise

    async def events(self, log: dict[str, Any]) -> dict[str, Any]:
        """The game's whole public event list (replay_events), cached as one more step of it."""
        return await self.step(log, ALL_EVENTS)

    async def _compute(self, log: dict[str, Any], step: int) -> dict[str, Any]:
        self.computed.inc()
        if step == ALL_EVENTS:
            return await asyncio.to_thread(replay_events, log)
        return await asyncio.to_thread(replay_step, log, step)
