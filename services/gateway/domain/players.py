"""Player accounts: a name and an API key, stored hashed (only its SHA-256 is kept), in SQL.

SQL (services/accounts/repository.py) is the system of record; Redis only caches the API-key -> player lookup
every authenticated request makes, for at most `accounts.CACHE_MS` and never beyond a rotated key's grace expiry (the
entry's TTL is bounded by `expires_ms` when it is filled, and a rotation rewrites the entries of the keys it
replaced). Flushing Redis loses nothing: the next lookup reads SQL again.
"""

from __future__ import annotations

import uuid

from redis.asyncio import Redis

from services.accounts.access import key_owner, now_ms
from services.accounts.keys import Keys, token_hash
from services.accounts.repository import AccountRepository
from services.gateway.domain.api_keys import mint_key


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
        """The player id owning `api_key`, or None (services/accounts/access.py: the one verification every
        public entry makes)."""
        return await key_owner(self.redis, self.keys, self.repo, api_key)
