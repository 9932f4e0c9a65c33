"""Accounts in SQL: players, API-key hashes, ratings and the settled rated games (migration 0002).

The gateway's `Players`, `Accounts` and `Ratings` (services/gateway/) are thin layers over this repository,
with a short Redis cache in front of the API-key lookup. Every write that must be exactly once is one SQL
transaction: settling a rated game inserts its `settled_games` row first (a second settler of the same game,
on any gateway or matchmaker, waits on that primary key and then finds it taken) and updates the ratings in
the same transaction, the players' rating rows locked in player id order so settlements of different games
sharing a player serialize instead of losing an update. On SQLite the database lock serializes writers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.archive.models import ApiKeyRow, PlayerRow, RatingRow, SettledGameRow

#: (mu, sigma, games) of one rating
Skill = tuple[float, float, int]


class KeyRetired(Exception):
    """The key presented is in its grace period (or gone): only the account's current key changes its keys."""

    def __init__(self, expires_ms: int | None):
        super().__init__("only the current API key can do this")
        self.expires_ms = expires_ms


class TooManyKeys(Exception):
    """The account already has as many working keys as it may."""

    def __init__(self, working: int):
        super().__init__(f"{working} working API keys")
        self.working = working


class NotConfirmed(Exception):
    """An account deletion whose confirmation is not the account's name: nothing was deleted."""


#: The name a deleted account keeps: its games and ratings stay, shown as played by a deleted player.
DELETED_NAME = "deleted player"


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    player_id: str
    name: str
    kind: str
    created_ms: int


@dataclass(frozen=True, slots=True)
class BoardRow:
    player_id: str
    name: str
    kind: str
    mu: float
    sigma: float
    games: int


def ordinal(mu: float, sigma: float) -> float:
    """The conservative skill estimate the leaderboard and matchmaking rank by (stored in `ratings.ordinal`)."""
    return mu - 3 * sigma


class AccountRepository:
    """Players, keys and ratings in SQL. One per process; safe to share between tasks (a session per call)."""

    def __init__(self, engine: AsyncEngine):
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)

    @property
    def _pg(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    def _insert(self, table):
        return (postgresql if self._pg else sqlite).insert(table)

    # players and keys

    async def create_player(self, player_id: str, name: str, kind: str, key_hash: str, now_ms: int) -> None:
        async with self.sessions.begin() as s:
            s.add(PlayerRow(player_id=player_id, name=name, kind=kind, created_ms=now_ms))
            await s.flush()
            s.add(ApiKeyRow(key_hash=key_hash, player_id=player_id, created_ms=now_ms, expires_ms=None))

    async def player(self, player_id: str) -> PlayerRecord | None:
        async with self.sessions() as s:
            row = await s.get(PlayerRow, player_id)
            return PlayerRecord(row.player_id, row.name, row.kind, row.created_ms) if row is not None else None

    async def players(self, player_ids: Iterable[str]) -> dict[str, PlayerRecord]:
        ids = list(dict.fromkeys(player_ids))
        if not ids:
            return {}
        async with self.sessions() as s:
            rows = (await s.execute(select(PlayerRow).where(PlayerRow.player_id.in_(ids)))).scalars()
            return {r.player_id: PlayerRecord(r.player_id, r.name, r.kind, r.created_ms) for r in rows}

    async def key_owner(self, key_hash: str, now_ms: int) -> tuple[str, int | None] | None:
        """(player id, expiry ms or None) of a key hash that works at `now_ms`; None otherwise."""
        q = select(ApiKeyRow.player_id, ApiKeyRow.expires_ms).where(
            ApiKeyRow.key_hash == key_hash, or_(ApiKeyRow.expires_ms.is_(None), ApiKeyRow.expires_ms > now_ms)
        )
        async with self.sessions() as s:
            row = (await s.execute(q)).first()
        return (row[0], row[1]) if row is not None else None

    async def _working_keys(self, s: AsyncSession, player_id: str, now_ms: int) -> dict[str, int | None]:
        """Lock the player's row (one key change of a player at a time; SQLite: the database lock does it),
        drop its keys whose grace is over, and answer the working ones: hash -> expiry ms (None: current)."""
        await s.execute(select(PlayerRow.player_id).where(PlayerRow.player_id == player_id).with_for_update())
        await s.execute(delete(ApiKeyRow).where(
            ApiKeyRow.player_id == player_id, ApiKeyRow.expires_ms.is_not(None), ApiKeyRow.expires_ms <= now_ms
        ))
        rows = await s.execute(select(ApiKeyRow.key_hash, ApiKeyRow.expires_ms).where(ApiKeyRow.player_id == player_id))
        return {h: exp for h, exp in rows.all()}

    async def rotate(
        self, player_id: str, presented_hash: str, new_hash: str, grace_ms: int, now_ms: int, max_keys: int = 0
    ) -> dict[str, int | None]:
        """Make `new_hash` the player's current key. Only the current key rotates (KeyRetired otherwise: a leaked
        key in its grace must not outlive the rotation that retired it). The replaced key works on until now +
        grace, or stops at once with a grace of 0; keys already in their grace keep their expiry. TooManyKeys when
        the account already has `max_keys` working keys (0: no cap). Answers the replaced hash's expiry (None:
        deleted)."""
        async with self.sessions.begin() as s:
            working = await self._working_keys(s, player_id, now_ms)
            if presented_hash not in working or working[presented_hash] is not None:
                raise KeyRetired(working.get(presented_hash))
            if grace_ms > 0 and max_keys and len(working) >= max_keys:
                raise TooManyKeys(len(working))
            if grace_ms <= 0:
                await s.execute(delete(ApiKeyRow).where(ApiKeyRow.key_hash == presented_hash))
                out: dict[str, int | None] = {presented_hash: None}
            else:
                until = now_ms + grace_ms
                await s.execute(update(ApiKeyRow).where(ApiKeyRow.key_hash == presented_hash).values(expires_ms=until))
                out = {presented_hash: until}
            s.add(ApiKeyRow(key_hash=new_hash, player_id=player_id, created_ms=now_ms, expires_ms=None))
        return out

    async def revoke_others(self, player_id: str, presented_hash: str, now_ms: int) -> list[str]:
        """Delete every key of the player but the current one, which must be `presented_hash` (KeyRetired
        otherwise: a leaked key cannot lock the owner out). Answers the hashes deleted while still working."""
        async with self.sessions.begin() as s:
            working = await self._working_keys(s, player_id, now_ms)
            if presented_hash not in working or working[presented_hash] is not None:
                raise KeyRetired(working.get(presented_hash))
            others = [h for h in working if h != presented_hash]
            if others:
                await s.execute(delete(ApiKeyRow).where(ApiKeyRow.key_hash.in_(others)))
        return others

    async def delete_player(self, player_id: str, presented_hash: str, confirm_name: str, now_ms: int) -> list[str]:
        """Delete the account: every API key of it, and its name, which becomes DELETED_NAME. `presented_hash` must
        be its current key (KeyRetired otherwise, as for revoke-others) and `confirm_name` its name (NotConfirmed
        otherwise); one transaction, the player's row locked. The row itself stays, so its finished games, the
        archive's seats and the ratings settled with it keep pointing at one player. Answers the hashes deleted
        while still working."""
        async with self.sessions.begin() as s:
            working = await self._working_keys(s, player_id, now_ms)
            if presented_hash not in working or working[presented_hash] is not None:
                raise KeyRetired(working.get(presented_hash))
            row = await s.get(PlayerRow, player_id)
            if row is None or row.name != confirm_name:
                raise NotConfirmed()
            await s.execute(delete(ApiKeyRow).where(ApiKeyRow.player_id == player_id))
            row.name = DELETED_NAME
        return list(working)

    # ratings

    async def rating(self, player_id: str, game: str) -> Skill | None:
        q = select(RatingRow.mu, RatingRow.sigma, RatingRow.games).where(
            RatingRow.player_id == player_id, RatingRow.game == game
        )
        async with self.sessions() as s:
            row = (await s.execute(q)).first()
        return (row[0], row[1], row[2]) if row is not None else None

    async def ratings(self, player_id: str) -> dict[str, Skill]:
        q = select(RatingRow.game, RatingRow.mu, RatingRow.sigma, RatingRow.games).where(
            RatingRow.player_id == player_id
        ).order_by(RatingRow.game)
        async with self.sessions() as s:
            return {g: (mu, sigma, n) for g, mu, sigma, n in (await s.execute(q)).all()}

    async def leaderboard(self, game: str, limit: int, offset: int = 0) -> list[BoardRow]:
        """Players rated in `game`, highest ordinal first (ties by player id): an index range scan."""
        q = (
            select(RatingRow.player_id, PlayerRow.name, PlayerRow.kind, RatingRow.mu, RatingRow.sigma, RatingRow.games)
            .join(PlayerRow, PlayerRow.player_id == RatingRow.player_id)
            .where(RatingRow.game == game)
            .order_by(RatingRow.ordinal.desc(), RatingRow.player_id)
            .limit(limit)
            .offset(offset)
        )
        async with self.sessions() as s:
            return [BoardRow(*row) for row in (await s.execute(q)).all()]

    async def is_settled(self, game_id: str) -> bool:
        async with self.sessions() as s:
            return await s.get(SettledGameRow, game_id) is not None

    async def _claim(self, s: AsyncSession, game_id: str, game: str, outcome: str, now_ms: int) -> bool:
        """Insert the game's settled row; False if it was there (settled or discarded before, or concurrently:
        PostgreSQL makes this insert wait for the other transaction, then finds the key taken)."""
        done = await s.execute(
            self._insert(SettledGameRow.__table__)
            .values(game_id=game_id, game=game, outcome=outcome, settled_ms=now_ms)
            .on_conflict_do_nothing()
        )
        return done.rowcount == 1

    async def discard(self, game_id: str, game: str, now_ms: int) -> bool:
        """Record an aborted rated game as never to be settled; True iff this call recorded it."""
        async with self.sessions.begin() as s:
            return await self._claim(s, game_id, game, "discarded", now_ms)

    async def settle(
        self, game_id: str, game: str, players: dict[int, str],
        rate: Callable[[dict[int, Skill]], dict[int, Skill]], now_ms: int, default: Skill,
    ) -> bool:
        """Apply a rated game once: claim its settled row, lock its players' ratings (`default` for a first
        game), write `rate(before)` (seat -> new skill of the `players` seats), all in one transaction. True iff
        this call applied it. Seats of players without an account row are rated but not stored."""
        async with self.sessions.begin() as s:
            if not await self._claim(s, game_id, game, "settled", now_ms):
                return False
            ids = sorted(set(players.values()))
            known = set((await s.execute(select(PlayerRow.player_id).where(PlayerRow.player_id.in_(ids)))).scalars())
            ids = [pid for pid in ids if pid in known]
            if ids:
                mu, sigma, _n = default
                # rows of first games exist before the lock, so every settlement of these players queues on them
                await s.execute(self._insert(RatingRow.__table__).values([
                    {"player_id": pid, "game": game, "mu": mu, "sigma": sigma, "ordinal": ordinal(mu, sigma),
                     "games": 0, "updated_ms": now_ms} for pid in ids
                ]).on_conflict_do_nothing())
                rows = (await s.execute(
                    select(RatingRow.player_id, RatingRow.mu, RatingRow.sigma, RatingRow.games)
                    .where(RatingRow.game == game, RatingRow.player_id.in_(ids))
                    .order_by(RatingRow.player_id)
                    .with_for_update()
                )).all()
                current = {pid: (m, sd, n) for pid, m, sd, n in rows}
            else:
                current = {}
            before = {seat: current.get(pid, default) for seat, pid in players.items()}
            after = rate(before)
            for seat, pid in players.items():
                if pid not in current:
                    continue
                m, sd, n = after[seat]
                await s.execute(update(RatingRow).where(RatingRow.player_id == pid, RatingRow.game == game).values(
                    mu=m, sigma=sd, ordinal=ordinal(m, sd), games=n, updated_ms=now_ms
                ))
        return True

    async def close(self) -> None:
        await self.engine.dispose()

