"""Player accounts: a name and an API key, stored hashed (only its SHA-256 is kept)."""

from __future__ import annotations

import time
import uuid

from redis.asyncio import Redis

from services.gateway.accounts import mint_key
from services.gateway.keys import Keys, token_hash


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


class Players:
    def __init__(self, redis: Redis, keys: Keys):
        self.redis = redis
        self.keys = keys

    async def create(self, name: str, kind: str = "human") -> tuple[str, str]:
        """A new player of `kind` (human or bot); returns (player_id, api_key). The key is shown once and never
        stored in clear (its hash is kept as `key_hash`, for rotation)."""
        player_id = uuid.uuid4().hex
        api_key = mint_key(kind)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.player(player_id), mapping={
                "name": name, "created_ms": int(time.time() * 1000), "kind": kind, "key_hash": token_hash(api_key),
            })
            pipe.set(self.keys.api_key(token_hash(api_key)), player_id)
            await pipe.execute()
        return player_id, api_key

    async def name(self, player_id: str) -> str | None:
        return _text(await self.redis.hget(self.keys.player(player_id), "name"))

    async def authenticate(self, api_key: str) -> str | None:
        """The player id owning `api_key`, or None."""
        return _text(await self.redis.get(self.keys.api_key(token_hash(api_key))))
