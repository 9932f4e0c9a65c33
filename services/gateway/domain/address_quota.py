"""Per-address quotas on what costs the platform more than a request: creating accounts.

Why apart from the rate limiter: the request budget of an address (hundreds a minute) is far too loose for
account creation, which mints a credential with its own request budget, its own games quota and a row in SQL
forever; 40 accounts in 0.3 s from one address were accepted. Why in tiers: one address is often many people (a
classroom, an office, a café behind one NAT), who arrive together; a single hourly cap small enough to stop mass
creation locked the twenty-first of them out for an hour. So, as Lichess bounds sign-ups per IP ("fast" 10 per 10
minutes, "slow" 150 per day), a short tier lets a group sign up at once (GATEWAY_ACCOUNTS_PER_ADDRESS per
GATEWAY_ACCOUNTS_WINDOW_S) and a daily tier bounds what one address mints (GATEWAY_ACCOUNTS_PER_ADDRESS_DAILY).
Fixed windows in Redis (shared by every gateway, keys under the gateway's prefix so test runs never share a count),
checked and counted by one script: a refused request spends no tier.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fastapi import Request
from redis.asyncio import Redis

from services.accounts.keys import Keys
from services.common.redis_scripts import LuaScript
from services.gateway.http.errors import ApiError

TAKE = LuaScript.beside(__file__, "address_take")
DAY_S = 86_400


def client_address(request: Request) -> str:
    """The client's address as the rate limiter sees it (uvicorn applied GATEWAY_TRUSTED_PROXIES already)."""
    return request.client.host if request.client else "unknown"


@dataclass(frozen=True, slots=True)
class Tier:
    """At most `limit` per fixed window of `window_s` seconds (windows aligned on multiples of it); 0: no limit."""

    limit: int
    window_s: int


class AddressQuota:
    def __init__(self, redis: Redis, keys: Keys, what: str, tiers: Sequence[Tier],
                 clock: Callable[[], float] = time.time):
        self.keys = keys
        self.what = what
        self.tiers = [t for t in tiers if t.limit > 0]
        self.clock = clock
        self._take = TAKE.register(redis)

    async def take(self, address: str) -> None:
        """Count one more for `address` in every tier; 429 `too_many_<what>` when a tier's window is spent (then
        nothing is counted), with Retry-After the seconds until the last full tier's window ends, when the request
        would be taken (the message says it too)."""
        if not self.tiers:
            return
        now = self.clock()
        windows = [int(now // t.window_s) for t in self.tiers]
        # one hash slot for every tier of an address ({rl:<what>:<address>}), so one script reads them all
        counters = [self.keys.rate(self.what, address, f"{t.window_s}s{w}") for t, w in zip(self.tiers, windows)]
        spec = [x for t in self.tiers for x in (t.limit, t.window_s * 1000)]
        full = await self._take(keys={"counters": counters}, args={"limits_and_windows_ms": spec})
        refused = [(t, w) for t, w, f in zip(self.tiers, windows, full) if int(f)]
        if not refused:
            return
        tier, window = max(refused, key=lambda tw: (tw[1] + 1) * tw[0].window_s)
        retry = max(1, math.ceil((window + 1) * tier.window_s - now))
        raise ApiError(429, f"at most {tier.limit} {self.what} per {tier.window_s} s from one address; retry after "
                            f"{retry} s", f"too_many_{self.what}", headers={"Retry-After": str(retry)})
