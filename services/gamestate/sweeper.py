"""The turn-clock sweeper loop every instance runs.

It needs no leader: each expired decision is applied through the version
compare-and-set, so when several instances see the same expiry only one
default decision is recorded and the others find the version moved on.
"""

from __future__ import annotations

import asyncio
import logging

from services.gamestate import metrics
from services.gamestate.service import GameStateService

log = logging.getLogger(__name__)


async def run_sweeper(service: GameStateService, interval_s: float) -> None:
    """Sweep expired turn clocks every interval_s, and refresh the active-games gauge."""
    while True:
        try:
            await service.sweep_once()
            metrics.ACTIVE_GAMES.set(await service.store.count_active())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("turn-clock sweep failed")
        await asyncio.sleep(interval_s)
