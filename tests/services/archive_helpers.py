"""What the archive tests of the service share: finished games to archive, the Redis keys a game may
leave behind, the replay of an archived game from SQL alone, a database of the test's own made to refuse one
game, and the operator's `python -m services.gamestate.quarantine`."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import redis
from sqlalchemy import text

from engine.core import Game
from services.archive.db import make_engine
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository
from services.gamestate.client import Created
from services.gamestate.client_sync import GameClient
from services.gamestate.replay import replay_entries
from tests.services.helpers import play_random

ROOT = Path(__file__).resolve().parents[2]


def finished_games(client: GameClient, n: int, seed: int) -> list[Created]:
    """`n` toy games played to their end with seeded random moves."""
    rng = random.Random(seed)
    games = []
    for i in range(n):
        players = rng.choice([2, 3])
        created = client.create_game("toybids", players, seed=seed * 1000 + i, options={"rounds": rng.choice([2, 3])})
        play_random([client], created, players, rng)
        games.append(created)
    return games


def leftover_keys(rdb: redis.Redis, prefix: str, game_ids: list[str]) -> list[str]:
    """Keys under `prefix` that still name one of `game_ids`, or index tokens of them."""
    ids = set(game_ids)
    left = []
    for key in rdb.scan_iter(match=f"{prefix}*", count=1000):
        is_token = key.startswith(f"{prefix}token:")
        if (is_token and (rdb.get(key) or "").rsplit(":", 1)[0] in ids) or any(f"}}:{gid}:" in key for gid in ids):
            left.append(key)
        elif key.startswith(tuple(f"{prefix}{i}:" for i in ("games:finished", "games:active", "clock", "botwait"))):
            left += [f"{key}#{m}" for m in rdb.zrange(key, 0, -1) if m in ids]
    return left


def archived(url: str, game_ids: list[str]) -> dict[str, ArchivedGame]:
    """The archived rows of `game_ids` (with their logs), read from SQL alone."""

    async def go() -> dict[str, ArchivedGame]:
        repo = ArchiveRepository(make_engine(url))
        try:
            return {gid: g for gid in game_ids if (g := await repo.get(gid)) is not None}
        finally:
            await repo.close()

    return asyncio.run(go())


def replayed_digest(game: Game, g: ArchivedGame) -> str:
    """The digest of new(players, seed, options) + the archived log: what the stored digest must be."""
    state = replay_entries(game.new(g.players, g.seed, g.options), game, [json.loads(e) for e in g.log_lines])
    return state.digest()


def sql(url: str, *statements: str) -> None:
    """Run `statements` in one transaction on the archive at `url` (a test's own database)."""

    async def go():
        engine = make_engine(url)
        try:
            async with engine.begin() as conn:
                for s in statements:
                    await conn.execute(text(s))
        finally:
            await engine.dispose()

    asyncio.run(go())


def refuse(url: str, game_id: str) -> None:
    """Make the database itself refuse the row of `game_id` (and only it)."""
    assert re.fullmatch(r"[A-Za-z0-9_-]+", game_id)
    if url.startswith("postgresql"):
        sql(url, f"ALTER TABLE archived_games ADD CONSTRAINT refuse_one CHECK (game_id <> '{game_id}') NOT VALID")
    else:
        sql(url, "CREATE TRIGGER refuse_one BEFORE INSERT ON archived_games "
                 f"WHEN NEW.game_id = '{game_id}' BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END")


def stop_refusing(url: str) -> None:
    """Take back what `refuse` added."""
    sql(url, "ALTER TABLE archived_games DROP CONSTRAINT refuse_one" if url.startswith("postgresql")
        else "DROP TRIGGER refuse_one")


def quarantine_cli(url: str, settings, *args: str) -> tuple[int, list[dict]]:
    """`python -m services.gamestate.quarantine <args>` as an operator runs it: (exit code, its JSON lines)."""
    out = subprocess.run(
        [sys.executable, "-m", "services.gamestate.quarantine", *args, "--url", url, "--redis-url", settings.redis_url,
         "--prefix", settings.key_prefix],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode in (0, 1), out.stdout + out.stderr
    return out.returncode, [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
