"""Player accounts: a name and an API key, stored hashed (only its SHA-256 is kept), in SQL.

SQL (services/accounts/repository.py) is the system of record; Redis only caches the API-key -> player lookup
every authenticated request makes, for at most `accounts.CACHE_MS` and never beyond a rotated key's grace expiry (the
entry's TTL is bounded by `expires_ms` when it is filled, and a rotation rewrites the entries of the keys it
replaced). Flushing Redis loses nothing: the next lookup reads SQL again.
"""

from __future__ import annotations

import uuid

from redis.asyncio import Redis

from services.accounts.keys import Keys, token_hash
from services.accounts.repository import AccountRepository
from services.gateway.domain.api_keys import CACHE_MS, REVOKED, cache_ttl_ms, mint_key, now_ms


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


class Players:
    def __init__(self, redis: Redis, keys: Keys, repo: AccountRepository):
        self.redis = redis
        self.keys = keys
        self.repo = repo

    async def create(self, name: str, kind: str = "human") -> tuple[str, str]:
        """A new player of `kind` (human or bot); returns (player_id, api_key). The key is shown once and never
        stored in clear (its hash is kept, for rotation)."""
        player_id = uuid.uuid4().hex
        api_key = mint_key(kind)
        await self.repo.create_player(player_id, name, kind, token_hash(api_key), now_ms())
        return player_id, api_key

    async def name(self, player_id: str) -> str | None:
        record = await self.repo.player(player_id)
        return record.name if record is not None else None

    async def authenticate(self, api_key: str) -> str | None:
        """The player id owning `api_key`, or None: the cache, else SQL (then cached, TTL bounded by the key's
        grace expiry; `SET NX`, so a lookup that read SQL before a rotation cannot overwrite what it wrote)."""
        key_hash = token_hash(api_key)
        cache = self.keys.api_key_cache(key_hash)
        cached = _text(await self.redis.get(cache))
        if cached is not None:
            return None if cached == REVOKED else cached
        now = now_ms()
        found = await self.repo.key_owner(key_hash, now)
        if found is None:
            # remembered as not working for a while: made-up keys (the rate limiter checks every one) must not
            # each cost a SQL query. Safe: a key is in SQL before it is ever shown, so no lookup precedes it.
            await self.redis.set(cache, REVOKED, px=CACHE_MS, nx=True)
            return None
        player_id, expires_ms = found
        ttl = cache_ttl_ms(expires_ms, now)
        if ttl > 0:
            await self.redis.set(cache, player_id, px=ttl, nx=True)
        return player_id
