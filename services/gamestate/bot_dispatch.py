"""When bot seats must act: the re-dispatch timer a commit arms, queueing their moves, and re-queueing the moves
of games a lost task or a killed worker left waiting.

Why apart from bots.py: that module names the levels and the Celery transport and is imported by the workers;
this one is the service's side, on its store and metrics."""

from __future__ import annotations

import logging

from services.gamestate import metrics
from services.gamestate.bots import Dispatcher, human_waiting, level_budget_seconds
from services.gamestate.records import Meta
from services.gamestate.store import Store
from services.gamestate.wire import now_ms

log = logging.getLogger(__name__)


class BotDispatch:
    """Arms, queues and re-queues bot moves through a `Dispatcher` (Celery, or none)."""

    def __init__(self, store: Store, dispatcher: Dispatcher, redispatch_s: float):
        self.store = store
        self.dispatcher = dispatcher
        #: BOT_REDISPATCH_S: the margin past a level's think budget before its move is re-queued (0 = never)
        self.redispatch_s = redispatch_s

    def wait_ms(self, bots: dict[int, str], to_act: list[int]) -> int | None:
        """How long a game may wait on its bot seats before their move is re-queued: the slowest waiting
        level's think budget plus BOT_REDISPATCH_S (None: no bot seat must act, or re-dispatch is off).
        Commits arm this timer atomically with the new state, so no crash between a commit and queueing
        the bot move can leave a game waiting on a bot with nothing to wake it."""
        waiting = [s for s in to_act if s in bots]
        if not waiting or self.redispatch_s <= 0:
            return None
        think_s = max(level_budget_seconds(bots[s]) for s in waiting)
        return round((think_s + self.redispatch_s) * 1000)

    async def dispatch(self, meta: Meta, version: int, to_act: list[int], follow_up: bool = False) -> None:
        """Queue a bot_move for each bot seat in to_act (the commit that left them to act armed the timer), in the
        tier of services/common/bot_policy.py: a human waiting on it or not, after a bot's or the platform's commit
        (`follow_up`) or not."""
        human = human_waiting(meta.players, meta.bots, meta.resigned)
        for seat in (s for s in to_act if s in meta.bots):
            try:
                await self.dispatcher.dispatch(meta.game_id, seat, version, human, follow_up)
                metrics.BOT_DISPATCH.labels("queued").inc()
            except Exception:
                metrics.BOT_DISPATCH.labels("failed").inc()
                log.exception("could not queue a bot move for %s seat %s", meta.game_id, seat)

    async def redispatch_stalled(self) -> int:
        """Re-queue bot_move for games still waiting on a bot past their timer; returns how many.

        Each due entry is claimed by one instance, which moves it one period on rather than removing it (an
        instance killed after its claim leaves the timer); a duplicate task is harmless (stale versions exit,
        idempotency keys replay). It is queued as a first decision (services/common/bot_policy.py): nothing records
        the stalled task's tier, and a lost task's replacement still goes ahead of every bot-only game's."""
        sent = 0
        now = now_ms()
        for game_id in await self.store.due_bot_waits(now):
            next_due = now + round(self.redispatch_s * 1000)
            if not await self.store.claim_bot_wait(game_id, now, next_due):
                continue  # another instance took it
            meta = await self.store.meta(game_id)
            wait_ms = self.wait_ms(meta.bots, meta.to_act) if meta and meta.status == "active" else None
            if wait_ms is None:
                await self.store.release_bot_wait(game_id, next_due)
                continue
            await self.store.arm_bot_wait(game_id, now + wait_ms)  # the waiting level's budget + margin
            metrics.BOT_DISPATCH.labels("redispatched").inc()
            await self.dispatch(meta, meta.version, meta.to_act)
            sent += 1
        return sent
