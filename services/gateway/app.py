"""The FastAPI app factory of the REST gateway.

One pure-ASGI middleware (`edge.Edge`): metrics, CORS, body size limit, rate limits, and the hot path
of the two move calls; FastAPI serves everything else.
The game-state client and Redis can be injected (tests) or are built from the
settings; the app closes only what it built.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from fastapi import FastAPI

from services.accounts.keys import Keys
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.archive.migrate import upgrade
from services.archive.repository import ArchiveRepository
from services.common import boundedjson
from services.common.credentials import check_secret
from services.common.redis_clients import async_redis
from services.common.slot_transactions import cluster_ready
from services.gamestate.client import AsyncGameClient
from services.gateway.context import Context
from services.gateway.domain.players import Players
from services.gateway.http.edge import Edge
from services.gateway.http.errors import install_error_handlers
from services.gateway.metrics import GatewayMetrics, serve_metrics
from services.gateway.openapi import docs_page
from services.gateway.openapi import types as openapi_types
from services.gateway.routes import (
    challenges,
    games,
    leaderboard,
    matchmaking,
    ops,
    players,
    tournaments,
    webclient,
    webhooks,
)
from services.gateway.rpc import server as rpc_server
from services.gateway.settings import GatewaySettings
from services.matchmaker.store import TicketStore

DESCRIPTION = f"""REST gateway of Skyboard. Every game call goes to the game-state service.

Errors always have the body `{{"error": {{"code", "message", "rule"}}}}`. Seat tokens and player API keys
travel as `Authorization: Bearer <secret>`. Creating a game needs a player's API key (`POST /v1/players`
makes one); the game counts against that player's quotas (429 `quota_exceeded`).

JSON bodies must be UTF-8 JSON nested at most {boundedjson.MAX_DEPTH} levels deep, with integers within
-2**63..2**64-1 and without lone UTF-16 surrogates, NaN or Infinity; any other is refused with 422 before
anything else is checked (a larger body is 413). A wrong method is 405 with `Allow` listing the methods the
path takes."""


def create_app(
    settings: GatewaySettings | None = None,
    *,
    redis: aioredis.Redis | None = None,
    gamestate: AsyncGameClient | None = None,
) -> FastAPI:
    settings = settings or GatewaySettings()
    if not settings.archive_url:
        raise ValueError("the gateway needs its SQL database: set GATEWAY_ARCHIVE_URL or ARCHIVE_URL "
                         "(`make run` uses a SQLite file under .skyboard/)")
    own_redis = redis is None
    own_gamestate = gamestate is None
    # redis-py 8 caps a pool at 100 connections (then MaxConnectionsError); concurrent requests need more
    redis = redis or async_redis(settings.redis_url, cluster=settings.redis_cluster, max_connections=10_000,
                                 client_name=settings.redis_client_name or None)
    if gamestate is None:
        check_secret(settings.service_secret)  # GameAdmin calls need it: refuse to start without one
        gamestate = AsyncGameClient(settings.gamestate_addr, settings.gamestate_timeout_s)
    keys = Keys(settings.key_prefix)
    metrics = GatewayMetrics()
    engine = make_engine(settings.archive_url)  # one pool for the accounts and the archive
    accounts_db = AccountRepository(engine)
    context = Context(
        settings=settings, redis=redis, keys=keys, gamestate=gamestate, players=Players(redis, keys, accounts_db),
        ratings=Ratings(redis, keys, accounts_db), tickets=TicketStore(
            redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s, secret=settings.service_secret
        ),
        metrics=metrics, accounts_db=accounts_db, archive=ArchiveRepository(engine),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        await cluster_ready(redis)
        # /openapi.json built once here, before the first request, never inside one (docs/decisions/accounts.md):
        # about a second of CPU, most of it FastAPI's own part (the engines' view and event schemas come from their
        # declarations: no game is played)
        _app.openapi()
        if settings.migrate:
            await upgrade(engine)  # idempotent (PostgreSQL: replicas take turns under an advisory lock)
        exporter = serve_metrics(metrics, settings.metrics_host, settings.metrics_port)
        rpc = await rpc_server.start(context)  # TournamentService on GATEWAY_GRPC_PORT, in this event loop
        try:
            yield
        finally:
            if rpc is not None:
                await rpc.stop()
            await context.account_readers.stop()
            if exporter is not None:
                exporter.shutdown()
                exporter.server_close()
            if own_gamestate:
                await gamestate.close()
            if own_redis:
                await redis.aclose()
            await engine.dispose()

    app = FastAPI(title="Skyboard REST gateway", version="1.0.0", description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)  # /docs: docs_page serves Swagger UI from the package; no ReDoc
    app.state.ctx = context
    install_error_handlers(app)
    for routes in (games, webhooks, players, challenges, matchmaking, leaderboard, tournaments, ops):
        app.include_router(routes.router)
    openapi_types.install(app)
    docs_page.install(app)
    webclient.install(app)  # the web client (services/webclient): its helper routes, its static files as the fallback
    app.add_middleware(Edge, ctx=context, cors_origins=settings.cors_origins)
    return app
