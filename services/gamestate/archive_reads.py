"""Reads of archived games for the game-state service: what `GetGame`, `GetLog`, `ListGames` and
`WatchGame` answer once a game has left Redis.

An archived game is immutable, so its record (and the final state parsed from it) is cached per
instance without any expiry. Seat tokens keep working for reading: the archive keeps each seat's token
hash (never the token), so a seat still gets its own view of the final state; nothing can change an
archived game, so every write is refused as for any finished game.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.core import Game, State
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository
from services.gamestate.records import Meta


def meta_of(g: ArchivedGame) -> Meta:
    """The service's view of an archived game's metadata: the record as the archive holds it (time control, reserves
    left, abandoned seats, who sat where, rated), with no clock running, nobody to act and no bot key: the fields
    the archive does not keep have their defaults (services/common/game_record.py)."""
    return replace(g, archived=True)


class ArchivedReads:
    """The archive as the service reads it, with an LRU of records and final states."""

    def __init__(self, repo: ArchiveRepository, get_game: Callable[[str], Game], cache_size: int = 256):
        self.repo = repo
        self.get_game = get_game
        self.cache_size = cache_size
        self._games: OrderedDict[str, tuple[ArchivedGame, State | None]] = OrderedDict()

    async def _get(self, game_id: str) -> tuple[ArchivedGame, State | None] | None:
        hit = self._games.get(game_id)
        if hit is not None:
            self._games.move_to_end(game_id)
            return hit
        g = await self.repo.get(game_id)
        if g is None:
            return None
        self._games[game_id] = (g, None)
        while len(self._games) > self.cache_size:
            self._games.popitem(last=False)
        return g, None

    async def meta(self, game_id: str) -> Meta | None:
        hit = await self._get(game_id)
        return meta_of(hit[0]) if hit else None

    async def metas(self, game_ids: list[str]) -> dict[str, Meta]:
        """game id -> metadata, for those of `game_ids` archived: the cached ones, the others in one query (without
        their blobs, so not cached)."""
        out = {gid: meta_of(self._games[gid][0]) for gid in game_ids if gid in self._games}
        rest = [gid for gid in game_ids if gid not in out]
        out.update({g.game_id: meta_of(g) for g in (await self.repo.get_many(rest) if rest else [])})
        return out

    async def state(self, game_id: str) -> tuple[int, State] | None:
        """(final version, final state) of an archived game; shared with the cache: clone before applying."""
        hit = await self._get(game_id)
        if hit is None:
            return None
        g, state = hit
        if state is None:
            state = self.get_game(g.game).from_json(json.loads(g.state_text))
            if game_id in self._games:
                self._games[game_id] = (g, state)
        return g.version, state

    async def log(self, game_id: str) -> list[dict[str, Any]] | None:
        """The log entries parsed from the archived lines, as the service parses Redis's (same bytes out)."""
        hit = await self._get(game_id)
        return [json.loads(line) for line in hit[0].log_lines] if hit else None

    async def recent(self, game: str, limit: int) -> list[Meta]:
        return [meta_of(g) for g in await self.repo.recent(game, limit)]
