"""The archive's one access path: idempotent inserts, reads by id, lists, and the per-player history.

Inserts are "insert if absent" by game id (PostgreSQL and SQLite both `ON CONFLICT DO NOTHING`), so
an archiver that retries after a crash, or two archivers racing for one game, never write it twice;
`put_many` answers the digest stored for every id, which is what lets the archiver drop a game from
Redis only once its row is committed and matches. When the database refuses a batch for one row's sake,
`put_each` writes its games one transaction each, so the others commit and the refused ones are named
(services/archive/refusals.py tells a refused row from a database that cannot work at all).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker
from sqlalchemy.orm import defer

from services.archive.models import ArchivedGameRow, ArchivedPlayerRow
from services.archive.record import ArchivedGame
from services.archive.refusals import Refusal, refusal_of

#: Rows per INSERT statement (asyncpg allows 32767 bind parameters; a game row takes 25)
CHUNK = 500

STATUSES = ("finished", "aborted")


class BadCursor(ValueError):
    """A history cursor this archive did not make."""


@dataclass(slots=True)
class HistoryPage:
    games: list[ArchivedGame]
    next_cursor: str | None


def encode_cursor(finished_ms: int, game_id: str) -> str:
    return base64.urlsafe_b64encode(f"{finished_ms}:{game_id}".encode()).decode().rstrip("=")


#: What a cursor holds: a finished time of 1-18 ASCII digits (below 2**63, a BIGINT) and an ASCII game id. Why
#: so strict: `int()` also reads Arabic-Indic digits, signs, spaces and "_", and a time past BIGINT reached the
#: database as a 500.
_CURSOR = re.compile(r"([0-9]{1,18}):([\x21-\x7e]{1,64})")


def decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadCursor("not a cursor of this listing") from None
    match = _CURSOR.fullmatch(raw)
    if match is None:
        raise BadCursor("not a cursor of this listing")
    return int(match[1]), match[2]


def _player_rows(g: ArchivedGame) -> list[dict[str, Any]]:
    return [
        {"player_id": pid, "game_id": g.game_id, "seats": seats, "owner": pid == g.owner, "game": g.game,
         "status": g.status, "finished_ms": g.updated_ms}
        for pid, seats in g.player_seats().items()
    ]


_NO_BLOBS = (defer(ArchivedGameRow.log_z), defer(ArchivedGameRow.state_z))


class ArchiveRepository:
    """Archived games in SQL. One per process; safe to share between tasks (a session per call)."""

    def __init__(self, engine: AsyncEngine):
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)

    def _insert(self, table):
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table).on_conflict_do_nothing()

    async def put_many(self, games: list[ArchivedGame]) -> dict[str, str]:
        """Insert the games not archived yet, in one transaction; then game id -> the digest stored for it
        (for every given id: a row written earlier answers its own digest)."""
        if not games:
            return {}
        async with self.sessions.begin() as session:
            for i in range(0, len(games), CHUNK):
                part = games[i:i + CHUNK]
                await session.execute(self._insert(ArchivedGameRow.__table__), [g.to_row() for g in part])
                players = [p for g in part for p in _player_rows(g)]
                if players:
                    await session.execute(self._insert(ArchivedPlayerRow.__table__), players)
        return await self.digests([g.game_id for g in games])

    async def put_each(self, games: list[ArchivedGame]) -> tuple[dict[str, str], dict[str, Refusal]]:
        """Insert each game in a transaction of its own: (game id -> the digest stored for it, as `put_many`;
        game id -> why the database refused its row; a refused id may still have a row, written before). A failure
        that is not one row's (services/archive/refusals.py) is raised: what committed before it stays, and the next
        insert finds it (idempotent)."""
        refused: dict[str, Refusal] = {}
        for g in games:
            try:
                async with self.sessions.begin() as session:
                    await session.execute(self._insert(ArchivedGameRow.__table__), [g.to_row()])
                    players = _player_rows(g)
                    if players:
                        await session.execute(self._insert(ArchivedPlayerRow.__table__), players)
            except Exception as exc:
                refusal = refusal_of(exc)
                if refusal is None:
                    raise
                refused[g.game_id] = refusal
        return await self.digests([g.game_id for g in games]), refused

    async def digests(self, game_ids: list[str]) -> dict[str, str]:
        """game id -> stored digest, for those of `game_ids` that are archived."""
        out: dict[str, str] = {}
        async with self.sessions() as session:
            for i in range(0, len(game_ids), CHUNK):
                q = select(ArchivedGameRow.game_id, ArchivedGameRow.digest).where(
                    ArchivedGameRow.game_id.in_(game_ids[i:i + CHUNK])
                )
                out.update({gid: d for gid, d in (await session.execute(q)).all()})
        return out

    async def get(self, game_id: str, *, blobs: bool = True) -> ArchivedGame | None:
        """The archived game (with its log lines and final state unless `blobs` is False), or None."""
        async with self.sessions() as session:
            q = select(ArchivedGameRow).where(ArchivedGameRow.game_id == game_id)
            if not blobs:
                q = q.options(*_NO_BLOBS)
            row = (await session.execute(q)).scalar_one_or_none()
            return ArchivedGame.from_row(row, blobs=blobs) if row is not None else None

    async def get_many(self, game_ids: list[str]) -> list[ArchivedGame]:
        """The archived games among `game_ids`, without their blobs, in one query per CHUNK ids."""
        out: list[ArchivedGame] = []
        async with self.sessions() as session:
            for i in range(0, len(game_ids), CHUNK):
                q = select(ArchivedGameRow).options(*_NO_BLOBS).where(
                    ArchivedGameRow.game_id.in_(game_ids[i:i + CHUNK]))
                out.extend(ArchivedGame.from_row(r, blobs=False) for r in (await session.execute(q)).scalars())
        return out

    async def recent(self, game: str = "", limit: int = 50) -> list[ArchivedGame]:
        """The most recently created archived games (of `game` if given), without their blobs."""
        q = select(ArchivedGameRow).options(*_NO_BLOBS)
        if game:
            q = q.where(ArchivedGameRow.game == game)
        q = q.order_by(ArchivedGameRow.created_ms.desc(), ArchivedGameRow.game_id.desc()).limit(limit)
        async with self.sessions() as session:
            return [ArchivedGame.from_row(r, blobs=False) for r in (await session.execute(q)).scalars()]

    async def history(
        self, player_id: str, *, game: str = "", status: str = "", cursor: str | None = None, limit: int = 20
    ) -> HistoryPage:
        """A player's archived games, newest finished first; `next_cursor` continues after the last one."""
        p = ArchivedPlayerRow
        q = select(p.game_id, p.finished_ms).where(p.player_id == player_id)
        if game:
            q = q.where(p.game == game)
        if status:
            q = q.where(p.status == status)
        if cursor:
            ms, gid = decode_cursor(cursor)
            q = q.where(or_(p.finished_ms < ms, and_(p.finished_ms == ms, p.game_id < gid)))
        q = q.order_by(p.finished_ms.desc(), p.game_id.desc()).limit(limit + 1)
        async with self.sessions() as session:
            keys = (await session.execute(q)).all()
            more = len(keys) > limit
            keys = keys[:limit]
            ids = [gid for gid, _ms in keys]
            rows = {}
            if ids:
                found = await session.execute(
                    select(ArchivedGameRow).options(*_NO_BLOBS).where(ArchivedGameRow.game_id.in_(ids))
                )
                rows = {r.game_id: r for r in found.scalars()}
        games = [ArchivedGame.from_row(rows[gid], blobs=False) for gid in ids if gid in rows]
        next_cursor = encode_cursor(keys[-1][1], keys[-1][0]) if more and keys else None
        return HistoryPage(games, next_cursor)

    async def count(self) -> int:
        async with self.sessions() as session:
            return (await session.execute(select(func.count()).select_from(ArchivedGameRow))).scalar_one()

    async def close(self) -> None:
        await self.engine.dispose()
