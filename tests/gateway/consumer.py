"""An outbox consumer (services/outcomes/) in a thread of its own, for the tests' gateways: what follows every
committed version (your_turn / game_end on the account streams, seats marked ended, ratings settled, challenges
expired) is done by it alone, as by `python -m services.outcomes` beside a deployed gateway."""

from __future__ import annotations

import asyncio
import threading

from services.accounts.keys import Keys as AccountKeys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.common.redis_clients import async_redis
from services.gamestate.keys import Keys as GameKeys
from services.gateway.settings import GatewaySettings
from services.outcomes.consumer import Outcomes, run
from tests.redis_required import CLUSTER


class OutcomesThread:
    """One consumer of the outbox under `games_prefix` (the game-state service's KEY_PREFIX, on the gateway's Redis)
    for the accounts of the gateway configured by `settings`. Its group is named after the gateway's key prefix and
    starts at the streams' end ("$"), so it does only what is committed while it runs, for this gateway's accounts.
    `kw`: Outcomes' own arguments (claim_idle_ms, batch, start_id)."""

    def __init__(self, settings: GatewaySettings, games_prefix: str, **kw):
        self.loop = asyncio.new_event_loop()
        self.stop_event: asyncio.Event | None = None
        ready = threading.Event()
        failed: list[BaseException] = []

        async def main() -> None:
            self.stop_event = asyncio.Event()
            redis = async_redis(settings.redis_url, cluster=CLUSTER)
            engine = make_engine(settings.archive_url or "", pool_size=2)
            keys = AccountKeys(settings.key_prefix)
            self.consumer = Outcomes(redis, GameKeys(games_prefix), redis, keys,
                                     Ratings(redis, keys, AccountRepository(engine)), group=settings.key_prefix,
                                     events_maxlen=settings.account_events_maxlen,
                                     events_keep_s=settings.account_events_keep_s, **{"start_id": "$", **kw})
            try:
                await self.consumer.ensure_group()  # before the first commit it must see
            except BaseException as exc:
                failed.append(exc)
                raise
            finally:
                ready.set()
            try:
                await run(self.consumer, self.stop_event, idle_poll_s=0.05, claim_every_s=0.2, lag_every_s=0.2,
                          expire_every_s=0.2)
            finally:
                await redis.aclose()
                await engine.dispose()

        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(main(),), daemon=True)
        self.thread.start()
        assert ready.wait(30), "the outcomes consumer did not start"
        if failed:
            raise failed[0]

    def lag(self) -> tuple[int, float]:
        """(entries behind, age of the oldest) of this consumer's group."""
        return asyncio.run_coroutine_threadsafe(self.consumer.measure_lag(), self.loop).result(10)

    def stop(self) -> None:
        if self.stop_event is not None:
            self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(15)
