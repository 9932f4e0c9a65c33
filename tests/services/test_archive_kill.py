"""An archiver killed with SIGKILL at random points loses nothing and duplicates nothing: after restarts
every finished game is in SQL exactly once, gone from Redis, and replays from SQL alone to its digest."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select

from services.archive.db import make_engine
from services.archive.models import ArchivedGameRow, ArchivedPlayerRow
from tests.services.archive_helpers import archived, finished_games, leftover_keys, replayed_digest
from tests.services.test_restart import ROOT

#: minutes of wall clock: run by `make test-slow` (in CI), not by `make test`
pytestmark = pytest.mark.slow

#: SIGKILLs at random moments before an archiver is left to finish (each costs a process start, ~1 s).
KILLS = 12


def _spawn(settings, archive_url: str) -> subprocess.Popen:
    env = {
        **os.environ, "REDIS_URL": settings.redis_url, "GRPC_ADDR": "127.0.0.1:0", "METRICS_PORT": "0",
        "KEY_PREFIX": settings.key_prefix, "DISPATCH_BOTS": "false", "SERVICE_SECRET": settings.service_secret,
        "ARCHIVE_URL": archive_url, "ARCHIVE_AFTER_S": "0", "ARCHIVE_INTERVAL_S": "0.01", "ARCHIVE_BATCH": "2",
        "ARCHIVE_LEASE_S": "0.2",  # a killed archiver's claims expire quickly
    }
    proc = subprocess.Popen([sys.executable, "-m", "tests.services.serve_proc"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("PORT "), "service process did not start"
    return proc


def _counts(url: str, ids: list[str]) -> tuple[dict[str, int], int]:
    async def go():
        engine = make_engine(url)
        try:
            async with engine.connect() as conn:
                per_game = (await conn.execute(
                    select(ArchivedGameRow.game_id, func.count()).where(ArchivedGameRow.game_id.in_(ids))
                    .group_by(ArchivedGameRow.game_id)
                )).all()
                players = (await conn.execute(
                    select(func.count()).select_from(ArchivedPlayerRow).where(ArchivedPlayerRow.game_id.in_(ids))
                )).scalar_one()
                return dict(per_game), players
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_archiver_killed_at_random_points_loses_and_duplicates_nothing(
    client, settings, rdb, prefix, registry, archive_pg_url
):
    games = finished_games(client, 30, seed=21)
    ids = [g.game_id for g in games]
    digests = {g.game_id: client.get_game(g.game_id).digest for g in games}
    rng = random.Random(7)
    kills = 0
    while leftover_keys(rdb, prefix, ids) and kills < KILLS:
        proc = _spawn(settings, archive_pg_url)
        time.sleep(rng.uniform(0.0, 0.05))  # anywhere: mid-read, mid-insert, between commit and delete
        proc.kill()
        proc.wait(10)
        kills += 1
    assert kills >= 5, "the archive finished before the archiver was killed a few times: not a crash test"
    proc = _spawn(settings, archive_pg_url)  # then one archiver left alone finishes what the killed ones left
    try:
        deadline = time.monotonic() + 60
        while leftover_keys(rdb, prefix, ids) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait(10)
    assert leftover_keys(rdb, prefix, ids) == []
    per_game, player_rows = _counts(archive_pg_url, ids)
    assert per_game == dict.fromkeys(ids, 1)  # every game, exactly once
    assert player_rows == 0  # anonymous games: no owner, no seat players to index
    rows = archived(archive_pg_url, ids)
    game = registry.get("toybids")
    for gid in ids:
        assert replayed_digest(game, rows[gid]) == rows[gid].digest == digests[gid]
