"""The sweeper loop every instance runs: turn clocks, stalled bot moves and inactive games.

It needs no leader: each expired decision is applied through the version
compare-and-set, so when several instances see the same expiry only one
default decision is recorded and the others find the version moved on.
"""

from __future__ import annotations

import asyncio
import logging
import time

from services.common.waits import rest
from services.gamestate import metrics
from services.gamestate.service import GameStateService

log = logging.getLogger(__name__)


#: How often the active-games gauge is refreshed (one ZCARD per bucket: not at every sweep).
GAUGE_EVERY_S = 5.0


async def run_sweeper(service: GameStateService, interval_s: float, stop: asyncio.Event) -> None:
    """Sweep expired turn clocks, stalled bot waits and inactive games every interval_s until `stop` is set;
    refresh the active-games gauge every GAUGE_EVERY_S. Each sweep reads every bucket's index (one pipeline per
    index: services/gamestate/keys.py)."""
    gauged = 0.0
    while not stop.is_set():
        try:
            await service.clock.sweep_once()
            await service.bots.redispatch_stalled()
            await service.endings.sweep_inactive()
            if time.monotonic() - gauged >= GAUGE_EVERY_S:
                metrics.ACTIVE_GAMES.set(await service.store.count_active())
                gauged = time.monotonic()
        except Exception:
            if stop.is_set():
                return
            log.exception("turn-clock sweep failed")
        await rest(stop, interval_s)
