"""An archiver killed with SIGKILL at random points loses nothing and duplicates nothing: after restarts
every finished game is in SQL exactly once, gone from Redis, and replays from SQL alone to its digest. The same
holds while the database refuses one game: killed mid-batch, mid one-by-one retry or while setting that game
aside, the others are archived exactly once, the refused one stays in Redis, set aside, until a retry archives it."""

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
from services.dev.launch import start_announcing
from services.gamestate.keys import Keys
from tests.archive_db import own_archive
from tests.services.archive_helpers import (
    archived,
    finished_games,
    leftover_keys,
    quarantine_cli,
    refuse,
    replayed_digest,
    stop_refusing,
)
from tests.services.test_restart import ROOT

#: minutes of wall clock: run by `make test-slow` (in CI), not by `make test`
pytestmark = pytest.mark.slow

#: SIGKILLs at random moments before an archiver is left to finish (each costs a process start, ~1 s).
KILLS = 12


def _spawn(settings, archive_url: str) -> subprocess.Popen:
    env = {
        **os.environ, "REDIS_URL": settings.redis_url, "GRPC_ADDR": "127.0.0.1:0", "ADMIN_GRPC_ADDR": "127.0.0.1:0",
        "METRICS_PORT": "0",
        "KEY_PREFIX": settings.key_prefix, "DISPATCH_BOTS": "false", "SERVICE_SECRET": settings.service_secret,
        "ARCHIVE_URL": archive_url, "ARCHIVE_AFTER_S": "0", "ARCHIVE_INTERVAL_S": "0.01", "ARCHIVE_BATCH": "1",
        "ARCHIVE_LEASE_S": "0.2",  # a killed archiver's claims expire quickly
        # one game a batch, and 40 games: archivers that live 0-50 ms each need many lives to finish the archive
        # (with 2 a batch and 20 games, 4 lives once did, and the kill-count guard below failed)
    }
    return start_announcing([sys.executable, "-m", "tests.services.serve_proc"], env, ROOT)[0]


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
    games = finished_games(client, 40, seed=21)
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


def _kill_repeatedly(settings, url: str, rdb, prefix: str, ids: list[str], rng: random.Random) -> int:
    """Start archivers and SIGKILL each at a random moment while any of `ids` is in Redis; returns the kills."""
    kills = 0
    while leftover_keys(rdb, prefix, ids) and kills < KILLS:
        proc = _spawn(settings, url)
        time.sleep(rng.uniform(0.0, 0.05))
        proc.kill()
        proc.wait(10)
        kills += 1
    return kills


def test_archiver_killed_around_a_refused_game_loses_and_duplicates_nothing(
    client, settings, rdb, prefix, registry, tmp_path
):
    with own_archive("postgresql", tmp_path, "kill") as url:
        games = finished_games(client, 40, seed=23)
        ids = [g.game_id for g in games]
        bad = ids[7]
        good = [gid for gid in ids if gid != bad]
        digests = {g.game_id: client.get_game(g.game_id).digest for g in games}
        refuse(url, bad)
        kills = _kill_repeatedly(settings, url, rdb, prefix, good, random.Random(8))
        assert kills >= 5, "the archive finished before the archiver was killed a few times: not a crash test"
        proc = _spawn(settings, url)  # one archiver left alone finishes, and sets the refused game aside
        try:
            deadline = time.monotonic() + 60
            while (leftover_keys(rdb, prefix, good) or rdb.zscore(f"{prefix}games:quarantined", bad) is None) \
                    and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            proc.kill()
            proc.wait(10)
        assert leftover_keys(rdb, prefix, good) == []
        assert _counts(url, ids)[0] == dict.fromkeys(good, 1)  # every other game exactly once; not the refused one
        assert client.get_game(bad).status == "finished" and client.get_game(bad).digest == digests[bad]
        assert int(rdb.hget(Keys(prefix).refused(bad), "attempts")) >= 1
        stop_refusing(url)
        code, lines = quarantine_cli(url, settings, "retry", "--all")
        assert (code, lines) == (0, [{"game_id": bad, "outcome": "archived"}])
        assert leftover_keys(rdb, prefix, ids) == []
        assert _counts(url, ids)[0] == dict.fromkeys(ids, 1)
        rows = archived(url, ids)
        game = registry.get("toybids")
        for gid in ids:
            assert replayed_digest(game, rows[gid]) == rows[gid].digest == digests[gid]
