"""Bot levels and the dispatch of bot decisions to Celery workers.

The service never decides for a bot: when a bot seat is in to_act after
creation or an accepted action, it queues the task `skyboard.bot_move`
(game_id, seat, version) by name. The worker (services/workers/) loads the
state, thinks and submits with expected_version, so stale or duplicate tasks
are harmless.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from typing import Protocol

from services.common.bot_policy import SENT_AT, priority

log = logging.getLogger(__name__)

#: The bot level names creation accepts (the REST contract's names) when the ai package is absent.
BOT_LEVELS: tuple[str, ...] = ("random", "greedy", "mcts-easy", "fast", "mcts-normal", "mcts-hard")

BOT_MOVE_TASK = "skyboard.bot_move"


@functools.cache
def bot_levels() -> tuple[str, ...]:
    """Known levels: the ai package's `ai.levels()` when it is installed, else BOT_LEVELS."""
    try:
        from ai import levels
    except ImportError:
        return BOT_LEVELS
    return tuple(levels())


@functools.cache
def bot_level_details_json(games: tuple[str, ...]) -> str:
    """The catalog's `bot_level_details_json`: `ai.level_figures.level_details` for `games` ("[]" when ai is absent)."""
    try:
        from ai.level_figures import level_details
    except ImportError:
        return "[]"
    return json.dumps(level_details(list(games)))


@functools.cache
def level_budget_seconds(level: str) -> float:
    """The default think time of a level (0 for levels that do not search or when ai is absent); fixed per
    level, and asked on every commit that leaves a bot to act."""
    try:
        from ai import default_budget, levels
    except ImportError:
        return 0.0
    budget = default_budget(level) if level in levels() else None
    return (budget.seconds or 0.0) if budget else 0.0


def human_waiting(players: int, bots: dict[int, str], resigned: list[int] | tuple[int, ...]) -> bool:
    """Whether a game's bot decision keeps a person waiting: some seat is neither a bot nor resigned."""
    return any(seat not in bots and seat not in resigned for seat in range(players))


class Dispatcher(Protocol):
    async def dispatch(
        self, game_id: str, seat: int, version: int, human: bool = True, follow_up: bool = False
    ) -> None: ...


class CeleryDispatcher:
    """Queues skyboard.bot_move on the Celery app's broker (by task name, no worker import) at the priority of
    services/common/bot_policy.py: 0 for a follow-up a human waits on (`follow_up`: queued by a bot's or the platform's
    commit; with `follow_ups_first` off, BOT_FOLLOW_UPS_FIRST=false, as a first decision), 3 for a first decision
    a human waits on, 9 in a game of bots only; with the time it was queued in the `sent_at` header (the workers'
    and the exporter's queue age)."""

    def __init__(self, celery_app, queue: str, follow_ups_first: bool = True):
        self._app = celery_app
        self._queue = queue
        self.follow_ups_first = follow_ups_first

    async def dispatch(
        self, game_id: str, seat: int, version: int, human: bool = True, follow_up: bool = False
    ) -> None:
        await asyncio.to_thread(
            self._app.send_task, BOT_MOVE_TASK, args=[game_id, seat, version], queue=self._queue,
            priority=priority(human, follow_up, self.follow_ups_first), headers={SENT_AT: time.time()},
        )


class NoDispatcher:
    """Used when DISPATCH_BOTS is false: bot seats wait for whoever drives them."""

    async def dispatch(
        self, game_id: str, seat: int, version: int, human: bool = True, follow_up: bool = False
    ) -> None:
        log.debug("bot dispatch disabled: %s seat %s at version %s", game_id, seat, version)
