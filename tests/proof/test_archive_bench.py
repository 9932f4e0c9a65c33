"""`bench/archive.py` runs end to end at a tiny size (the benchmark itself is `python -m bench.archive`; this only
proves the script works): games are played, archived and leave Redis, the history query is timed, the JSON and
the plot are written and the database the run created is dropped."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

from bench import archive
from tests.archive_db import PG_SERVER, require_postgres


async def _databases() -> set[str]:
    conn = await asyncpg.connect(f"{PG_SERVER}/postgres", timeout=5)
    try:
        return {r["datname"] for r in await conn.fetch("SELECT datname FROM pg_database")}
    finally:
        await conn.close()


@pytest.mark.slow  # runs the archive benchmark for real: `make test-slow` (in CI)
def test_archive_bench_runs_end_to_end(redis_url, tmp_path):
    require_postgres()
    out, png = tmp_path / "archive.json", tmp_path / "archive.png"
    result = archive.main([
        "--games", "9", "--backlog", "6", "--history-rows", "200", "--queries", "20", "--rest-queries", "6",
        "--rest-players", "4", "--concurrency", "6", "--redis-url", redis_url, "--pg-server", PG_SERVER,
        "--json", str(out), "--plot", str(png),
    ])
    backlog, soak, history = result["backlog"], result["soak"], result["history"]
    assert backlog["archived"] == 6 and backlog["redis_before"]["per_game_bytes"] > 1000
    assert backlog["redis_after"]["keys"] == 0  # archived games leave nothing under the run's prefix
    assert soak["archived"] == 9 and soak["prefix_keys_end"] == 0 and soak["samples"]
    assert set(soak["row_sizes"]["by_title"]) == {"aeroplanes", "blueskies", "opensky"}
    assert history["archived_games"] == 200 and history["first_page"]["n"] == 20 and history["rest_first_page"]["n"]
    assert json.loads(out.read_text())["history"]["archived_games"] == 200
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result["database"].startswith("skyboard_bench_")
    assert result["database"] not in asyncio.run(_databases())  # the database it created was dropped
