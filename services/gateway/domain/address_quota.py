"""Per-address quotas on what costs the platform more than a request: creating accounts.

Why apart from the rate limiter: the request budget of an address (hundreds a minute) is far too loose for
account creation, which mints a credential with its own request budget, its own games quota and a row in SQL
forever; 40 accounts in 0.3 s from one address were accepted. A fixed window in Redis (shared by every gateway,
keys under the gateway's prefix so test runs never share a count) bounds it to GATEWAY_ACCOUNTS_PER_ADDRESS per
GATEWAY_ACCOUNTS_WINDOW_S.
"""

from __future__ import annotations

import math
import time

from fastapi import Request
from redis.asyncio import Redis

from services.accounts.keys import Keys
from services.common.redis_scripts import LuaScript
from services.gateway.http.errors import ApiError

TAKE = LuaScript.beside(__file__, "address_take")


def client_address(request: Request) -> str:
    """The client's address as the rate limiter sees it (uvicorn applied GATEWAY_TRUSTED_PROXIES already)."""
    return request.client.host if request.client else "unknown"


class AddressQuota:
    def __init__(self, redis: Redis, keys: Keys, what: str, limit: int, window_s: int):
        self.keys = keys
        self.what = what
        self.limit = limit
        self.window_s = window_s
        self._take = TAKE.register(redis)

    async def take(self, address: str) -> None:
        """Count one more for `address`; 429 `too_many_<what>` once the window's limit is spent (0: no limit)."""
        if not self.limit:
            return
        window = int(time.time() // self.window_s)
        count, ttl_ms = await self._take(keys={"counter": self.keys.rate(self.what, address, window)},
                                         args={"window_ms": self.window_s * 1000})
        if int(count) > self.limit:
            retry = max(1, math.ceil(max(int(ttl_ms), 0) / 1000))
            raise ApiError(429, f"at most {self.limit} {self.what} per {self.window_s} s from one address; retry "
                                f"after {retry} s", f"too_many_{self.what}", headers={"Retry-After": str(retry)})
