"""Account kinds (human or bot) and API-key rotation with a grace period.

Why a key prefix: the rate limiter runs before any route and must know a bot account's key without a Redis
lookup per request, so a bot account's keys start with `sbk_bot_` (a human's with `sbk_`). A prefix proves
nothing by itself: an unknown key is refused (401) whatever its prefix, so a forged prefix only buys a
bigger budget for requests that all fail, still under the per-address ceiling.

Why a grace period: a bot fleet cannot switch keys atomically; the replaced key keeps working for
`GATEWAY_API_KEY_GRACE_S` (its Redis entry gets that TTL), then stops.
"""

from __future__ import annotations

import secrets
from typing import Literal

from redis.asyncio import Redis

from services.gateway.keys import Keys, token_hash

Kind = Literal["human", "bot"]
KINDS: tuple[str, ...] = ("human", "bot")
HUMAN_KEY_PREFIX = "sbk_"
BOT_KEY_PREFIX = "sbk_bot_"


def mint_key(kind: str) -> str:
    """A new API key of `kind` (shown once, stored hashed)."""
    return (BOT_KEY_PREFIX if kind == "bot" else HUMAN_KEY_PREFIX) + secrets.token_urlsafe(32)


def is_bot_key(secret: str) -> bool:
    return secret.startswith(BOT_KEY_PREFIX)


# KEYS: player, new apikey, presented apikey, current apikey (the player's `key_hash`, read just before).
# ARGV: player id, new key hash, grace ms, current key hash ("" if none). Returns 0 (nothing written) if the
# player's key changed meanwhile (a concurrent rotation; the caller retries). The new key maps to the player;
# the current and the presented keys get the grace TTL unless they already have one (a key in grace is never
# extended), or go at once with a grace of 0.
_ROTATE = """
if (redis.call('HGET', KEYS[1], 'key_hash') or '') ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'key_hash', ARGV[2])
for i = 3, 4 do
  local k = KEYS[i]
  if k ~= KEYS[2] and redis.call('GET', k) == ARGV[1] then
    if tonumber(ARGV[3]) <= 0 then
      redis.call('DEL', k)
    elseif redis.call('PTTL', k) < 0 then
      redis.call('PEXPIRE', k, ARGV[3])
    end
  end
end
return 1
"""


class Accounts:
    """Kind lookups and key rotation over the players' Redis records (`players.Players` creates them)."""

    def __init__(self, redis: Redis, keys: Keys, grace_s: int):
        self.redis = redis
        self.keys = keys
        self.grace_ms = grace_s * 1000
        self._rotate = redis.register_script(_ROTATE)

    async def kind(self, player_id: str) -> str:
        raw = await self.redis.hget(self.keys.player(player_id), "kind")
        text = raw.decode() if isinstance(raw, bytes) else raw
        return text if text in KINDS else "human"  # players made before kinds existed are humans

    async def kinds(self, player_ids: list[str]) -> dict[str, str]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in player_ids:
                pipe.hget(self.keys.player(pid), "kind")
            raw = await pipe.execute()
        out = {}
        for pid, k in zip(player_ids, raw):
            text = k.decode() if isinstance(k, bytes) else k
            out[pid] = text if text in KINDS else "human"
        return out

    async def created_ms(self, player_id: str) -> int | None:
        raw = await self.redis.hget(self.keys.player(player_id), "created_ms")
        return int(raw) if raw is not None else None

    async def rotate(self, player_id: str, presented_key: str) -> str:
        """A new API key for `player_id`; the replaced one (and `presented_key`) work on for the grace period."""
        new_key = mint_key(await self.kind(player_id))
        new_hash = token_hash(new_key)
        presented = self.keys.api_key(token_hash(presented_key))
        while True:
            raw = await self.redis.hget(self.keys.player(player_id), "key_hash")
            current = (raw.decode() if isinstance(raw, bytes) else raw) or ""
            done = await self._rotate(
                keys=[self.keys.player(player_id), self.keys.api_key(new_hash), presented,
                      self.keys.api_key(current) if current else presented],
                args=[player_id, new_hash, self.grace_ms, current],
            )
            if done:
                return new_key
