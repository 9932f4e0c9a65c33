"""`python -m services.outcomes`: the outbox consumer (settings: services/outcomes/settings.py, GATEWAY_*).

Several can run at once: they share one consumer group, each entry goes to one of them, and a dead one's entries
are claimed by the others."""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import start_http_server

from services.accounts.keys import Keys as AccountKeys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.common.entry import configure_logging, run_until_signalled
from services.common.redis_clients import async_redis
from services.common.slot_transactions import cluster_ready
from services.gamestate.keys import Keys as GameKeys
from services.outcomes.consumer import Outcomes, run
from services.outcomes.settings import OutcomesSettings

log = logging.getLogger("services.outcomes")


async def serve(settings: OutcomesSettings, stop: asyncio.Event) -> None:
    accounts = async_redis(settings.redis_url, cluster=settings.redis_cluster)
    games_url = settings.gamestate_redis_url or settings.redis_url
    games = accounts if games_url == settings.redis_url else async_redis(games_url, cluster=settings.redis_cluster)
    engine = make_engine(settings.archive_url or "", pool_size=2)  # ratings are in SQL
    keys = AccountKeys(settings.key_prefix)
    ratings = Ratings(accounts, keys, AccountRepository(engine))
    consumer = Outcomes(
        games, GameKeys(settings.gamestate_key_prefix), accounts, keys, ratings,
        group=settings.outcomes_group, batch=settings.outcomes_batch,
        claim_idle_ms=round(settings.outcomes_claim_idle_s * 1000),
        events_maxlen=settings.account_events_maxlen, events_keep_s=settings.account_events_keep_s,
    )
    try:
        await cluster_ready(accounts)
        await run(consumer, stop, idle_poll_s=settings.outcomes_idle_poll_s)
    finally:
        await accounts.aclose()
        if games is not accounts:
            await games.aclose()
        await engine.dispose()


def main() -> None:
    configure_logging()
    settings = OutcomesSettings()
    if not settings.archive_url:
        raise SystemExit("skyboard outcomes: set GATEWAY_ARCHIVE_URL or ARCHIVE_URL (ratings are in SQL)")
    if settings.outcomes_metrics_port:
        start_http_server(settings.outcomes_metrics_port, addr="0.0.0.0")

    log.info("outcomes consumer of %s (group %s) for accounts under %s%s", settings.gamestate_key_prefix,
             settings.outcomes_group, settings.key_prefix, " (Redis Cluster)" if settings.redis_cluster else "")
    run_until_signalled(lambda stop: serve(settings, stop))


if __name__ == "__main__":
    main()
