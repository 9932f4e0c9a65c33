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

from services.common.redis_scripts import LuaScript
from services.gamestate import errors
from services.gamestate.keys import Keys

RESERVE = LuaScript.beside(__file__, "reserve_quota")


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
        self._reserve = RESERVE.register(redis)

    async def reserve(self, owner: str, game_id: str, bot_seats: int) -> None:
        """Record `game_id` for `owner`, or raise RESOURCE_EXHAUSTED (reason quota_exceeded) naming the quota."""
        now = time.time()
        hour = int(now // 3600)
        seconds_left = max(1, int((hour + 1) * 3600 - now))
        q = self.quotas
        verdict, used = await self._reserve(
            keys={"owner_games": self.keys.owner_games(owner),
                  "owner_creations": self.keys.owner_creations(owner, hour)},
            args={"meta_head": self.keys.meta_head, "active_limit": q.active_games, "bot_seat_limit": q.bot_seats,
                  "hour_limit": q.creations_per_hour, "hour_left": seconds_left, "game_id": game_id,
                  "bot_seats": bot_seats, "now": int(now * 1000), "grace": PENDING_GRACE_MS},
        )
        verdict = verdict.decode() if isinstance(verdict, bytes) else verdict
        if verdict == "ok":
            return
        limit = getattr(q, verdict)
        message = f"quota reached: at most {limit} {_WHAT[verdict]} per player (you have {int(used)})"
        if verdict == "creations_per_hour":
            message += f"; the count restarts in {seconds_left} s"
        raise errors.quota_exceeded(message)
