"""`python -m services.tournament_director`: the tournament director (settings: settings.py beside this).

Several can run at once: they share one consumer group, each game end goes to one of them, a round is paired
once whoever tries, and a dead one's entries are claimed by the others."""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import start_http_server

from services.accounts.keys import Keys as AccountKeys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.common.credentials import check_secret
from services.common.entry import configure_logging, require_secret, run_until_signalled
from services.common.redis_clients import async_redis
from services.common.slot_transactions import cluster_ready
from services.gamestate.client import AsyncGameClient
from services.gamestate.keys import Keys as GameKeys
from services.tournament_director import metrics
from services.tournament_director.director import Director, run
from services.tournament_director.settings import DirectorSettings
from services.tournaments.store import TournamentStore

log = logging.getLogger("services.tournaments")


async def serve(settings: DirectorSettings, stop: asyncio.Event) -> None:
    accounts = async_redis(settings.redis_url, cluster=settings.redis_cluster)
    games_url = settings.gamestate_redis_url or settings.redis_url
    games = accounts if games_url == settings.redis_url else async_redis(games_url, cluster=settings.redis_cluster)
    engine = make_engine(settings.archive_url or "", pool_size=2)
    check_secret(settings.service_secret)
    gamestate = AsyncGameClient(settings.gamestate_addr, settings.gamestate_timeout_s)
    keys = AccountKeys(settings.key_prefix)
    director = Director(
        games, GameKeys(settings.gamestate_key_prefix), accounts, keys,
        Ratings(accounts, keys, AccountRepository(engine)), TournamentStore(engine), gamestate,
        settings.service_secret or "", bot_level=settings.bot_fill_level, group=settings.tournaments_group,
        batch=settings.outcomes_batch, claim_idle_ms=round(settings.outcomes_claim_idle_s * 1000),
        events_maxlen=settings.account_events_maxlen, events_keep_s=settings.account_events_keep_s,
    )
    try:
        await cluster_ready(accounts)
        await run(director, stop, idle_poll_s=settings.outcomes_idle_poll_s, tick_every_s=settings.tournaments_tick_s)
    finally:
        await gamestate.close()
        await accounts.aclose()
        if games is not accounts:
            await games.aclose()
        await engine.dispose()


def main() -> None:
    configure_logging()
    settings = DirectorSettings()
    require_secret("tournaments", settings.service_secret)
    if not settings.archive_url:
        raise SystemExit("skyboard tournaments: set GATEWAY_ARCHIVE_URL or ARCHIVE_URL (tournaments are in SQL)")
    if settings.tournaments_metrics_port:  # its own registry: not the outcomes consumer's metrics it is built on
        start_http_server(settings.tournaments_metrics_port, addr="0.0.0.0", registry=metrics.REGISTRY)

    log.info("tournament director of %s (group %s)", settings.gamestate_key_prefix, settings.tournaments_group)
    run_until_signalled(lambda stop: serve(settings, stop))


if __name__ == "__main__":
    main()
