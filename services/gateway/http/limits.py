"""Request size limits (413) and the rate limits' HTTP side (429), used by `edge.Edge`.

They run in pure ASGI so that they also guard streaming responses and run
before any body is parsed. The rate limiter itself (fixed windows in Redis, per
account, credential and address) is services/accounts/rate_limits.py, shared
with the game-state service's public gRPC port; here a request is read for it.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope

from services.accounts.rate_limits import RateLimiter, Verdict
from services.gateway.http.errors import error_response

EXEMPT_PATHS = frozenset({"/healthz", "/readyz"})


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin-1").strip()
            if text[:7].lower() == "bearer ":
                return text[7:].strip() or None
    return None


class TooLarge(Exception):
    """The request body is over the limit (413)."""


def declared_size_ok(scope: Scope, max_bytes: int) -> bool:
    """False if a Content-Length header is malformed or announces more than `max_bytes`."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                declared = int(value)
            except ValueError:
                return False
            if declared < 0 or declared > max_bytes:
                return False
    return True


async def read_body(receive: Receive, max_bytes: int) -> bytes | None:
    """The whole (small) request body, counted as it streams in: a chunked body over the limit raises
    TooLarge before the app sees any of it. None if the client went away."""
    chunks: list[bytes] = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        seen += len(chunk)
        if seen > max_bytes:
            raise TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app the body already read, then the real channel (disconnects)."""
    replayed = False

    async def receive_again() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again


def too_large(max_bytes: int) -> ASGIApp:
    return error_response(413, f"request body larger than {max_bytes} bytes")


def rate_limited(verdict: Verdict) -> ASGIApp:
    """The 429 answer: the error body, `Retry-After` and the RateLimit headers of the bucket that is empty."""
    return error_response(429, f"rate limit exceeded: {verdict.limit} requests per {verdict.window_s} s "
                               f"for {verdict.scope}; retry after {verdict.reset_s} s", "rate_limited",
                          headers={**verdict.headers(), "Retry-After": str(verdict.reset_s)})


def exempt(scope: Scope) -> bool:
    """The probes and CORS preflights count against no budget."""
    return scope.get("path") in EXEMPT_PATHS or scope.get("method") == "OPTIONS"


async def check(limiter: RateLimiter, scope: Scope) -> Verdict | None:
    """Count the request in its buckets; the tightest one's standing (None: no limit applies)."""
    client = scope.get("client")
    return await limiter.check_caller(client[0] if client else "unknown", bearer_token(scope))
