"""What every call of the gateway's gRPC listener shares with a REST request: the caller's rate-limit buckets (the
same Redis keys, so REST and gRPC calls of one account or address draw on one budget), its API key, and one error
translation: a REST refusal (`ApiError`: status and code) becomes the gRPC status of the same meaning with details
`{"reason": <the REST code>, "message", "rule"}`, the shape of the game-state service's refusals."""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import grpc
from pydantic import ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.accounts.access import bot_holder
from services.accounts.rate_limits import RateLimiter
from services.gamestate.client import GameServiceError
from services.gamestate.public_port import peer_address
from services.gateway.auth import parse_bearer, required
from services.gateway.context import Context
from services.gateway.http.errors import SQL_UNAVAILABLE, ApiError, service_error

log = logging.getLogger(__name__)

#: gRPC status of each REST status (REST 502 and 503 are both "the backend is away": UNAVAILABLE, retry)
STATUS_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT, 401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED, 404: grpc.StatusCode.NOT_FOUND, 409: grpc.StatusCode.FAILED_PRECONDITION,
    413: grpc.StatusCode.INVALID_ARGUMENT, 422: grpc.StatusCode.INVALID_ARGUMENT,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED, 502: grpc.StatusCode.UNAVAILABLE, 503: grpc.StatusCode.UNAVAILABLE,
}


class Refusal(Exception):
    """A call refused with `code` and the JSON `details` (nothing changed)."""

    def __init__(self, code: grpc.StatusCode, details: str):
        super().__init__(details)
        self.code = code
        self.details = details


def details(reason: str, message: str, rule: str | None = None, **extra: object) -> str:
    return json.dumps({"reason": reason, "message": message, "rule": rule, **extra})


def validation_message(exc: ValidationError) -> str:
    """REST's 422 message of a request that does not validate (`field: why; ...`)."""
    parts = [f"{'.'.join(str(p) for p in err.get('loc', ())) or 'request'}: {err.get('msg', 'invalid')}"
             for err in exc.errors()[:5]]
    return "; ".join(parts) or "invalid request"


def refusal(exc: BaseException) -> Refusal:
    """The gRPC answer to what a call raised, as REST answers it (errors.exception_response)."""
    if isinstance(exc, Refusal):
        return exc
    if isinstance(exc, GameServiceError):
        exc = service_error(exc)
    if isinstance(exc, ValidationError):
        return Refusal(grpc.StatusCode.INVALID_ARGUMENT, details("invalid_request", validation_message(exc)))
    if isinstance(exc, ApiError):
        return Refusal(STATUS_CODES.get(exc.status, grpc.StatusCode.INTERNAL),
                       details(exc.code, exc.message, exc.rule, **exc.extra))
    if isinstance(exc, (RedisConnectionError, RedisTimeoutError, *SQL_UNAVAILABLE)):
        log.warning("storage unavailable on a gRPC call: %s", exc.__class__.__name__)
        return Refusal(grpc.StatusCode.UNAVAILABLE, details("unavailable", "storage is unavailable; retry"))
    log.error("unhandled error on a gRPC call", exc_info=exc)
    return Refusal(grpc.StatusCode.INTERNAL, details("internal", "internal error"))


class Calls:
    """The caller of a call: counted against REST's rate limits, and the account of its API key."""

    def __init__(self, c: Context):
        s = c.settings
        self.ctx = c
        self.limiter = RateLimiter(c.redis, c.keys, s.rate_limit_ip, s.rate_limit_token, s.rate_limit_window_s,
                                   s.rate_limit_ip_ceiling, s.rate_limit_bot_token,
                                   api_key_owner=c.players.authenticate,
                                   seat_holder=functools.partial(bot_holder, c.redis, c.keys, c.accounts_db))

    @staticmethod
    def bearer(context: grpc.aio.ServicerContext) -> str | None:
        """The `authorization: Bearer <token>` metadata (None without one); UNAUTHENTICATED if malformed."""
        for key, value in context.invocation_metadata() or ():
            if key == "authorization":
                return parse_bearer(value if isinstance(value, str) else value.decode(errors="replace"))
        return None

    async def admit(self, context: grpc.aio.ServicerContext) -> None:
        """Count the call as REST counts a request (RESOURCE_EXHAUSTED `rate_limited` once a bucket is empty)."""
        verdict = await self.limiter.check_caller(peer_address(context.peer()), self.bearer(context))
        if verdict is not None and verdict.exceeded:
            self.ctx.metrics.rate_limited.inc()
            raise Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, details(
                "rate_limited", f"rate limit exceeded: {verdict.limit} requests per {verdict.window_s} s for "
                f"{verdict.scope}; retry after {verdict.reset_s} s", retry_after_s=verdict.reset_s))

    async def player(self, context: grpc.aio.ServicerContext) -> str:
        """The player whose API key made the call; UNAUTHENTICATED without one that works."""
        token = required(self.bearer(context))
        return await self.ctx.player(token)


def unary(rpc: str) -> Callable:
    """A unary handler of the servicer (which has `calls: Calls`): counted against the rate limits first, its
    refusals as gRPC statuses, its latency and status code in the gateway's metrics."""

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        async def run(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
            start = time.perf_counter()
            code = grpc.StatusCode.OK
            try:
                await self.calls.admit(context)
                return await fn(self, request, context)
            except Exception as exc:
                if isinstance(exc, grpc.aio.AbortError):
                    raise
                answer = refusal(exc)
                code = answer.code
                await context.abort(answer.code, answer.details)
            finally:
                metrics = self.calls.ctx.metrics
                metrics.rpc_latency.labels(rpc).observe(time.perf_counter() - start)
                metrics.rpc_calls.labels(rpc, code.name).inc()

        return run

    return wrap
