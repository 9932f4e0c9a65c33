"""What the public gRPC listener adds to a call: the REST gateway's rate limits and the stream bounds.

Why here and not in the servicer: the internal listener (GameAdmin, and GameService for the gateway, the
matchmaker and the bot workers, which the gateway has already limited per player) serves the same servicer
without them. The limits reuse the gateway's fixed-window algorithm (services/gateway/http/limits.py) with the
same defaults, keyed by the gRPC peer's address and the call's seat token (a token the platform never issued,
or revoked, counts as no token), in the service's own Redis keys.
A refusal is RESOURCE_EXHAUSTED with the JSON details every refusal carries.
"""

from __future__ import annotations

import grpc
from redis.asyncio import Redis

from services.accounts.keys import Keys as GatewayKeys
from services.common.settings import Settings
from services.common.stream_slots import Slot, StreamSlots, TooManyStreams
from services.gamestate import errors, tokens
from services.gamestate.keys import Keys
from services.gateway.http.limits import RateLimiter


def peer_address(peer: str | None) -> str:
    """The client address of a grpc peer string ("ipv4:10.0.0.1:5000", "ipv6:[::1]:5000", "unix:/path")."""
    if not peer:
        return "unknown"
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer


class PublicGate:
    """The public listener's per-caller limits: calls per window (Redis, shared by every instance) and open
    WatchGame streams (this instance)."""

    def __init__(self, redis: Redis, keys: Keys, settings: Settings) -> None:
        self.redis = redis
        self.keys = keys
        self.limiter = RateLimiter(
            redis, GatewayKeys(settings.key_prefix), settings.rate_limit_ip, settings.rate_limit_token,
            settings.rate_limit_window_s, settings.rate_limit_ip_ceiling)
        self.streams = StreamSlots(settings.stream_limit_address, settings.stream_limit_credential, "WatchGame streams")

    async def _known(self, token: str) -> bool:
        """Whether `token` is a seat token the platform issued and has not revoked (its index entry exists):
        a made-up token must not buy its caller a fresh bucket."""
        bucket = tokens.bucket_of_token(token)
        return bucket is not None and bool(await self.redis.exists(self.keys.token(bucket, tokens.token_hash(token))))

    async def admit(self, context: grpc.aio.ServicerContext, token: str) -> None:
        """Count the call, in its seat token's bucket if the token is known, else in its address's anonymous
        one; RESOURCE_EXHAUSTED (reason `rate_limited`) once the bucket is empty."""
        known = bool(token) and self.limiter.per_token > 0 and await self._known(token)
        verdict = await self.limiter.check_caller(peer_address(context.peer()), token if known else None)
        if verdict is not None and verdict.exceeded:
            raise errors.ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited",
                f"rate limit exceeded: {verdict.limit} calls per {verdict.window_s} s for {verdict.scope}; "
                f"retry after {verdict.reset_s} s", extra={"retry_after_s": verdict.reset_s})

    def open_stream(self, context: grpc.aio.ServicerContext, token: str) -> Slot:
        """A place for one more WatchGame stream; RESOURCE_EXHAUSTED (reason `too_many_streams`) if none."""
        try:
            return self.streams.acquire(peer_address(context.peer()), tokens.token_hash(token) if token else None)
        except TooManyStreams as exc:
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_streams", exc.message) from None
