"""Migration 0003 on both backends, on a database of its own: it upgrades an archive that holds rows written at
0002 (they read as games without a time control), keeps a correspondence game's decision time that INTEGER cannot
hold, downgrades (refused, changing nothing, while such a row exists on PostgreSQL) and upgrades again."""

from __future__ import annotations

import asyncio
import json
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.exc import DBAPIError

from services.archive.db import make_engine
from services.archive.migrate import downgrade, upgrade
from services.archive.models import Base
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository
from services.gamestate.archive_reads import meta_of
from tests.archive_db import own_pg_database

OLD_ID = "old-" + uuid.uuid4().hex[:12]
NEW_ID = "new-" + uuid.uuid4().hex[:12]
PLAYER = uuid.uuid4().hex
HEAD = "0004_tournaments"  # where `upgrade` leads: the tables of the models below
THIRTY_DAYS_MS = 30 * 86_400_000  # 2_592_000_000 > 2**31 - 1
CORRESPONDENCE = {"kind": "correspondence", "days_per_decision": 30}

#: a row as 0002's code wrote it: every column of 0001's table, none of 0003's
_OLD_ROW = sa.text(
    "INSERT INTO archived_games (game_id, game, players, options, seed, bots, owner, seat_players, token_hashes,"
    " resigned, status, version, digest, scores, winners, rated, turn_ms, log_z, state_z, created_ms, finished_ms,"
    " archived_ms) VALUES (:game_id, 'toybids', 2, :options, 7, :bots, :owner, :seat_players, :tokens, :resigned,"
    " 'finished', 3, :digest, :scores, :winners, false, 20000, :log_z, :state_z, 1000, 2000, 2500)"
)
_OLD_PLAYER = sa.text(
    "INSERT INTO archived_game_players (player_id, game_id, seats, owner, game, status, finished_ms)"
    " VALUES (:player, :game_id, :seats, true, 'toybids', 'finished', 2000)"
)


@pytest.fixture(params=["postgresql", "sqlite"])
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of this test alone (the run's shared one is at head already)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'migrations.db'}"
        return
    with own_pg_database("mig") as url:
        yield url


def _new_game() -> ArchivedGame:
    return ArchivedGame(
        game_id=NEW_ID, game="toybids", players=2, options={}, seed=8, bots={}, owner=PLAYER,
        seat_players={1: PLAYER}, token_hashes={}, resigned=[], status="finished", version=4, digest="d" * 64,
        scores=[1, 2], winners=[1], rated=False, clock_ms=THIRTY_DAYS_MS, created_ms=3000, updated_ms=4000,
        archived_ms=4500, log_lines=['{"v":1}'], state_text="{}", time_control=CORRESPONDENCE, abandoned=[0],
    )


async def _columns(engine) -> dict[str, str]:
    async with engine.connect() as conn:
        cols = await conn.run_sync(lambda sync: sa.inspect(sync).get_columns("archived_games"))
    return {c["name"]: str(c["type"]).upper() for c in cols}


async def _revision(engine) -> str:
    async with engine.connect() as conn:
        return (await conn.execute(sa.text("SELECT version_num FROM alembic_version"))).scalar_one()


async def _drift(engine) -> list:
    async with engine.connect() as conn:
        return await conn.run_sync(lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata))


async def _scenario(url: str) -> None:
    engine = make_engine(url)
    repo = ArchiveRepository(engine)
    postgres = engine.dialect.name == "postgresql"
    try:
        await upgrade(engine, "0002_accounts")
        assert not {"time_control", "reserves", "abandoned"} & set(await _columns(engine))
        async with engine.begin() as conn:
            await conn.execute(_OLD_ROW, {
                "game_id": OLD_ID, "options": json.dumps({"rounds": 2}), "bots": json.dumps({}), "owner": PLAYER,
                "seat_players": json.dumps({"0": PLAYER}), "tokens": json.dumps({"0": "ab" * 32}),
                "resigned": json.dumps([]), "digest": "c" * 64, "scores": json.dumps([3, 1]),
                "winners": json.dumps([0]), "log_z": zlib.compress(b'{"v":1}'), "state_z": zlib.compress(b"{}"),
            })
            await conn.execute(_OLD_PLAYER, {"player": PLAYER, "game_id": OLD_ID, "seats": json.dumps([0])})

        await upgrade(engine)
        assert await _revision(engine) == HEAD
        assert await _drift(engine) == []  # the migrations build exactly what the models describe
        old = await repo.get(OLD_ID)
        assert old is not None and old.log_lines == ['{"v":1}'] and old.clock_ms == 20_000
        assert (old.time_control, old.reserves, old.abandoned) == (None, {}, [])  # no time control, not an error
        view = meta_of(old)
        assert view.time_control is None and view.clock_ms == 20_000 and view.seat_players == {0: PLAYER}
        await repo.put_many([_new_game()])  # 30 days per decision: past INTEGER, archived all the same
        new = await repo.get(NEW_ID)
        assert new is not None and new.clock_ms == THIRTY_DAYS_MS
        assert (new.time_control, new.reserves, new.abandoned) == (CORRESPONDENCE, {}, [0])
        page = await repo.history(PLAYER)
        assert [g.game_id for g in page.games] == [NEW_ID, OLD_ID]
        assert [g.time_control for g in page.games] == [CORRESPONDENCE, None]

        if postgres:  # INTEGER cannot hold that row's turn_ms: the downgrade is refused and changes nothing
            with pytest.raises(DBAPIError, match="out of range"):
                await downgrade(engine, "0002_accounts")
            assert await _revision(engine) == HEAD
            assert (await repo.get(NEW_ID)).time_control == CORRESPONDENCE
            async with engine.begin() as conn:
                await conn.execute(sa.text("DELETE FROM archived_games WHERE game_id = :g"), {"g": NEW_ID})

        await downgrade(engine, "0002_accounts")
        assert await _revision(engine) == "0002_accounts"
        columns = await _columns(engine)
        assert not {"time_control", "reserves", "abandoned"} & set(columns)
        assert columns["turn_ms"] == "INTEGER"
        async with engine.connect() as conn:  # the 0002 rows, and their history index (no cascade), are intact
            kept = (await conn.execute(sa.text("SELECT game_id, turn_ms FROM archived_games"))).all()
            index = (await conn.execute(sa.text("SELECT player_id, game_id FROM archived_game_players"))).all()
        expected = [(OLD_ID, 20_000)] + ([] if postgres else [(NEW_ID, THIRTY_DAYS_MS)])
        assert sorted(kept) == sorted(expected)
        assert sorted(index) == sorted((PLAYER, gid) for gid, _ms in expected)

        await upgrade(engine)
        assert await _drift(engine) == []
        again = await repo.get(OLD_ID)
        assert again is not None and again.time_control is None and again.state_text == "{}"
    finally:
        await repo.close()


def test_0003_upgrades_rows_of_0002_and_downgrades(fresh_url: str) -> None:
    asyncio.run(_scenario(fresh_url))
