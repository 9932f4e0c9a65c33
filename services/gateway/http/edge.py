"""The gateway's one pure-ASGI middleware: security headers, metrics, CORS, body size, rate limits, hot path.

Why one layer: each ASGI middleware costs a coroutine frame, a wrapped `send` and a trip through
Starlette per request; the gateway had four of them (metrics, CORS, body size, rate limit) on every
call. In order, outermost first: the security headers on every answer (`security_headers`); latency and
request metrics per route template; CORS when configured (Starlette's CORSMiddleware, around the rest); the
body size limit (413, before anything parses the body); the rate limits (429); JSON bodies parsed within
services.common.boundedjson's limits (422, see `jsonbody`); then the two move calls on the hot path
(`hot.HotRoutes`) or the FastAPI app for everything else.
"""

from __future__ import annotations

import functools
import time

from fastapi.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.accounts.access import bot_holder
from services.accounts.rate_limits import RateLimiter
from services.common.boundedjson import JsonRefused
from services.gateway.context import Context
from services.gateway.http import jsonbody
from services.gateway.http.hot import HotRoutes
from services.gateway.http.limits import (
    TooLarge,
    check,
    declared_size_ok,
    exempt,
    rate_limited,
    read_body,
    replay,
    too_large,
)
from services.gateway.http.security_headers import secured
from services.gateway.metrics import route_template


def _with_headers(send: Send, headers: dict[str, str]) -> Send:
    """`send` that adds `headers` to the response start (every answer carries its rate-limit standing)."""
    extra = [(k.lower().encode(), v.encode()) for k, v in headers.items()]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


class Edge:
    """Wraps the FastAPI routes (added with `app.add_middleware(Edge, ctx=..., cors_origins=...)`)."""

    def __init__(self, app: ASGIApp, ctx: Context, cors_origins: list[str] | None = None):
        self.app = app
        self.metrics = ctx.metrics
        settings = ctx.settings
        self.max_bytes = settings.max_body_bytes
        self.limiter = RateLimiter(ctx.redis, ctx.keys, settings.rate_limit_ip, settings.rate_limit_token,
                                   settings.rate_limit_window_s, settings.rate_limit_ip_ceiling,
                                   settings.rate_limit_bot_token, api_key_owner=ctx.players.authenticate,
                                   seat_holder=functools.partial(bot_holder, ctx.redis, ctx.keys, ctx.accounts_db))
        self.hot = HotRoutes(ctx)
        self.guarded: ASGIApp = self._guarded
        if cors_origins:
            self.guarded = CORSMiddleware(
                self._guarded, allow_origins=cors_origins, allow_methods=["GET", "POST", "DELETE"],
                allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
                expose_headers=["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"],
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        secure_send = secured(send)

        async def observing_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await secure_send(message)

        try:
            await self.guarded(scope, receive, observing_send)
        finally:
            route = route_template(scope)
            method = scope.get("method", "")
            self.metrics.latency.labels(method, route).observe(time.perf_counter() - start)
            self.metrics.requests.labels(method, route, str(status)).inc()
            if status == 429:
                self.metrics.rate_limited.inc()

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not declared_size_ok(scope, self.max_bytes):
            await too_large(self.max_bytes)(scope, receive, send)
            return
        try:
            body = await read_body(receive, self.max_bytes)
        except TooLarge:
            await too_large(self.max_bytes)(scope, receive, send)
            return
        if body is None:
            return  # the client went away
        if not exempt(scope):
            verdict = await check(self.limiter, scope)
            if verdict is not None:
                if verdict.exceeded:
                    await rate_limited(verdict)(scope, receive, send)
                    return
                send = _with_headers(send, verdict.headers())
        try:
            document = jsonbody.parse(scope, body, self.max_bytes)
        except JsonRefused as exc:
            await jsonbody.refused(exc)(scope, receive, send)
            return
        if await self.hot.serve(scope, document, receive, send) is None:
            await self.app(scope, replay(body, receive), send)
