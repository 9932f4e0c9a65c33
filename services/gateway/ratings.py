"""Per-game multiplayer ratings with openskill (Plackett-Luce), settled exactly once per game.

A rated game (one the matchmaker created) has a Redis hash seat -> entity
("player:<id>" or "bot:<level>"). When anyone notices it finished, `settle`
runs one WATCH/MULTI transaction that checks the game's done flag and the
players' ratings and writes the new ratings, the leaderboard and the done flag
together: a concurrent or repeated settle changes nothing. Bots play with the
default rating and are never updated or listed. A player who resigned or whose
seat was abandoned ranks last, below every other seat, whatever the zombie bot
that played the seat out achieved; an aborted game settles nothing (`discard`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from openskill.models import PlackettLuce
from redis.asyncio import Redis
from redis.exceptions import WatchError

from services.gateway.keys import Keys

MODEL = PlackettLuce()


class Ended(Protocol):
    """What settling needs of a game (services.gamestate.client.GameState has it)."""

    game_id: str
    status: str
    scores: list[int]
    winners: list[int]
    resigned: list[int]
    abandoned: list[int]
DONE_TTL_S = 30 * 86_400


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


DEFAULT = Rating(MODEL.mu, MODEL.sigma, 0)


def _decode(raw: str | bytes | None) -> Rating:
    if raw is None:
        return DEFAULT
    obj = json.loads(raw)
    return Rating(float(obj["mu"]), float(obj["sigma"]), int(obj.get("games", 0)))


def ranks_from_result(scores: Sequence[int], winners: Sequence[int], last: Collection[int] = ()) -> list[int]:
    """Rank 1 for the winners (the engine's tie-break already applied), then by score, ties shared; the seats in
    `last` (players who resigned or were abandoned) rank below every other seat, tied among themselves."""
    out = set(last)
    ranked = [seat for seat in range(len(scores)) if seat not in out]
    winner_set = set(winners) - out
    others = sorted({scores[seat] for seat in ranked if seat not in winner_set}, reverse=True)
    first_other = 2 if winner_set else 1
    ranks = [0] * len(scores)
    for seat in ranked:
        ranks[seat] = 1 if seat in winner_set else first_other + others.index(scores[seat])
    bottom = max((ranks[seat] for seat in ranked), default=0) + 1
    for seat in out:
        ranks[seat] = bottom
    return ranks


# KEYS: rated_pending, rated_due, then rated:<id> per game. ARGV: check time ms, JSON array of
# [game_id, game, [seat, entity, seat, entity, ...]] per game (same order as the keys).
_REGISTER = """
local games = cjson.decode(ARGV[2])
for i, g in ipairs(games) do
  redis.call('HSET', KEYS[2 + i], 'game', g[2], unpack(g[3]))
  redis.call('SADD', KEYS[1], g[1])
  redis.call('ZADD', KEYS[2], ARGV[1], g[1])
end
return #games
"""


class Ratings:
    """Reads and settles ratings in Redis."""

    def __init__(self, redis: Redis, keys: Keys):
        self.redis = redis
        self.keys = keys
        self._register = redis.register_script(_REGISTER)

    async def get(self, player_id: str, game: str) -> Rating:
        return _decode(await self.redis.hget(self.keys.rating(player_id), game))

    async def all_games(self, player_id: str) -> dict[str, Rating]:
        raw = await self.redis.hgetall(self.keys.rating(player_id))
        return {(k.decode() if isinstance(k, bytes) else k): _decode(v) for k, v in sorted(raw.items())}

    async def leaderboard(self, game: str, limit: int, offset: int = 0) -> list[tuple[str, Rating]]:
        ids = await self.redis.zrevrange(self.keys.leaderboard(game), offset, offset + limit - 1)
        out = []
        for pid in ids:
            pid = pid.decode() if isinstance(pid, bytes) else pid
            out.append((pid, await self.get(pid, game)))
        return out

    async def register_game(self, game_id: str, game: str, seats: dict[int, str], check_at_ms: int = 0) -> None:
        """Mark a game as rated: seat -> entity ("player:<id>" or "bot:<level>")."""
        await self.register_games([(game_id, game, seats)], check_at_ms)

    async def register_games(self, games: list[tuple[str, str, dict[int, str]]], check_at_ms: int = 0) -> None:
        """`register_game` for many games in one script (their data as one JSON argument); the matchmaker
        first checks them at check_at_ms."""
        if not games:
            return
        keys = [self.keys.rated_pending(), self.keys.rated_due(), *(self.keys.rated_game(g[0]) for g in games)]
        rows = [[game_id, game, [x for seat, entity in seats.items() for x in (str(seat), entity)]]
                for game_id, game, seats in games]
        await self._register(keys=keys, args=[check_at_ms, json.dumps(rows)])

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """Up to `limit` unsettled rated games whose next check time has come, earliest first."""
        ids = await self.redis.zrangebyscore(self.keys.rated_due(), "-inf", now_ms, start=0, num=limit)
        return [i.decode() if isinstance(i, bytes) else i for i in ids]

    async def schedule(self, game_ids: list[str], at_ms: int) -> None:
        """Check these games again at `at_ms`."""
        if game_ids:
            await self.redis.zadd(self.keys.rated_due(), dict.fromkeys(game_ids, at_ms))

    async def unschedule(self, game_ids: list[str]) -> None:
        if game_ids:
            await self.redis.zrem(self.keys.rated_due(), *game_ids)

    async def schedule_unscheduled(self, at_ms: int) -> int:
        """Give every pending game without a check time one (games rated before the schedule existed)."""
        pending = await self.pending()
        if not pending:
            return 0
        return int(await self.redis.zadd(self.keys.rated_due(), dict.fromkeys(pending, at_ms), nx=True))

    async def is_rated(self, game_id: str) -> bool:
        return bool(await self.redis.exists(self.keys.rated_game(game_id)))

    async def pending(self) -> list[str]:
        return sorted(m.decode() if isinstance(m, bytes) else m for m in await self.redis.smembers(
            self.keys.rated_pending()))

    async def seats(self, game_id: str) -> dict[int, str]:
        """A rated game's seat -> entity ("player:<id>" or "bot:<level>"); empty for an unrated game."""
        raw = await self.redis.hgetall(self.keys.rated_game(game_id))
        text = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                for k, v in raw.items()}
        return {int(seat): entity for seat, entity in text.items() if seat != "game"}

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
        """An aborted rated game: settle nothing, and stop checking it. True iff it was still pending."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self.keys.rated_done(game_id), "1", ex=DONE_TTL_S)
            pipe.srem(self.keys.rated_pending(), game_id)
            pipe.zrem(self.keys.rated_due(), game_id)
            _done, removed, _due = await pipe.execute()
        return bool(removed)

    async def settle(
        self, game_id: str, scores: Sequence[int], winners: Sequence[int], last: Collection[int] = ()
    ) -> bool:
        """Apply a finished rated game's result once, the seats in `last` (resigned or abandoned players) ranked
        below every other; True iff this call applied it."""
        raw = await self.redis.hgetall(self.keys.rated_game(game_id))
        if not raw:
            return False
        info = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                for k, v in raw.items()}
        game = info.pop("game")
        seats = {int(seat): entity for seat, entity in info.items()}
        if sorted(seats) != list(range(len(scores))):
            raise ValueError(f"rated game {game_id} has seats {sorted(seats)} but {len(scores)} scores")
        players = {seat: e.removeprefix("player:") for seat, e in seats.items() if e.startswith("player:")}
        done = self.keys.rated_done(game_id)
        rating_keys = [self.keys.rating(pid) for pid in players.values()]
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(done, *rating_keys)
                    if await pipe.exists(done):
                        await pipe.unwatch()
                        return False
                    before = {seat: _decode(await pipe.hget(self.keys.rating(pid), game))
                              for seat, pid in players.items()}
                    after = _rate(len(scores), before, ranks_from_result(scores, winners, last))
                    pipe.multi()
                    pipe.set(done, "1", ex=DONE_TTL_S)
                    pipe.srem(self.keys.rated_pending(), game_id)
                    pipe.zrem(self.keys.rated_due(), game_id)
                    for seat, pid in players.items():
                        pipe.hset(self.keys.rating(pid), game, json.dumps(after[seat].to_json()))
                        pipe.zadd(self.keys.leaderboard(game), {pid: after[seat].ordinal})
                    await pipe.execute()
                    return True
                except WatchError:
                    continue


def _rate(n: int, before: dict[int, Rating], ranks: list[int]) -> dict[int, Rating]:
    """New ratings of the human seats; bot seats take part with the default rating."""
    teams = []
    for seat in range(n):
        r = before.get(seat, DEFAULT)
        teams.append([MODEL.rating(mu=r.mu, sigma=r.sigma)])
    result = MODEL.rate(teams, ranks=ranks)
    return {seat: Rating(result[seat][0].mu, result[seat][0].sigma, before[seat].games + 1) for seat in before}
