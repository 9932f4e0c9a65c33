"""Per-account quotas: active games charged, bot seats in them, charges per hour (docs/decisions/abuse-bounds.md, exact
on a cluster: docs/decisions/redis-cluster.md).

Every game is charged to EVERY account that holds one of its seats (its owner, and the players the matchmaker or a
challenge seated: `accounts_of`), with all the bot seats it was created with; a seat handed to the zombie bot
(resigned, abandoned) is one more bot seat, charged to the account whose seat it was (`bot_seats_charged`), so it
gets the zombie only while that account has a bot seat to spare (`zombie_levels`; else the default decision).

Each account's book lives in the account's own slot (`owner:{id}:*`, services/gamestate/keys.py) and changes only
through it: a reservation adds the game once (HSET of a new field; a retried reservation finds it), the game leaves
the book once (HDEL): right after the commit that ends it (`release`, Pipeline.commit), or, if the service died
between that commit and the release, at the account's next reservation, which first reads the state of every game
its book lists (those live in other slots) and passes what it saw to the one-slot script (the repair pass). A
reservation whose game was never written is forgotten after PENDING_GRACE_MS the same way.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis

from services.common.redis_scripts import LuaScript
from services.gamestate import errors
from services.gamestate.keys import Keys
from services.gamestate.records import Meta

RESERVE = LuaScript.beside(__file__, "reserve_quota")


#: How long a reserved game may lack its metadata before the reservation is taken for a failed creation.
PENDING_GRACE_MS = 60_000


@dataclass(frozen=True, slots=True)
class Quotas:
    """The limits every account meets (Settings: QUOTA_ACTIVE_GAMES, QUOTA_BOT_SEATS, QUOTA_CREATIONS_PER_HOUR)."""

    active_games: int
    bot_seats: int
    creations_per_hour: int


_WHAT = {
    "active_games": "active games at once",
    "bot_seats": "bot seats across active games",
    "creations_per_hour": "game creations per hour",
}


def accounts_of(owner: str, seat_players: dict[int, str]) -> list[str]:
    """The accounts a game is charged to: its owner and every player seated in it."""
    return sorted({owner, *seat_players.values()} - {""})


def account_of_seat(meta: Meta, seat: int) -> str:
    """The account that held `seat`: the player seated there, else the owner (who took every seat's token)."""
    return meta.seat_players.get(seat) or meta.owner


def bot_seats_charged(meta: Meta, account: str) -> int:
    """Bot seats of `meta`'s game charged to `account`: the ones it was created with, plus the zombie seats that
    were the account's own."""
    zombies = [s for s in meta.bots if s in meta.forfeited]
    own = [s for s in zombies if account_of_seat(meta, s) == account]
    return len(meta.bots) - len(zombies) + len(own)


async def zombie_levels(quotas: QuotaBook | None, meta: Meta, seats: Sequence[int], level: str) -> dict[int, str]:
    """Who plays each of `seats`, just resigned or abandoned: the zombie `level` while the account whose seat it was
    has a bot seat to spare (the zombie is one more bot seat charged to it), else "" (the game's default decision,
    no bot). Why: leaving a game must always be possible, and must not buy an account bot seats beyond its quota."""
    if not level or quotas is None:
        return dict.fromkeys(seats, level)
    room: dict[str, int] = {}
    out = {}
    for seat in seats:
        account = account_of_seat(meta, seat)
        if not account:  # an unowned development game: nobody to charge (as its creation)
            out[seat] = level
            continue
        if account not in room:
            room[account] = await quotas.bot_seat_room(account)
        out[seat] = level if room[account] > 0 else ""
        room[account] -= bool(out[seat])
    return out


class QuotaBook:
    """Reserves new games against their accounts' quotas and releases them when they end."""

    def __init__(self, redis: aioredis.Redis, keys: Keys, quotas: Quotas):
        self.redis = redis
        self.keys = keys
        self.quotas = quotas
        self._reserve = RESERVE.register(redis)

    async def reserve_all(self, accounts: Iterable[str], game_id: str, bot_seats: int) -> None:
        """Charge `game_id` to every account, or to none: RESOURCE_EXHAUSTED (reason quota_exceeded, `players`:
        the accounts over a quota) and the charges already made released."""
        done: list[str] = []
        for account in accounts:
            try:
                await self.reserve(account, game_id, bot_seats)
            except errors.ServiceError:
                await self.release(game_id, done)
                raise
            done.append(account)

    async def reserve(self, account: str, game_id: str, bot_seats: int) -> None:
        """Record `game_id` for `account`, or raise RESOURCE_EXHAUSTED (reason quota_exceeded) naming the quota."""
        now = time.time()
        hour = int(now // 3600)
        seconds_left = max(1, int((hour + 1) * 3600 - now))
        q = self.quotas
        verdict, used = await self._reserve(
            keys={"owner_games": self.keys.owner_games(account),
                  "owner_creations": self.keys.owner_creations(account, hour)},
            args={"active_limit": q.active_games, "bot_seat_limit": q.bot_seats, "hour_limit": q.creations_per_hour,
                  "hour_left": seconds_left, "game_id": game_id, "bot_seats": bot_seats, "now": int(now * 1000),
                  "grace": PENDING_GRACE_MS, "seen": await self._seen(account)},
        )
        verdict = verdict.decode() if isinstance(verdict, bytes) else verdict
        if verdict == "ok":
            return
        limit = getattr(q, verdict)
        message = f"quota reached: at most {limit} {_WHAT[verdict]} per player (player {account} has {int(used)})"
        if verdict == "creations_per_hour":
            message += f"; the count restarts in {seconds_left} s"
        raise errors.ServiceError(errors.quota_exceeded(message).code, "quota_exceeded", message,
                                  extra={"players": [account], "quota": verdict})

    async def _seen(self, account: str) -> list[str]:
        """(game id, ended | missing | active, bot seats charged now) for every game the account's book lists,
        read from the games themselves (their own slots)."""
        ids = list(await self.redis.hkeys(self.keys.owner_games(account)))
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hgetall(self.keys.meta(game_id))
            hashes = await pipe.execute()
        out: list[str] = []
        for game_id, h in zip(ids, hashes):
            if not h:
                out += [game_id, "missing", "0"]
                continue
            meta = Meta.from_hash(game_id, h)
            out += [game_id, "ended" if meta.ended else "active", str(bot_seats_charged(meta, account))]
        return out

    async def release(self, game_id: str, accounts: Iterable[str]) -> None:
        """The game leaves every account's book (idempotent: releasing twice changes nothing)."""
        accounts = list(accounts)
        if not accounts:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for account in accounts:
                pipe.hdel(self.keys.owner_games(account), game_id)
            await pipe.execute()

    async def bot_seat_room(self, account: str) -> int:
        """Bot seats the account may still be charged (its book repaired first, as a reservation does)."""
        seen = await self._seen(account)
        charged = sum(int(seen[i + 2]) for i in range(0, len(seen), 3) if seen[i + 1] == "active")
        return self.quotas.bot_seats - charged
