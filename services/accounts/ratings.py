"""Per-game multiplayer ratings with openskill (Plackett-Luce), settled exactly once per game.

A rated game (one the matchmaker or a challenge created) has a Redis hash seat -> entity
("player:<id>" or "bot:<level>"), and sits in the pending set while it plays (hot state, Redis). The
ratings themselves are in SQL (services/accounts/repository.py, the system of record): when the
outcomes consumer (services/outcomes/) reads the game's end in the outbox, `settle` runs one SQL transaction that
inserts the game's `settled_games` row and updates the players' ratings (ordinal stored, so the
leaderboard is an indexed `ORDER BY`): a concurrent or repeated settle (a redelivered outbox entry)
finds the row taken and changes nothing. Bots play with the
default rating and are never updated or listed. A player who resigned or whose
seat was abandoned ranks last, below every other seat, whatever the zombie bot
that played the seat out achieved; an aborted game settles nothing (`discard`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from openskill.models import PlackettLuce
from redis.asyncio import Redis

from services.accounts.keys import BUCKETS, Keys, bucket_of
from services.accounts.repository import AccountRepository, BoardRow, Skill
from services.common.redis_scripts import LuaScript

MODEL = PlackettLuce()


class Ended(Protocol):
    """What settling needs of a game (services.gamestate.client.GameState has it): its status and, once finished,
    each seat's place, the game's result as every surface shows it (services/common/standings.py)."""

    game_id: str
    status: str
    places: list[int]


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
    """Ratings in SQL; the rated games in play (registration, pending set) in Redis."""

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

    async def register_game(self, game_id: str, game: str, seats: dict[int, str]) -> None:
        """Mark a game as rated: seat -> entity ("player:<id>" or "bot:<level>")."""
        await self.register_games([(game_id, game, seats)])

    async def register_games(self, games: list[tuple[str, str, dict[int, str]]]) -> None:
        """`register_game` for many games in one script (their data as one JSON argument)."""
        if not games:
            return
        by_bucket: dict[int, list[tuple[str, str, dict[int, str]]]] = {}
        for row in games:
            by_bucket.setdefault(bucket_of(row[0]), []).append(row)
        # one script per bucket (a bucket is one cluster slot), all sent together
        await asyncio.gather(*(self._register(
            keys={"pending": self.keys.rated_pending(b), "games": [self.keys.rated_game(g[0]) for g in rows]},
            args={"rows": json.dumps(
                [[game_id, game, [x for seat, entity in seats.items() for x in (str(seat), entity)]]
                 for game_id, game, seats in rows])},
        ) for b, rows in by_bucket.items()))

    async def is_rated(self, game_id: str) -> bool:
        return bool(await self.redis.exists(self.keys.rated_game(game_id)))

    async def pending(self) -> list[str]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for b in range(BUCKETS):
                pipe.smembers(self.keys.rated_pending(b))
            replies = await pipe.execute()
        return sorted(_text(m) for members in replies for m in members)

    async def conclude(self, game: Ended) -> bool:
        """Settle a finished rated game by its places (its resigned and abandoned seats last) or discard an aborted
        one, as the game-state service shows it; True iff this call settled it. Nothing while it runs."""
        if game.status == "aborted":
            await self.discard(game.game_id)
            return False
        if game.status != "finished":
            return False
        return await self.settle(game.game_id, game.places)

    async def discard(self, game_id: str) -> bool:
        """An aborted rated game: settle nothing, ever. True iff it was still pending."""
        game = _text(await self.redis.hget(self.keys.rated_game(game_id), "game")) or ""
        await self.repo.discard(game_id, game, _now_ms())
        return bool(await self.redis.srem(self.keys.rated_pending(bucket_of(game_id)), game_id))

    async def settle(self, game_id: str, places: Sequence[int]) -> bool:
        """Apply a finished rated game's result once: each seat's place (1 = first, equal places tied), the game's
        result as the game-state service gives it (services/common/standings.py: resigned and abandoned players
        last); True iff this call applied it."""
        raw = await self.redis.hgetall(self.keys.rated_game(game_id))
        if not raw:
            return False
        info = {_text(k): _text(v) for k, v in raw.items()}
        game = info.pop("game")
        seats = {int(seat): entity for seat, entity in info.items()}
        if sorted(seats) != list(range(len(places))):
            raise ValueError(f"rated game {game_id} has seats {sorted(seats)} but {len(places)} places")
        players = {seat: e.removeprefix("player:") for seat, e in seats.items() if e.startswith("player:")}
        applied = await self.repo.settle(
            game_id, game, players,
            lambda before: {seat: r.skill for seat, r in _rate(
                len(places), {s: Rating.of(k) for s, k in before.items()}, list(places)).items()},
            _now_ms(), DEFAULT.skill,
        )
        await self.redis.srem(self.keys.rated_pending(bucket_of(game_id)), game_id)  # settled here or before
        return applied


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
