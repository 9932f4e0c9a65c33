"""`python -m services.matchmaker`: the matchmaking loop (settings from GATEWAY_* variables).

Several can run at once: claims are atomic in Redis.
"""

from __future__ import annotations

import asyncio
import logging

from services.accounts.keys import Keys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.common.credentials import check_secret
from services.common.entry import configure_logging, require_secret, run_until_signalled
from services.common.redis_clients import async_redis
from services.common.slot_transactions import cluster_ready
from services.common.waits import rest
from services.gamestate.client import AsyncGameClient
from services.matchmaker.matcher import Matcher
from services.matchmaker.settings import MatchmakerSettings
from services.matchmaker.store import TicketStore

log = logging.getLogger("services.matchmaker")


async def run(settings: MatchmakerSettings, stop: asyncio.Event) -> None:
    redis = async_redis(settings.redis_url, cluster=settings.redis_cluster)
    keys = Keys(settings.key_prefix)
    engine = make_engine(settings.archive_url or "", pool_size=2)  # ratings are in SQL
    check_secret(settings.service_secret)
    gamestate = AsyncGameClient(settings.gamestate_addr, settings.gamestate_timeout_s)
    matcher = Matcher(
        TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s, secret=settings.service_secret),
        Ratings(redis, keys, AccountRepository(engine)), gamestate, settings,
    )
    try:
        await cluster_ready(redis)
        while not stop.is_set():
            try:
                await matcher.run_once()
            except Exception:  # keep matching after a transient Redis or service failure
                log.exception("matchmaking pass failed")
            await rest(stop, settings.mm_interval_s)
    finally:
        await gamestate.close()
        await redis.aclose()
        await engine.dispose()


def main() -> None:
    configure_logging()
    settings = MatchmakerSettings()
    require_secret("matchmaker", settings.service_secret)
    if not settings.archive_url:
        raise SystemExit("skyboard matchmaker: set GATEWAY_ARCHIVE_URL or ARCHIVE_URL (ratings are in SQL)")

    log.info("matchmaker on %s%s, game-state service %s", settings.key_prefix,
             " (Redis Cluster)" if settings.redis_cluster else "", settings.gamestate_addr)
    run_until_signalled(lambda stop: run(settings, stop))


if __name__ == "__main__":
    main()
