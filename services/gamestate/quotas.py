"""Per-player quotas on game creation: active games owned, bot seats in them, creations per hour.

Why in the game-state service: it alone knows when a game ends, so "active games" needs no second
bookkeeping; and every creation path (REST through the gateway, GameAdmin) meets the same limits.
A reservation is one Lua script: it forgets the owner's games that are no longer active, checks the three
limits and records the new games, atomically, so concurrent creations by one player cannot overshoot.
A reservation whose game then fails to be written is forgotten at the next one (its metadata never exists).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis.asyncio as aioredis

from services.gamestate import errors
from services.gamestate.keys import Keys

RESERVE = """
-- KEYS: 1 the owner's games (hash game id -> "<bot seats>:<reserved ms>"), 2 the owner's creations this hour
-- ARGV: 1 meta key head ("<prefix>game:{"), 2 active limit, 3 bot-seat limit, 4 per-hour limit,
--       5 seconds until the hour ends, 6 game id, 7 its bot seats, 8 now ms, 9 grace ms of a pending creation
local owned = redis.call('HGETALL', KEYS[1])
local games, bots = 0, 0
for i = 1, #owned, 2 do
  local seats, at = string.match(owned[i + 1], '^(%d+):(%d+)$')
  local status = redis.call('HGET', ARGV[1] .. owned[i] .. '}:meta', 'status')
  -- a game without metadata is being written (a batch stores its games after reserving them all), unless its
  -- reservation is older than the grace: then its creation failed and it never existed
  local pending = (not status) and (tonumber(ARGV[8]) - tonumber(at) < tonumber(ARGV[9]))
  if status == 'active' or pending then
    games = games + 1
    bots = bots + tonumber(seats)
  else
    redis.call('HDEL', KEYS[1], owned[i])
  end
end
if games + 1 > tonumber(ARGV[2]) then return {'active_games', games} end
if bots + tonumber(ARGV[7]) > tonumber(ARGV[3]) then return {'bot_seats', bots} end
local made = tonumber(redis.call('GET', KEYS[2]) or '0')
if made + 1 > tonumber(ARGV[4]) then return {'creations_per_hour', made} end
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], ARGV[6], ARGV[7] .. ':' .. ARGV[8])
return {'ok', 0}
"""


#: How long a reserved game may lack its metadata before the reservation is taken for a failed creation.
PENDING_GRACE_MS = 60_000


@dataclass(frozen=True, slots=True)
class Quotas:
    """The limits every owner meets (Settings: QUOTA_ACTIVE_GAMES, QUOTA_BOT_SEATS, QUOTA_CREATIONS_PER_HOUR)."""

    active_games: int
    bot_seats: int
    creations_per_hour: int


_WHAT = {
    "active_games": "active games at once",
    "bot_seats": "bot seats across active games",
    "creations_per_hour": "game creations per hour",
}


class QuotaBook:
    """Reserves a new game against its owner's quotas in Redis."""

    def __init__(self, redis: aioredis.Redis, keys: Keys, quotas: Quotas):
        self.keys = keys
        self.quotas = quotas
        self._reserve = redis.register_script(RESERVE)

    async def reserve(self, owner: str, game_id: str, bot_seats: int) -> None:
        """Record `game_id` for `owner`, or raise RESOURCE_EXHAUSTED (reason quota_exceeded) naming the quota."""
        now = time.time()
        hour = int(now // 3600)
        seconds_left = max(1, int((hour + 1) * 3600 - now))
        q = self.quotas
        verdict, used = await self._reserve(
            keys=[self.keys.owner_games(owner), self.keys.owner_creations(owner, hour)],
            args=[self.keys.meta_head, q.active_games, q.bot_seats, q.creations_per_hour, seconds_left, game_id,
                  bot_seats, int(now * 1000), PENDING_GRACE_MS],
        )
        verdict = verdict.decode() if isinstance(verdict, bytes) else verdict
        if verdict == "ok":
            return
        limit = getattr(q, verdict)
        message = f"quota reached: at most {limit} {_WHAT[verdict]} per player (you have {int(used)})"
        if verdict == "creations_per_hour":
            message += f"; the count restarts in {seconds_left} s"
        raise errors.quota_exceeded(message)
