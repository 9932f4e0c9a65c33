"""Per-game multiplayer ratings with openskill (Plackett-Luce), settled exactly once per game.

A rated game (one the matchmaker or a challenge created) has a Redis hash seat -> entity
("player:<id>" or "bot:<level>"), and sits in the pending set and the check schedule while it
plays (hot state, Redis). The ratings themselves are in SQL (services/accounts/repository.py, the
system of record): when anyone notices the game finished, `settle` runs one SQL transaction that
inserts the game's `settled_games` row and updates the players' ratings (ordinal stored, so the
leaderboard is an indexed `ORDER BY`): a concurrent or repeated settle, from any gateway or
matchmaker, finds the row taken and changes nothing. Bots play with the
default rating and are never updated or listed. A player who resigned or whose
seat was abandoned ranks last, below every other seat, whatever the zombie bot
that played the seat out achieved; an aborted game settles nothing (`discard`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from openskill.models import PlackettLuce
from redis.asyncio import Redis

from services.accounts.keys import BUCKETS, Keys, bucket_of
from services.accounts.repository import AccountRepository, BoardRow, Skill
from services.common import standings
from services.common.redis_scripts import LuaScript

MODEL = PlackettLuce()


class Ended(Protocol):
    """What settling needs of a game (services.gamestate.client.GameState has it)."""

    game_id: str
    status: str
    scores: list[int]
    winners: list[int]
    resigned: list[int]
    abandoned: list[int]


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate used for ranking and matchmaking."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, float | int]:
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal, "games": self.games}

    @classmethod
    def of(cls, skill: Skill) -> Rating:
        return cls(float(skill[0]), float(skill[1]), int(skill[2]))

    @property
    def skill(self) -> Skill:
        return (self.mu, self.sigma, self.games)


DEFAULT = Rating(MODEL.mu, MODEL.sigma, 0)


REGISTER = LuaScript.beside(__file__, "rated_register")


class Ratings:
    """Ratings in SQL; the rated games in play (registration, pending set, check schedule) in Redis."""

    def __init__(self, redis: Redis, keys: Keys, repo: AccountRepository):
        self.redis = redis
        self.keys = keys
        self.repo = repo
        self._register = REGISTER.register(redis)

    async def get(self, player_id: str, game: str) -> Rating:
        skill = await self.repo.rating(player_id, game)
        return Rating.of(skill) if skill is not None else DEFAULT

    async def all_games(self, player_id: str) -> dict[str, Rating]:
        return {game: Rating.of(skill) for game, skill in (await self.repo.ratings(player_id)).items()}

    async def leaderboard(self, game: str, limit: int, offset: int = 0) -> list[tuple[str, Rating]]:
        return [(row.player_id, Rating(row.mu, row.sigma, row.games)) for row in await self.board(game, limit, offset)]

    async def board(self, game: str, limit: int, offset: int = 0) -> list[BoardRow]:
        """The leaderboard's rows with each player's name and kind (one SQL query)."""
        return await self.repo.leaderboard(game, limit, offset)

    async def register_game(self, game_id: str, game: str, seats: dict[int, str], check_at_ms: int = 0) -> None:
        """Mark a game as rated: seat -> entity ("player:<id>" or "bot:<level>")."""
        await self.register_games([(game_id, game, seats)], check_at_ms)

    async def register_games(self, games: list[tuple[str, str, dict[int, str]]], check_at_ms: int = 0) -> None:
        """`register_game` for many games in one script (their data as one JSON argument); the matchmaker
        first checks them at check_at_ms."""
        if not games:
            return
        by_bucket: dict[int, list[tuple[str, str, dict[int, str]]]] = {}
        for row in games:
            by_bucket.setdefault(bucket_of(row[0]), []).append(row)
        # one script per bucket (a bucket is one cluster slot), all sent together
        await asyncio.gather(*(self._register(
            keys={"pending": self.keys.rated_pending(b), "due": self.keys.rated_due(b),
                  "games": [self.keys.rated_game(g[0]) for g in rows]},
            args={"check_at": check_at_ms, "rows": json.dumps(
                [[game_id, game, [x for seat, entity in seats.items() for x in (str(seat), entity)]]
                 for game_id, game, seats in rows])},
        ) for b, rows in by_bucket.items()))

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """Up to `limit` unsettled rated games whose next check time has come, earliest first (every bucket's
        schedule read in one pipeline)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for b in range(BUCKETS):
                pipe.zrangebyscore(self.keys.rated_due(b), "-inf", now_ms, start=0, num=limit, withscores=True)
            replies = await pipe.execute()
        due = sorted((score, _text(i)) for reply in replies for i, score in reply)
        return [i for _score, i in due[:limit]]

    async def schedule(self, game_ids: list[str], at_ms: int) -> None:
        """Check these games again at `at_ms`."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for b, ids in _by_bucket(game_ids).items():
                pipe.zadd(self.keys.rated_due(b), dict.fromkeys(ids, at_ms))
            await pipe.execute()

    async def unschedule(self, game_ids: list[str]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for b, ids in _by_bucket(game_ids).items():
                pipe.zrem(self.keys.rated_due(b), *ids)
            await pipe.execute()

    async def is_rated(self, game_id: str) -> bool:
        return bool(await self.redis.exists(self.keys.rated_game(game_id)))

    async def pending(self) -> list[str]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for b in range(BUCKETS):
                pipe.smembers(self.keys.rated_pending(b))
            replies = await pipe.execute()
        return sorted(_text(m) for members in replies for m in members)

    async def conclude(self, game: Ended) -> bool:
        """Settle a finished rated game (its resigned and abandoned seats last) or discard an aborted one, as
        the game-state service shows it; True iff this call settled it. Nothing while it runs."""
        if game.status == "aborted":
            await self.discard(game.game_id)
            return False
        if game.status != "finished":
            return False
        return await self.settle(game.game_id, game.scores, game.winners, {*game.resigned, *game.abandoned})

    async def discard(self, game_id: str) -> bool:
        """An aborted rated game: settle nothing, ever, and stop checking it. True iff it was still pending."""
        game = _text(await self.redis.hget(self.keys.rated_game(game_id), "game")) or ""
        await self.repo.discard(game_id, game, _now_ms())
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.srem(self.keys.rated_pending(bucket_of(game_id)), game_id)
            pipe.zrem(self.keys.rated_due(bucket_of(game_id)), game_id)
            removed, _due = await pipe.execute()
        return bool(removed)

    async def settle(
        self, game_id: str, scores: Sequence[int], winners: Sequence[int], last: Collection[int] = ()
    ) -> bool:
        """Apply a finished rated game's result once, the seats in `last` (resigned or abandoned players) ranked
        below every other; True iff this call applied it."""
        raw = await self.redis.hgetall(self.keys.rated_game(game_id))
        if not raw:
            return False
        info = {_text(k): _text(v) for k, v in raw.items()}
        game = info.pop("game")
        seats = {int(seat): entity for seat, entity in info.items()}
        if sorted(seats) != list(range(len(scores))):
            raise ValueError(f"rated game {game_id} has seats {sorted(seats)} but {len(scores)} scores")
        players = {seat: e.removeprefix("player:") for seat, e in seats.items() if e.startswith("player:")}
        ranks = standings.ranks(scores, winners, last)
        applied = await self.repo.settle(
            game_id, game, players,
            lambda before: {seat: r.skill for seat, r in _rate(
                len(scores), {s: Rating.of(k) for s, k in before.items()}, ranks).items()},
            _now_ms(), DEFAULT.skill,
        )
        async with self.redis.pipeline(transaction=True) as pipe:  # settled here or before: stop checking it
            pipe.srem(self.keys.rated_pending(bucket_of(game_id)), game_id)
            pipe.zrem(self.keys.rated_due(bucket_of(game_id)), game_id)
            await pipe.execute()
        return applied


def _by_bucket(game_ids: list[str]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for game_id in game_ids:
        out.setdefault(bucket_of(game_id), []).append(game_id)
    return out


def _now_ms() -> int:
    return int(time.time() * 1000)


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _rate(n: int, before: dict[int, Rating], ranks: list[int]) -> dict[int, Rating]:
    """New ratings of the human seats; bot seats take part with the default rating."""
    teams = []
    for seat in range(n):
        r = before.get(seat, DEFAULT)
        teams.append([MODEL.rating(mu=r.mu, sigma=r.sigma)])
    result = MODEL.rate(teams, ranks=ranks)
    return {seat: Rating(result[seat][0].mu, result[seat][0].sigma, before[seat].games + 1) for seat in before}
