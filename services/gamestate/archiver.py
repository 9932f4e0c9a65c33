"""The archiver loop: finished games move from Redis to the SQL archive, exactly once.

Why this shape: a lease per game shares the work between instances, the Redis keys are deleted only once SQL
holds the same digest (a kill anywhere loses and duplicates nothing), and a game the database refuses is set
aside (quarantined) so it never holds the others back. The steps, the quarantine and the operator's commands:
docs/platform/gamestate.md ("The archive (SQL)").
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import replace

import redis.asyncio as aioredis

from engine.core import Game, canonical_json
from services.archive.record import ArchivedGame
from services.archive.refusals import Refusal, clean_message, refusal_of
from services.archive.repository import ArchiveRepository
from services.common.redis_scripts import LuaScript
from services.common.waits import rest
from services.gamestate import buckets, metrics
from services.gamestate.keys import Keys, bucket_of
from services.gamestate.records import Meta
from services.gamestate.replay import replay_entries
from services.gamestate.wire import now_ms

log = logging.getLogger(__name__)

DROP = LuaScript.beside(__file__, "archive_drop")
SET_ASIDE = LuaScript.beside(__file__, "archive_set_aside")

#: finished-index entries looked at per pass (the index holds only games not archived yet), beyond those set aside
SCAN_LIMIT = 5_000

#: longest wait before a refused game is retried automatically (ms): a day
RETRY_CAP_MS = 86_400_000


def record_of(meta_hash: dict[str, str], game_id: str, lines: list[str], state_text: str, now: int) -> ArchivedGame:
    """The archive record of a finished game: its Redis metadata as it is (the one record: what the archive keeps
    of it is its row codec's business, services/common/game_record.py), with its log lines and final state."""
    return replace(Meta.from_hash(game_id, meta_hash), archived_ms=now, log_lines=lines, state_text=state_text)


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
        retry_s: float = 3600.0,
        on_dropped: Callable[[str], None] = lambda _gid: None,
    ):
        self.redis = redis
        self.keys = keys
        self.repo = repo
        self.get_game = get_game
        self.after_ms = round(after_s * 1000)
        self.batch = batch
        self.lease_ms = max(1, round(lease_s * 1000))
        self.retry_ms = max(0, round(retry_s * 1000))
        self.on_dropped = on_dropped
        self.owner = secrets.token_hex(8)
        self._drop = DROP.register(redis)
        self._set_aside = SET_ASIDE.register(redis)

    async def archive_once(self) -> int:
        """One pass: lease, read, commit to SQL, then drop from Redis; returns how many games left Redis."""
        ids = await self._claim(await self._due(now_ms()))
        if not ids:
            return 0
        outcomes = await self._archive(ids)
        return sum(1 for o in outcomes.values() if o == "archived")

    async def _archive(self, ids: list[str]) -> dict[str, str]:
        """Archive the games this archiver leased: game id -> archived (gone from Redis), refused (kept in Redis
        and set aside), kept (Redis changed meanwhile, or the row vanished: a later pass sees it again) or absent
        (not a finished game in Redis). Raises if the database cannot work at all (every game stays as it was)."""
        unreadable: dict[str, Refusal] = {}
        records = await self._read(ids, unreadable)
        outcomes = dict.fromkeys(ids, "absent")
        for gid, refusal in unreadable.items():
            outcomes[gid] = "refused"
            await self._quarantine(gid, refusal)
        refused: dict[str, Refusal] = {}
        try:
            stored = await self.repo.put_many(records)  # committed when this returns
        except Exception as exc:
            batch_refusal = refusal_of(exc)
            if batch_refusal is None:
                raise
            if len(records) == 1:  # the refusal is that game's
                refused = {records[0].game_id: batch_refusal}
                stored = await self.repo.digests([records[0].game_id])
            else:
                log.warning("the archive refused a batch of %d games (%s: %s); archiving them one by one",
                            len(records), batch_refusal.error, batch_refusal.message)
                stored, refused = await self.repo.put_each(records)
        for r in records:
            gid = r.game_id
            if stored.get(gid) == r.digest:  # committed (now, or before a refusal that came after)
                outcomes[gid] = "kept"
                if await self.drop(gid, r.digest) >= 0:
                    outcomes[gid] = "archived"
                    metrics.ARCHIVED.labels("archived").inc()
            elif gid in refused:
                outcomes[gid] = "refused"
                await self._quarantine(gid, refused[gid], r.digest)
            elif gid in stored:
                outcomes[gid] = "refused"
                metrics.ARCHIVED.labels("mismatch").inc()
                log.error("game %s: the archive holds another digest; its Redis copy is kept", gid)
                await self._quarantine(gid, Refusal("mismatch", "DigestMismatch",
                                                    "the archive holds another digest for this game id"), r.digest)
            else:
                outcomes[gid] = "kept"
        if "refused" in outcomes.values():
            metrics.ARCHIVE_QUARANTINED.set(await self._count_set_aside())
        return outcomes

    async def _quarantine(self, game_id: str, refusal: Refusal, digest: str = "") -> int:
        """Set a refused game aside (it stays in Redis); returns its attempts so far (0: no longer in Redis)."""
        k = self.keys
        attempts = int(await self._set_aside(
            keys={"meta": k.meta(game_id), "refused": k.refused(game_id),
                  "quarantined": k.quarantined(bucket_of(game_id)), "lease": k.archiving(game_id)},
            args={"game_id": game_id, "now": now_ms(), "first_retry": self.retry_ms,
                  "longest": max(self.retry_ms, RETRY_CAP_MS), "holder": self.owner,
                  "refusal": ["kind", refusal.kind, "error", refusal.error, "sqlstate", refusal.sqlstate,
                              "message", refusal.message, "digest", digest]},
        ))
        metrics.ARCHIVE_REFUSED.labels(refusal.kind).inc()
        log.error("game %s: the archive refused it (%s %s %s: %s); kept in Redis and set aside, attempt %d",
                  game_id, refusal.kind, refusal.error, refusal.sqlstate, refusal.message, attempts)
        return attempts

    async def quarantined(self) -> list[dict[str, object]]:
        """The games set aside, oldest retry first: id, game, status, the refusal (kind, error, sqlstate, message,
        digest), attempts, first_ms / last_ms, and retry_at_ms (None: only an operator's retry)."""
        k = self.keys
        entries = await self._set_aside_entries()
        if not entries:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for gid, _at in entries:
                pipe.hgetall(k.refused(gid))
                pipe.hmget(k.meta(gid), ["game", "status"])
            replies = await pipe.execute()
        out: list[dict[str, object]] = []
        for i, (gid, at) in enumerate(entries):
            refusal, (game, status) = replies[2 * i], replies[2 * i + 1]
            out.append({
                "game_id": gid, "game": game, "status": status,
                **{f: refusal.get(f, "") for f in ("kind", "error", "sqlstate", "message", "digest")},
                "attempts": int(refusal.get("attempts", 0)), "first_ms": int(refusal.get("first_ms", 0)),
                "last_ms": int(refusal.get("last_ms", 0)), "retry_at_ms": None if at == float("inf") else int(at),
            })
        return out

    async def retry(self, ids: list[str] | None = None) -> dict[str, str]:
        """Archive games set aside now, whatever their next automatic retry (every one when `ids` is None): game
        id -> archived, refused (set aside again, its attempts counted), busy (another archiver holds its lease),
        not quarantined, gone (no longer in Redis: its entry is removed), or as `_archive`."""
        listed = {gid for gid, _at in await self._set_aside_entries()}
        wanted = sorted(listed) if ids is None else list(dict.fromkeys(ids))
        out = {gid: "not quarantined" for gid in wanted if gid not in listed}
        todo = [gid for gid in wanted if gid in listed]
        claimed = await self._claim(todo)
        out.update({gid: "busy" for gid in todo if gid not in claimed})
        if claimed:
            out.update(await self._archive(claimed))
        for gid in claimed:
            if out[gid] == "absent" and await self.drop(gid, "") == 0:  # only if no metadata is left
                out[gid] = "gone"
        metrics.ARCHIVE_QUARANTINED.set(await self._count_set_aside())
        return {gid: out[gid] for gid in wanted}

    async def _set_aside_entries(self) -> list[tuple[str, float]]:
        """Every bucket's quarantine entries (game id, next retry ms), the soonest retry first."""
        replies = await buckets.per_bucket(
            self.redis, lambda pipe, b: pipe.zrange(self.keys.quarantined(b), 0, -1, withscores=True))
        return sorted((entry for entries in replies for entry in entries), key=lambda e: (e[1], e[0]))

    async def _count_set_aside(self) -> int:
        return sum(await buckets.per_bucket(self.redis, lambda pipe, b: pipe.zcard(self.keys.quarantined(b))))

    async def drop(self, game_id: str, digest: str) -> int:
        """Delete the game's Redis keys if Redis holds `digest` (the one committed to SQL)."""
        k, b = self.keys, bucket_of(game_id)
        done = await self._drop(
            keys={"meta": k.meta(game_id), "log": k.log(game_id), "snap": k.snap(game_id),
                  "events": k.events(game_id), "idem_index": k.idem_index(game_id), "lease": k.archiving(game_id),
                  "active": k.active(b), "finished": k.finished(b), "clock": k.clock(b), "bot_wait": k.bot_wait(b),
                  "quarantined": k.quarantined(b), "refused": k.refused(game_id)},
            args={"game_id": game_id, "token_head": k.token_head(b), "digest": digest},
        )
        self.on_dropped(game_id)
        return int(done)

    async def _due(self, now: int) -> list[str]:
        """Finished games whose end is at least after_ms old and that are not set aside until later, oldest created
        first, at most `batch`."""
        set_aside = await self._count_set_aside()
        metrics.ARCHIVE_QUARANTINED.set(set_aside)
        due: list[str] = []
        scanned = 0
        async for entries in buckets.merged(self.redis, [self.keys.finished], newest_first=False, batch=500):
            if len(due) >= self.batch or scanned >= SCAN_LIMIT + set_aside:
                break
            ids = [gid for gid, _created in entries]
            scanned += len(ids)
            async with self.redis.pipeline(transaction=False) as pipe:
                for gid in ids:
                    pipe.hmget(self.keys.meta(gid), ["updated_ms", "status"])
                    pipe.zscore(self.keys.quarantined(bucket_of(gid)), gid)
                found = await pipe.execute()
            for gid, (updated, status), retry_at in zip(ids, found[0::2], found[1::2]):
                if retry_at is not None and retry_at > now:
                    continue
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

    async def _read(self, ids: list[str], unreadable: dict[str, Refusal] | None = None) -> list[ArchivedGame]:
        """The records of the games still in Redis and finished, read in one pipeline (not a transaction: the games
        live in many slots of a cluster; an ended game no longer changes, and its metadata is read before its log and
        snapshot). A game whose Redis record makes no archive record is left out (and named in `unreadable`)."""
        k = self.keys
        async with self.redis.pipeline(transaction=False) as pipe:
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
            try:
                if snap_version != meta_hash.get("version") or not snap_state:
                    snap_state = self._rebuild(meta_hash, gid, lines)
                records.append(record_of(meta_hash, gid, lines, snap_state, now))
            except Exception as exc:
                log.exception("game %s: its Redis record makes no archive record", gid)
                if unreadable is not None:
                    unreadable[gid] = Refusal("unreadable", type(exc).__name__, clean_message(str(exc)))
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
            await rest(stop, interval_s)
