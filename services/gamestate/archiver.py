"""The archiver loop: finished games move from Redis to the SQL archive, exactly once.

Each pass takes the finished games whose end is ARCHIVE_AFTER_S old (so streams and final reads in
progress complete first), leases them (SET NX PX, so several instances share the work instead of
repeating it), reads each one from Redis in one transaction (metadata, log, final snapshot), inserts
the rows absent from SQL and commits; only then does one Lua script delete the game's Redis keys, and
only if the digest committed to SQL is the one Redis holds. A process killed at any point loses
nothing (the Redis copy stays until a committed row matches it) and duplicates nothing (the insert is
idempotent on the game id: after a crash between commit and delete, the next pass finds the row and
only deletes the keys). No tombstone is left: reads of an unknown id fall back to the archive.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable

import redis.asyncio as aioredis

from engine.core import Game, canonical_json
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository
from services.gamestate import metrics
from services.gamestate.keys import Keys
from services.gamestate.store import Meta, now_ms, replay_entries

log = logging.getLogger(__name__)

DROP = """
-- KEYS: 1 meta, 2 log, 3 snap, 4 events, 5 idem index, 6 lease, 7 active, 8 finished, 9 clock, 10 bot waits
-- ARGV: 1 game id, 2 token key head, 3 the digest committed to the archive
-- Deletes a finished game's keys iff Redis still holds exactly what was archived. 1 done, 0 already gone,
-- -1 another digest (never drop it), -2 not finished.
local digest = redis.call('HGET', KEYS[1], 'digest')
if not digest then
  redis.call('ZREM', KEYS[8], ARGV[1])
  return 0
end
if digest ~= ARGV[3] then return -1 end
if redis.call('HGET', KEYS[1], 'status') == 'active' then return -2 end
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 4) == 'tok:' then
    local tkey = ARGV[2] .. fields[i + 1]
    if redis.call('GET', tkey) == ARGV[1] .. ':' .. string.sub(fields[i], 5) then redis.call('DEL', tkey) end
  end
end
for _, k in ipairs(redis.call('SMEMBERS', KEYS[5])) do redis.call('DEL', k) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6])
for i = 7, 10 do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 1
"""

#: finished-index entries looked at per pass (the index holds only games not archived yet)
SCAN_LIMIT = 5_000


def record_of(meta_hash: dict[str, str], game_id: str, lines: list[str], state_text: str, now: int) -> ArchivedGame:
    """The archive record of a finished game from its Redis metadata, log lines and final state text.
    `seat_players` (seat -> player id) and `rated` are kept when the creator recorded them; the time control,
    the reserves left at the end and the abandoned seats as the game's view showed them."""
    m = Meta.from_hash(game_id, meta_hash)
    return ArchivedGame(
        game_id=game_id, game=m.game, players=m.players, options=m.options, seed=m.seed, bots=m.bots,
        owner=m.owner, seat_players=m.seat_players, token_hashes=m.token_hashes,
        resigned=m.resigned, status=m.status, version=m.version, digest=m.digest, scores=m.scores,
        winners=m.winners, rated=meta_hash.get("rated", "") in ("1", "true"), turn_ms=m.clock_ms,
        created_ms=m.created_ms, finished_ms=m.updated_ms, archived_ms=now, log_lines=lines, state_text=state_text,
        time_control=m.time_control, reserves=m.reserves, abandoned=m.abandoned,
    )


class Archiver:
    """Moves finished games from one Redis prefix to the archive (any number of instances at once)."""

    def __init__(
        self,
        redis: aioredis.Redis,
        keys: Keys,
        repo: ArchiveRepository,
        get_game: Callable[[str], Game],
        *,
        after_s: float = 60.0,
        batch: int = 100,
        lease_s: float = 30.0,
        on_dropped: Callable[[str], None] = lambda _gid: None,
    ):
        self.redis = redis
        self.keys = keys
        self.repo = repo
        self.get_game = get_game
        self.after_ms = round(after_s * 1000)
        self.batch = batch
        self.lease_ms = max(1, round(lease_s * 1000))
        self.on_dropped = on_dropped
        self.owner = secrets.token_hex(8)
        self._drop = redis.register_script(DROP)

    async def archive_once(self) -> int:
        """One pass: lease, read, commit to SQL, then drop from Redis; returns how many games left Redis."""
        ids = await self._claim(await self._due(now_ms()))
        if not ids:
            return 0
        records = await self._read(ids)
        stored = await self.repo.put_many(records)  # committed when this returns
        dropped = 0
        for r in records:
            if stored.get(r.game_id) != r.digest:
                metrics.ARCHIVED.labels("mismatch").inc()
                log.error("game %s: the archive holds another digest; its Redis copy is kept", r.game_id)
                continue
            if await self.drop(r.game_id, r.digest) >= 0:
                dropped += 1
                metrics.ARCHIVED.labels("archived").inc()
        return dropped

    async def drop(self, game_id: str, digest: str) -> int:
        """Delete the game's Redis keys if Redis holds `digest` (the one committed to SQL)."""
        k = self.keys
        done = await self._drop(
            keys=[k.meta(game_id), k.log(game_id), k.snap(game_id), k.events(game_id), k.idem_index(game_id),
                  k.archiving(game_id), k.active, k.finished, k.clock, k.bot_wait],
            args=[game_id, k.token_head, digest],
        )
        self.on_dropped(game_id)
        return int(done)

    async def _due(self, now: int) -> list[str]:
        """Finished games whose end is at least after_ms old, oldest created first, at most `batch`."""
        due: list[str] = []
        start = 0
        while len(due) < self.batch and start < SCAN_LIMIT:
            ids = await self.redis.zrange(self.keys.finished, start, start + 499)
            if not ids:
                break
            start += len(ids)
            async with self.redis.pipeline(transaction=False) as pipe:
                for gid in ids:
                    pipe.hmget(self.keys.meta(gid), ["updated_ms", "status"])
                found = await pipe.execute()
            for gid, (updated, status) in zip(ids, found):
                if updated is not None and status != "active" and int(updated) + self.after_ms <= now:
                    due.append(gid)
        return due[: self.batch]

    async def _claim(self, ids: list[str]) -> list[str]:
        """The ids whose lease this instance took (an expired lease of a killed archiver is taken again)."""
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for gid in ids:
                pipe.set(self.keys.archiving(gid), self.owner, nx=True, px=self.lease_ms)
            taken = await pipe.execute()
        return [gid for gid, ok in zip(ids, taken) if ok]

    async def _read(self, ids: list[str]) -> list[ArchivedGame]:
        """The records of the games still in Redis and finished, read in one Redis transaction."""
        k = self.keys
        async with self.redis.pipeline(transaction=True) as pipe:
            for gid in ids:
                pipe.hgetall(k.meta(gid))
                pipe.lrange(k.log(gid), 0, -1)
                pipe.hmget(k.snap(gid), ["version", "state"])
            replies = await pipe.execute()
        records, now = [], now_ms()
        for i, gid in enumerate(ids):
            meta_hash, lines, (snap_version, snap_state) = replies[3 * i:3 * i + 3]
            if not meta_hash or meta_hash.get("status") == "active":
                continue
            if snap_version != meta_hash["version"] or not snap_state:
                snap_state = self._rebuild(meta_hash, gid, lines)
            records.append(record_of(meta_hash, gid, lines, snap_state, now))
        return records

    def _rebuild(self, meta_hash: dict[str, str], game_id: str, lines: list[str]) -> str:
        """The final state from seed + log, when no snapshot of the last version exists."""
        m = Meta.from_hash(game_id, meta_hash)
        game = self.get_game(m.game)
        state = replay_entries(game.new(m.players, m.seed, m.options), game, [json.loads(e) for e in lines])
        return canonical_json(state.to_json())


async def run_archiver(archiver: Archiver, interval_s: float, stop: asyncio.Event) -> None:
    """Archive until `stop` is set: at once again while a pass was full (a backlog), else every interval_s."""
    while not stop.is_set():
        moved = 0
        try:
            moved = await archiver.archive_once()
        except Exception:
            if stop.is_set():
                return
            log.exception("archive pass failed")
        if moved < archiver.batch:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)
