"""What the archive tests of the service share: finished games to archive, the Redis keys a game may
leave behind, and the replay of an archived game from SQL alone."""

from __future__ import annotations

import asyncio
import json
import random

import redis

from engine.core import Game
from services.archive.db import make_engine
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository
from services.gamestate.client import Created, GameClient
from services.gamestate.store import replay_entries
from tests.services.helpers import play_random


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
        if (is_token and (rdb.get(key) or "").rsplit(":", 1)[0] in ids) or any(f"{{{gid}}}" in key for gid in ids):
            left.append(key)
        elif key in (f"{prefix}games:finished", f"{prefix}games:active", f"{prefix}clock", f"{prefix}botwait"):
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
