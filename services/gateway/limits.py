"""Request size limits (413) and per-IP / per-token rate limits in Redis (429).

Pure ASGI middleware so that it also guards streaming responses and runs
before any body is parsed. Rate limits use a fixed window counted atomically by
a Lua script, so several gateway processes share one budget. Tokens are keyed
by their SHA-256, never stored or logged in clear.
"""

from __future__ import annotations

import logging
import math
import time

from redis.asyncio import Redis
from redis.exceptions import RedisError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway.errors import error_response
from services.gateway.keys import Keys, token_hash

log = logging.getLogger(__name__)

EXEMPT_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})

# Counts every key of one request (per IP, per token) in ONE round trip: {n1, ttl1, n2, ttl2, ...}
_INCR = """
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  out[2 * i - 1] = n
  out[2 * i] = redis.call('PTTL', key)
end
return out
"""


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin-1").strip()
            if text[:7].lower() == "bearer ":
                return text[7:].strip() or None
    return None


class BodySizeLimit:
    """Refuses bodies above `max_bytes`, by Content-Length or by counting the stream."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > self.max_bytes:
                    await self._refuse(scope, receive, send)
                    return
        # Read the whole (small) body first, counting, then replay it: a chunked body over the limit
        # is refused before the app sees any of it.
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(413, f"request body larger than {self.max_bytes} bytes")
        await response(scope, receive, send)


class RateLimit:
    """Fixed-window limits per client IP and per bearer token, shared through Redis."""

    def __init__(self, app: ASGIApp, redis: Redis, keys: Keys, per_ip: int, per_token: int, window_s: int):
        self.app = app
        self.redis = redis
        self.keys = keys
        self.per_ip = per_ip
        self.per_token = per_token
        self.window_s = window_s
        self._script = redis.register_script(_INCR)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in EXEMPT_PATHS or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        retry_after = await self._check(scope)
        if retry_after is not None:
            response = error_response(
                429, "rate limit exceeded; retry later", headers={"Retry-After": str(retry_after)}
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _check(self, scope: Scope) -> int | None:
        window = int(time.time() // self.window_s)
        checks = []
        if self.per_ip:
            client = scope.get("client")
            ip = client[0] if client else "unknown"
            checks.append((self.keys.rate("ip", ip, window), self.per_ip))
        token = bearer_token(scope)
        if self.per_token and token:
            checks.append((self.keys.rate("tok", token_hash(token)[:32], window), self.per_token))
        if not checks:
            return None
        try:
            counted = await self._script(keys=[key for key, _ in checks], args=[self.window_s * 1000])
        except RedisError as exc:  # fail open: Redis trouble shows in /readyz, not as 429s
            log.warning("rate limiter unavailable: %s", exc.__class__.__name__)
            return None
        worst: int | None = None
        for i, (_key, limit) in enumerate(checks):
            count, ttl_ms = counted[2 * i], counted[2 * i + 1]
            if count > limit:
                wait = max(1, math.ceil(max(ttl_ms, 0) / 1000))
                worst = max(worst or 0, wait)
        return worst
