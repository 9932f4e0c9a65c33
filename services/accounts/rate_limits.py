"""Per-account, per-credential and per-address rate limits in Redis: fixed windows counted atomically by a Lua script.

Why in accounts: the account is the unit a call is charged to (an API key's account, a bot account's keys and
seats together), keyed through the accounts' Redis keys (`keys.Keys.rate`), and two services count with it: the
REST gateway's edge for every HTTP request (services/gateway/http/limits.py reads the request) and the game-state
service's public gRPC port (services/gamestate/public_port.py). Several processes share one budget. Tokens are
keyed by their SHA-256, never stored or logged in clear.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError

from services.accounts.access import HUMAN_KEY_PREFIX, is_bot_key
from services.accounts.keys import Keys, token_hash
from services.common.redis_scripts import LuaScript
from services.common.slot_transactions import is_cluster

log = logging.getLogger(__name__)

INCR = LuaScript.beside(__file__, "rate_incr")


@dataclass(frozen=True, slots=True)
class Verdict:
    """One request's standing in its tightest bucket: what the IETF RateLimit headers report."""

    limit: int
    remaining: int
    reset_s: int
    window_s: int
    scope: str  # "this credential", "this address", "this address (all requests)"
    exceeded: bool

    def headers(self) -> dict[str, str]:
        return {"RateLimit-Limit": str(self.limit), "RateLimit-Remaining": str(self.remaining),
                "RateLimit-Reset": str(self.reset_s)}


@dataclass(frozen=True, slots=True)
class Caller:
    """Whose budget a call counts against (the account is the unit): an account (`acct`, or `bot` for a
    bot account: all its API keys, and a bot's seat tokens too) or one seat token (`tok`); `who` is a player id or
    a token's hash, never a secret."""

    kind: str
    who: str


class RateLimiter:
    """Fixed-window limits shared through Redis (several gateways share one budget):

    - a call with an API key counts against its account's bucket (`per_token`; a bot account, whose keys start
      with `sbk_bot_`, has the larger `per_bot`), so rotating keys does not buy a new budget and clients behind one
      address (an office, a university, a cloud NAT) do not share one;
    - a call with a seat token counts against that token's bucket (`per_token`), or against its bot account's
      (`per_bot`) where a bot account holds the seat (`seat_holder`): a bot's play counts against the bot budget
      whichever credential it plays with;
    - an anonymous call counts against its address's bucket (`per_ip`);
    - every call also counts against its address's flood ceiling (`ip_ceiling`, far above the others), so
      minting credentials cannot multiply one machine's budget without bound;
    - an API key (`sbk_...`) that does not work (`api_key_owner` None: the cached lookup the routes make anyway)
      is anonymous: a made-up key per request would otherwise get a fresh bucket per request.
    The tightest bucket is reported on every response (RateLimit-Limit / -Remaining / -Reset).
    """

    def __init__(self, redis: Redis, keys: Keys, per_ip: int, per_token: int, window_s: int, ip_ceiling: int = 0,
                 per_bot: int | None = None, api_key_owner: Callable[[str], Awaitable[str | None]] | None = None,
                 seat_holder: Callable[[str], Awaitable[str | None]] | None = None):
        self.keys = keys
        self.api_key_owner = api_key_owner
        self.seat_holder = seat_holder
        self.per_bot = per_token if per_bot is None else per_bot
        self.per_ip = per_ip
        self.per_token = per_token
        self.ip_ceiling = ip_ceiling
        self.window_s = window_s
        self._script = INCR.register(redis)
        # a Redis Cluster: each subject's counter is in its own slot (keys.py), so one script call per bucket
        self._per_key = is_cluster(redis)

    def tells_callers_apart(self, bot_accounts: bool) -> bool:
        """Whether who calls changes what a call counts against: with no per-address or per-credential limit, and
        no per-bot one where bot accounts can be told (`bot_accounts`), the address ceiling counts every call
        alike, so a caller need not be looked up."""
        return bool(self.per_ip or self.per_token or (self.per_bot and bot_accounts))

    async def caller(self, token: str | None) -> Caller | None:
        """Whose budget a call with `token` counts against; None: anonymous (no credential, or an API key that
        does not work). Storage trouble counts as anonymous (the route answers 503 anyway)."""
        if token is None:
            return None
        try:
            if token.startswith(HUMAN_KEY_PREFIX):
                owner = await self.api_key_owner(token) if self.api_key_owner is not None else None
                return Caller("bot" if is_bot_key(token) else "acct", owner) if owner is not None else None
            holder = await self.seat_holder(token) if self.seat_holder is not None else None
        except Exception as exc:
            log.warning("credential lookup for the rate limiter failed: %s", exc.__class__.__name__)
            return None
        return Caller("bot", holder) if holder is not None else Caller("tok", token_hash(token)[:32])

    def _buckets(self, ip: str, caller: Caller | None, window: int) -> list[tuple[str, int, str]]:
        """(Redis key, limit, what it limits) of every bucket a call from `ip` by `caller` counts against."""
        buckets = []
        if caller is not None and caller.kind == "bot":
            if self.per_bot:
                buckets.append((self.keys.rate("bot", caller.who, window), self.per_bot, "this bot account"))
        elif caller is not None and self.per_token:
            what = "this account" if caller.kind == "acct" else "this credential"
            buckets.append((self.keys.rate(caller.kind, caller.who, window), self.per_token, what))
        elif caller is None and self.per_ip:
            buckets.append((self.keys.rate("ip", ip, window), self.per_ip, "this address"))
        if self.ip_ceiling:
            buckets.append((self.keys.rate("ipall", ip, window), self.ip_ceiling, "this address (all requests)"))
        return buckets

    async def _count(self, keys: list[str], window_ms: int) -> list[int]:
        """{n1, ttl1, n2, ttl2, ...} of the request's buckets, each expiring in `window_ms`: one round trip, or one
        call per key at once on a cluster (a request's buckets belong to different subjects, so to different
        slots)."""
        args = {"window_ms": window_ms}
        if not self._per_key:
            return await self._script(keys={"buckets": keys}, args=args)
        replies = await asyncio.gather(*(self._script(keys={"buckets": [key]}, args=args) for key in keys))
        return [x for reply in replies for x in reply]

    async def check_caller(self, ip: str, token: str | None) -> Verdict | None:
        """`check` for a caller known by its address and credential."""
        return await self.check_as(ip, await self.caller(token))

    async def check_as(self, ip: str, caller: Caller | None) -> Verdict | None:
        """Count a call from `ip` by `caller` (None: anonymous); the game-state service's public gRPC port counts
        its calls with this, in its own Redis keys, having resolved the caller itself."""
        now = time.time()
        window = int(now // self.window_s)
        # the buckets are fixed windows aligned on multiples of window_s: one refills when its window ends, so
        # that is what RateLimit-Reset and Retry-After say, and when its key expires (the count used to be
        # reported against a TTL started at the bucket's first request, up to a whole window late)
        left_ms = max(1, math.ceil(((window + 1) * self.window_s - now) * 1000))
        buckets = self._buckets(ip, caller, window)
        if not buckets:
            return None
        try:
            counted = await self._count([key for key, _, _ in buckets], left_ms)
        except RedisError as exc:  # fail open: Redis trouble shows in /readyz, not as 429s
            log.warning("rate limiter unavailable: %s", exc.__class__.__name__)
            return None
        verdicts = []
        for i, (_key, limit, what) in enumerate(buckets):
            count = counted[2 * i]
            reset = max(1, math.ceil(left_ms / 1000))
            verdicts.append(Verdict(limit, max(0, limit - count), reset, self.window_s, what, count > limit))
        # the bucket that refuses, else the one with the least left (ties: the one that resets last)
        return min(verdicts, key=lambda v: (not v.exceeded, v.remaining, -v.reset_s))
