"""The Redis storage layer: metadata, action log, snapshots, event streams, idempotency.

All writes that change a game go through one Lua script (`COMMIT`), a
compare-and-set on the version: it checks the idempotency key, checks the
version, appends the log entry, stores the snapshot, updates the metadata,
publishes the stream entry and the clock/index entries, all in one atomic
step. So two instances can never fork a game, and a duplicate submission can
never be applied twice. Reads of a state (`LOAD`) are one atomic script too:
snapshot + the log tail after it, replayed through the engine.

Key layout: see `keys.py`; the scripts: `lua/`; the records read and written: `records.py`; replay: `replay.py`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import redis.asyncio as aioredis
import redis.asyncio.cluster as aiocluster
from redis.exceptions import NoScriptError

from engine.core import Game, State, canonical_json
from services.common import standings
from services.common.redis_clients import _FAILOVER_ERRORS, FAILOVER_PATIENCE_S
from services.common.redis_scripts import BoundScript, LuaScript
from services.gamestate import buckets, errors, metrics
from services.gamestate.keys import Keys, bucket_of
from services.gamestate.outbox import OUTBOX_MAXLEN, creation_entry
from services.gamestate.records import Commit, CommitResult, Creation, Meta
from services.gamestate.replay import from_snapshot, replay_entries
from services.gamestate.status import next_deadlines, result_places, result_winners, status_of
from services.gamestate.updates import CREATED
from services.gamestate.wire import dumps, now_ms

COMMIT = LuaScript.beside(__file__, "commit")
CREATE = LuaScript.beside(__file__, "create")
CLAIM_WAIT = LuaScript.beside(__file__, "claim_wait")
RELEASE_WAIT = LuaScript.beside(__file__, "release_wait")
LOAD = LuaScript.beside(__file__, "load")
SET_TOKEN = LuaScript.beside(__file__, "set_token")

#: Entries a listing looks at, at most (over every bucket).
LIST_SCAN_LIMIT = 10_000


def _serialise(state: State) -> tuple[str, str]:
    """(canonical JSON, digest) with one serialisation when the engine keeps the inherited digest()."""
    if type(state).digest is State.digest:
        text = canonical_json(state.to_json())
        return text, hashlib.sha256(text.encode()).hexdigest()
    return canonical_json(state.to_json()), state.digest()


def load_keys(k: Keys, game_id: str) -> dict[str, str]:
    """The LOAD script's keys (the service's reads and the workers' loader, services/workers/loader.py)."""
    return {"meta": k.meta(game_id), "log": k.log(game_id), "snap": k.snap(game_id)}


class Store:
    """Redis access for games. Stateless apart from LRU caches of hot states and metadata, both keyed by
    the version Redis holds (read fresh on every call, so a cache entry is never served for another version)."""

    def __init__(
        self,
        redis: aioredis.Redis,
        prefix: str,
        get_game: Callable[[str], Game],
        *,
        snapshot_every: int = 16,
        idempotency_ttl_s: int = 86_400,
        cache_size: int = 512,
        token_ttl_after_end_ms: int = 3_600_000,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 1_000,
        outbox_maxlen: int = OUTBOX_MAXLEN,
    ):
        self.redis = redis
        self.keys = Keys(prefix)
        self.get_game = get_game
        self.snapshot_every = snapshot_every
        self.idempotency_ttl_s = idempotency_ttl_s
        self.cache_size = cache_size
        #: a finished game's seat tokens (and their token-index entries) expire this long after its end
        self.token_ttl_after_end_ms = token_ttl_after_end_ms
        #: REDIS_WAIT_REPLICAS: replicas that must hold a commit or creation before it is acknowledged (0: none)
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        #: OUTBOX_MAXLEN: each bucket's outbox stream is trimmed to about this many entries (outbox.py)
        self.outbox_maxlen = outbox_maxlen
        self._cluster = isinstance(redis, aiocluster.RedisCluster)
        self._cache: OrderedDict[str, tuple[int, State]] = OrderedDict()
        #: game id -> parsed metadata at its `version`, with the token hashes Redis held when it was last confirmed
        self._metas: OrderedDict[str, Meta] = OrderedDict()
        #: game id -> time.monotonic() when Redis last confirmed its cached metadata whole, token hashes included
        #: (a read of the version and hashes, or this instance's own commit): `recent_meta`
        self._confirmed: dict[str, float] = {}
        self._commit = COMMIT.register(redis)
        self._load = LOAD.register(redis)
        self._create = CREATE.register(redis)
        self._claim_wait = CLAIM_WAIT.register(redis)
        self._release_wait = RELEASE_WAIT.register(redis)
        self._set_token = SET_TOKEN.register(redis)

    # ------------------------------------------------------------------ creation

    async def create(
        self,
        game_id: str,
        game: Game,
        state: State,
        *,
        players: int,
        options: dict[str, Any],
        seed: int,
        bots: dict[int, str],
        token_hashes: dict[int, str],
        clock_ms: int,
        created_events: list[dict[str, Any]],
    ) -> Meta:
        """Write a new game (metadata, snapshot at version 0, stream entry 0-1, indexes) atomically."""
        new = Creation(game_id, game, state, players, options, seed, bots, token_hashes, clock_ms, created_events)
        return (await self.create_many([new]))[0]

    async def create_many(self, games: list[Creation]) -> list[Meta]:
        """Write new games with one CREATE script per bucket (atomic within a bucket, the buckets' scripts sent
        at once); their metadata, in order. A storage failure may leave some buckets' games written: no token of
        the batch is returned, so nobody plays them and the inactivity sweep aborts them.

        Each game's fields travel inside one JSON argument, its snapshot as one more: packing ~80 separate
        arguments per game cost the service more CPU than building the game.
        """
        if not games:
            return []
        k = self.keys
        now = now_ms()
        asked = time.monotonic()
        #: bucket -> (game keys, token keys, records, snapshots): one CREATE script per bucket (one slot each)
        groups: dict[int, tuple[list[str], list[str], list[dict[str, Any]], list[str]]] = {}
        metas: list[Meta] = []
        for c in games:
            bucket = bucket_of(c.game_id)
            game_keys, token_keys, records, snapshots = groups.setdefault(bucket, ([], [], [], []))
            state = c.state
            state_text, digest = _serialise(state)
            status = status_of(state)
            deadlines = next_deadlines(state, c.clock_ms, {}, now, c.reserves)
            deadline = min(deadlines.values(), default=0)
            m = Meta(
                game_id=c.game_id, game=c.game.name, players=c.players, options=c.options, seed=c.seed,
                bots=dict(c.bots), resigned=[], token_hashes=dict(c.token_hashes), status=status, version=0,
                digest=digest, to_act=list(state.to_act()), scores=list(state.scores()),
                winners=list(state.winners()), created_ms=now, updated_ms=now, clock_ms=c.clock_ms,
                deadline_ms=deadline, deadlines=dict(deadlines), owner=c.owner, bot_key=c.bot_key,
                time_control=c.time_control, reserves=dict(c.reserves), rated=c.rated,
                seat_players=dict(c.seat_players),
            )
            metas.append(m)
            meta = m.to_hash()  # the hash's fields follow the record's (services/common/game_record.py)
            event = {"v": "0", "kind": CREATED, "actor": "", "events": dumps(c.created_events), "status": status,
                     "to_act": meta["to_act"], "scores": meta["scores"], "winners": meta["winners"]}
            records.append({
                "id": c.game_id, "m": [x for kv in meta.items() for x in kv], "d": digest,
                "e": [x for kv in event.items() for x in kv], "f": status == "finished", "c": str(deadline),
                "b": str(now + c.bot_wait_ms) if c.bot_wait_ms is not None else "0",
                "t": [f"{c.game_id}:{seat}" for seat in c.token_hashes],
                "x": str(now + self.token_ttl_after_end_ms),
                "o": creation_entry(c.game_id, meta, dumps(
                    result_places(state, ()) if status == "finished" else [])),
            })
            game_keys += [k.meta(c.game_id), k.snap(c.game_id), k.events(c.game_id)]
            token_keys += [k.token(bucket, h) for h in c.token_hashes.values()]
            snapshots.append(state_text)
        await asyncio.gather(*(
            self._durably(
                self._create,
                keys={"active": k.active(b), "finished": k.finished(b), "clock": k.clock(b),
                      "bot_wait": k.bot_wait(b), "touched": k.touched(b), "changes": k.changes(b),
                      "games": game_keys + token_keys},
                args={"now": str(now), "outbox_maxlen": self.outbox_maxlen, "records": dumps(records),
                      "snapshots": snapshots},
            )
            for b, (game_keys, token_keys, records, snapshots) in groups.items()
        ))
        for c, parsed in zip(games, metas):
            self._remember(c.game_id, 0, c.state)
            self._remember_meta(parsed, asked)  # exactly what the script wrote, token hashes included
        return metas

    # ------------------------------------------------------------------ reads

    async def meta(self, game_id: str) -> Meta | None:
        """The game's metadata at the version Redis holds now.

        Every field but the token hashes changes only with the version (the COMMIT script), so a
        cached parse at the same version is exact: one HMGET of the version and the seats' token
        hashes (always fresh: a revoked or rotated token is refused at once) replaces the HGETALL.
        The Meta returned may be the cached one itself: nobody changes a Meta in place.
        """
        key = self.keys.meta(game_id)
        cached = self._metas.get(game_id)
        asked = time.monotonic()
        if cached is not None:
            values = await self.redis.hmget(key, ["version", *(f"tok:{s}" for s in range(cached.players))])
            if values[0] is None:
                self.forget(game_id)
                return None
            if int(values[0]) == cached.version:
                hashes = {s: h for s, h in enumerate(values[1:]) if h is not None}
                meta = cached if hashes == cached.token_hashes else replace(cached, token_hashes=hashes)
                if self._metas.get(game_id) is cached:  # a concurrent commit may have moved it on meanwhile
                    self._metas[game_id] = meta
                    self._metas.move_to_end(game_id)
                    self._confirmed[game_id] = asked
                return meta
        h = await self.redis.hgetall(key)
        if not h:
            self.forget(game_id)
            return None
        meta = Meta.from_hash(game_id, h)
        self._remember_meta(meta, asked)
        return meta

    def recent_meta(self, game_id: str, within_s: float) -> Meta | None:
        """The cached metadata if Redis confirmed it whole (version and token hashes) less than `within_s` ago,
        without asking Redis; else None. For reads that may answer a version that old (a seat's legal
        actions): a write made from its answer is still checked against Redis by the commit's compare-and-set,
        and a token revoked meanwhile is honoured that long at most, as a WatchGame stream honours it."""
        at = self._confirmed.get(game_id)
        if at is None or time.monotonic() - at >= within_s:
            return None
        return self._metas.get(game_id)

    async def metas(self, game_ids: list[str]) -> dict[str, Meta]:
        """The metadata of those of `game_ids` in Redis now, in one round trip (a page of a listing): game id ->
        Meta. Read afresh (no cache: a listing reads each game once)."""
        if not game_ids:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hgetall(self.keys.meta(game_id))
            hashes = await pipe.execute()
        return {gid: Meta.from_hash(gid, h) for gid, h in zip(game_ids, hashes) if h}

    def cached_meta(self, game_id: str) -> Meta | None:
        """The metadata last seen here, without asking Redis: possibly outdated, and its token hashes too,
        so only for a commit that re-checks both atomically (`Commit.token_check`, the version)."""
        return self._metas.get(game_id)

    async def load(self, game_id: str, meta: Meta) -> tuple[int, State]:
        """The game's state at its current version (>= meta.version): cache, else snapshot + log tail.

        The returned state is shared with the cache: clone it before applying anything.
        """
        cached = self._cache.get(game_id)
        if cached is not None and cached[0] == meta.version:
            self._cache.move_to_end(game_id)
            return cached
        game = self.get_game(meta.game)
        raw = await self._load(keys=load_keys(self.keys, game_id))
        if not raw:
            raise LookupError(game_id)
        version, digest, _snap_version, snap_state, *tail = raw
        state = from_snapshot(game, snap_state, tail)
        if state is None or state.digest() != digest:
            # The snapshot disagrees with the log: the log is the truth.
            state = await self.rebuild(meta)
            if state.digest() != digest:
                raise RuntimeError(f"game {game_id}: replaying the log does not reproduce digest {digest}")
        self._remember(game_id, int(version), state)
        return int(version), state

    async def rebuild(self, meta: Meta) -> State:
        """Replay the whole log from the seed (audit, and repair of a bad snapshot)."""
        game = self.get_game(meta.game)
        state = game.new(meta.players, meta.seed, meta.options)
        return replay_entries(state, game, await self.log(meta.game_id))

    async def log(self, game_id: str, count: int | None = None) -> list[dict[str, Any]]:
        """The game's log entries from version 1 on: all, or the first `count`."""
        last = -1 if count is None else count - 1
        if last < -1 or count == 0:
            return []
        return [json.loads(e) for e in await self.redis.lrange(self.keys.log(game_id), 0, last)]

    async def idempotent(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        raw = await self.redis.get(self.keys.idem(game_id, seat, key))
        return json.loads(raw) if raw else None

    async def last_event_id(self, game_id: str) -> str:
        """The id of the game's newest stream entry ("0-0" if it has none)."""
        newest = await self.redis.xrevrange(self.keys.events(game_id), count=1)
        return newest[0][0] if newest else "0-0"

    async def read_events_tokens(
        self, game_id: str, players: int, after_id: str, block_ms: int, count: int = 100
    ) -> tuple[list[tuple[str, dict[str, str]]], dict[int, str]]:
        """Stream entries after `after_id`, waiting up to block_ms for new ones, and every seat's token hash as
        Redis holds it once the read returned (the fan-out's reader: services/gamestate/fanout.py). One round
        trip: the HMGET is pipelined behind the blocking XREAD, which Redis answers first, so the hashes are never
        older than the entries (a token revoked before an entry was written is seen)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xread({self.keys.events(game_id): after_id}, count=count, block=block_ms)
            pipe.hmget(self.keys.meta(game_id), [f"tok:{s}" for s in range(players)])
            reply, hashes = await pipe.execute()
        entries = [(eid, fields) for _stream, found in reply or [] for eid, fields in found]
        return entries, {s: h for s, h in enumerate(hashes) if h is not None}

    async def range_events_tokens(
        self, game_id: str, players: int, after_id: str, count: int = 100
    ) -> tuple[list[tuple[str, dict[str, str]]], dict[int, str]]:
        """Up to `count` entries after `after_id` without waiting (a watcher catching up), with the seats'
        token hashes read after them in the same round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.xrange(self.keys.events(game_id), min=f"({after_id}", max="+", count=count)
            pipe.hmget(self.keys.meta(game_id), [f"tok:{s}" for s in range(players)])
            entries, hashes = await pipe.execute()
        return list(entries), {s: h for s, h in enumerate(hashes) if h is not None}

    async def token_owner(self, bucket: int, token_hash: str) -> tuple[str, int] | None:
        """The (game id, seat) a live token of `bucket` speaks for (its bucket: tokens.bucket_of_token)."""
        raw = await self.redis.get(self.keys.token(bucket, token_hash))
        if not raw:
            return None
        game_id, seat = raw.rsplit(":", 1)
        return game_id, int(seat)

    async def list_games(self, status: str, game: str, limit: int) -> list[Meta]:
        """Games of `status` ("" = any; "finished" and "aborted" games share the index of ended games), newest
        first (the buckets' indexes merged: services/gamestate/buckets.py), looking at LIST_SCAN_LIMIT at most."""
        k = self.keys
        indexes = {"active": [k.active], "finished": [k.finished], "aborted": [k.finished]}.get(
            status, [k.active, k.finished])
        found: list[Meta] = []
        scanned = 0
        async for entries in buckets.merged(self.redis, indexes, newest_first=True):
            scanned += len(entries)
            async with self.redis.pipeline(transaction=False) as pipe:
                for game_id, _created in entries:
                    pipe.hgetall(k.meta(game_id))
                hashes = await pipe.execute()
            for (game_id, _created), h in zip(entries, hashes):
                if h and (not game or h["game"] == game) and (not status or h["status"] == status):
                    found.append(Meta.from_hash(game_id, h))
            if len(found) >= limit or scanned >= LIST_SCAN_LIMIT:
                break
        found.sort(key=lambda m: m.created_ms, reverse=True)
        return found[:limit]

    async def _due(self, index: Callable[[int], str], until: float, limit: int) -> list[str]:
        """The ids scored at most `until` in a per-bucket index, earliest first, at most `limit`."""
        replies = await buckets.per_bucket(self.redis, lambda pipe, b: pipe.zrangebyscore(
            index(b), "-inf", until, start=0, num=limit, withscores=True))
        due = sorted((score, game_id) for entries in replies for game_id, score in entries)
        return [game_id for _score, game_id in due[:limit]]

    async def due_clocks(self, now: int, limit: int = 100) -> list[str]:
        return await self._due(self.keys.clock, now, limit)

    async def idle_since(self, before_ms: int, limit: int = 100) -> list[str]:
        """Active games whose last commit is older than `before_ms` (the inactivity sweep)."""
        return await self._due(self.keys.touched, before_ms, limit)

    async def touch(self, game_id: str, at_ms: int) -> None:
        """Look at an active game again for inactivity as if it had last changed at `at_ms`."""
        await self.redis.zadd(self.keys.touched(bucket_of(game_id)), {game_id: at_ms}, xx=True)

    async def arm_bot_wait(self, game_id: str, due_ms: int) -> None:
        await self.redis.zadd(self.keys.bot_wait(bucket_of(game_id)), {game_id: due_ms})

    async def due_bot_waits(self, now: int, limit: int = 100) -> list[str]:
        return await self._due(self.keys.bot_wait, now, limit)

    async def claim_bot_wait(self, game_id: str, now: int, next_due: int) -> bool:
        """True for exactly one of the instances racing for the same due entry. The claim moves the entry to
        `next_due` instead of removing it, so an instance killed right after claiming leaves a timer."""
        return bool(await self._claim_wait(keys={"bot_wait": self.keys.bot_wait(bucket_of(game_id))},
                                           args={"game_id": game_id, "now": now, "next_due": next_due}))

    async def release_bot_wait(self, game_id: str, due: int) -> None:
        """Drop the entry a claim set to `due`, unless a commit has re-armed it since."""
        await self._release_wait(keys={"bot_wait": self.keys.bot_wait(bucket_of(game_id))},
                                 args={"game_id": game_id, "due": due})

    async def count_active(self) -> int:
        return sum(await buckets.per_bucket(self.redis, lambda pipe, b: pipe.zcard(self.keys.active(b))))

    # ------------------------------------------------------------------ writes

    async def commit(self, game_id: str, c: Commit) -> CommitResult:
        """The compare-and-set: apply `c` iff the game is still at c.expected_version."""
        k = self.keys
        state = c.state
        version = c.expected_version + 1
        now = now_ms() if c.at_ms is None else c.at_ms
        players = len(state.scores())
        status = c.status or status_of(state)
        if status == "active" and standings.ends_by_forfeit(players, c.forfeited):
            status = "finished"
        active = status == "active"
        deadlines = next_deadlines(state, c.clock_ms, c.keep_deadlines, now, c.reserves) if active else {}
        deadline = min(deadlines.values(), default=0)
        to_act = state.to_act() if active else []
        winners = result_winners(state, c.forfeited) if status == "finished" else []
        places = result_places(state, c.forfeited) if status == "finished" else []
        scores = [] if status == "aborted" else state.scores()
        # a take-back's state is an earlier version's: always a snapshot, so no load replays a take-back's log entry
        snapshot = version % self.snapshot_every == 0 or not active or c.state_of is not None
        state_text, digest = _serialise(state)
        entry: dict[str, Any] = {"v": version, "seat": c.seat, "kind": c.kind, "action": c.action, "at_ms": now}
        if c.state_of is not None:
            entry["restores"] = c.state_of
        if c.undo is not None:
            entry["undo"] = c.undo.to_json()
        # every commit sets what can be taken back after it (services/gamestate/takeback.py): "" = nothing
        extra: list[str] = ["deadlines", dumps(deadlines), "undo", dumps(c.undo.to_json()) if c.undo else "",
                            "state_of", "" if c.state_of is None else str(c.state_of)]
        if c.reserves:
            extra += ["reserves", dumps({str(s): ms for s, ms in sorted(c.reserves.items())})]
        for name, value in c.extra_meta.items():
            extra += [name, value]
        idem_key = k.idem(game_id, c.seat, c.idem_key) if c.idem_key else k.idem(game_id, c.seat, "-")
        asked = time.monotonic()
        reply = await self._durably(
            self._commit,
            keys={"meta": k.meta(game_id), "log": k.log(game_id), "snap": k.snap(game_id),
                  "events": k.events(game_id), "idem": idem_key, "idem_index": k.idem_index(game_id),
                  **k.indexes(game_id)},
            args={
                "expected": c.expected_version,
                "entry": dumps(entry),
                "snapshot": "1" if snapshot else "0",
                "state": state_text if snapshot else "",
                "digest": digest,
                "status": status,
                "to_act": dumps(to_act),
                "scores": dumps(scores),
                "winners": dumps(winners),
                "now": now,
                "deadline": deadline,
                "game_id": game_id,
                "idem": "1" if c.idem_key else "0",
                "idem_value": dumps({**(c.idem_value or {}), "version": version}) if c.idem_key else "",
                "idem_ttl": self.idempotency_ttl_s,
                "kind": c.kind,
                "actor": "" if c.seat is None else c.seat,
                "events": dumps(c.events),
                "token_field": f"tok:{c.token_check[0]}" if c.token_check else "",
                "token_hash": c.token_check[1] if c.token_check else "",
                "bot_due": now + c.bot_wait_ms if c.bot_wait_ms is not None else 0,
                "token_prefix": k.token_head(bucket_of(game_id)),
                "tokens_expire": now + self.token_ttl_after_end_ms,
                "places": dumps(places),
                "outbox_maxlen": self.outbox_maxlen,
                "seats": players,
                "extra": extra,
            },
        )
        outcome, value, *hashes = reply
        if outcome == "ok":
            self._remember(game_id, version, state)
            self._advance_meta(game_id, c, version, digest, status, now, deadline, deadlines, to_act, winners,
                               {s: h for s, h in enumerate(hashes) if h is not None}, asked)
            return CommitResult("ok", version=version, deadlines=deadlines, game_status=status)
        self.forget(game_id)
        if outcome == "dup":
            return CommitResult("dup", duplicate=json.loads(value))
        if outcome == "stale":
            return CommitResult("stale", version=int(value))
        if outcome == "token":
            return CommitResult("token")
        return CommitResult("missing")

    async def set_token(self, game_id: str, seat: int, old_hash: str | None, new_hash: str | None) -> bool:
        """Replace a seat's token hash (revoke with new_hash=None) iff it is still old_hash. In a finished game
        the new token's index entry expires with the game's other tokens."""
        k, b = self.keys, bucket_of(game_id)
        self._confirmed.pop(game_id, None)  # the cached hashes no longer stand for Redis's (recent_meta)
        return bool(await self._set_token(
            keys={"meta": k.meta(game_id), "old_token": k.token(b, old_hash or "-"),
                  "new_token": k.token(b, new_hash or "-")},
            args={"seat": seat, "old_hash": old_hash or "", "new_hash": new_hash or "",
                  "entry": f"{game_id}:{seat}", "ttl_after_end": self.token_ttl_after_end_ms},
        ))

    async def gone_seat(self, meta: Meta, token_hash: str) -> int | None:
        """The resigned or abandoned seat of `meta` whose revoked token hashes to `token_hash`, or None: the
        revocation kept that hash (`gone:<seat>`, set_token.lua) so a later write with the token is told the seat's
        game is over (services/gamestate/lookup.py writer_seat)."""
        seats = meta.forfeited
        if not seats or meta.archived:
            return None
        kept = await self.redis.hmget(self.keys.meta(meta.game_id), [f"gone:{s}" for s in seats])
        for seat, h in zip(seats, kept, strict=True):
            if h is not None and hmac.compare_digest(h.decode() if isinstance(h, bytes) else h, token_hash):
                return seat
        return None

    async def revoke_seat_token(self, game_id: str, seat: int) -> None:
        """Revoke whatever token the seat holds now (a seat handed to a bot; a rotation meanwhile is no escape)."""
        for _attempt in range(5):
            current = await self.redis.hget(self.keys.meta(game_id), f"tok:{seat}")
            if current is None or await self.set_token(game_id, seat, current, None):
                return

    async def _durably(self, script: BoundScript, keys: dict[str, Any], args: dict[str, Any]) -> Any:
        """Run a writing script; with wait_replicas, WAIT on the same connection (WAIT counts the replicas that
        hold this connection's writes) for that many replicas before the caller acknowledges anything. Fewer
        within wait_timeout_ms: UNAVAILABLE (the write may survive a failover or not; a retry with the same
        idempotency key answers its outcome), never an acknowledgement that a failover could take back."""
        if not self.wait_replicas:
            return await script(keys=keys, args=args)
        k, a = script.script.ordered(keys, args)
        deadline = time.monotonic() + FAILOVER_PATIENCE_S
        failures = 0
        while True:
            reply, acked = await self._run_and_wait(script, k, a)
            if isinstance(reply, NoScriptError) and not failures:
                failures += 1
                await self.redis.script_load(script.script.source)  # Redis lost its scripts (a restart)
                continue
            if isinstance(reply, _FAILOVER_ERRORS) and time.monotonic() < deadline:
                # the script was refused on a dead connection (a primary failing over): the slot map again, later
                failures += 1
                if self._cluster:
                    self.redis._initialize = True  # type: ignore[attr-defined]
                await asyncio.sleep(min(0.5, 0.05 * 2 ** failures))
                continue
            if isinstance(reply, Exception):
                raise reply
            if isinstance(acked, Exception) or int(acked) < self.wait_replicas:
                metrics.REPLICA_WAIT_SHORT.inc()
                if self._cluster:
                    self.redis._initialize = True  # type: ignore[attr-defined]
                raise errors.unavailable(
                    f"the change was written but {acked!s} of REDIS_WAIT_REPLICAS={self.wait_replicas} replicas "
                    f"confirmed it within {self.wait_timeout_ms} ms; retry with the same idempotency key to learn "
                    "its outcome")
            return reply

    async def _run_and_wait(self, script: BoundScript, k: list[Any], a: list[Any]) -> tuple[Any, Any]:
        """EVALSHA then WAIT in one pipeline, so on one connection (on a cluster: the primary of the keys' slot)."""
        route: dict[str, Any] = {}
        if self._cluster:
            if self.redis._initialize:  # type: ignore[attr-defined]
                await self.redis.initialize()  # type: ignore[attr-defined]
            route = {"target_nodes": self.redis.get_node_from_key(k[0])}  # type: ignore[attr-defined]
        async with self.redis.pipeline(transaction=False) as pipe:
            # by name: redis-py's cluster pipeline blocks its evalsha() method, not the command (one slot here)
            pipe.execute_command("EVALSHA", script.registered.sha, len(k), *k, *a)
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_timeout_ms, **route)
            try:
                reply, acked = await pipe.execute(raise_on_error=False)
            except _FAILOVER_ERRORS as exc:
                return exc, exc
        return reply, acked

    # ------------------------------------------------------------------ cache

    def _remember(self, game_id: str, version: int, state: State) -> None:
        if not self.cache_size:
            return
        self._cache[game_id] = (version, state)
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)
        self._metas.pop(game_id, None)
        self._confirmed.pop(game_id, None)

    def _remember_meta(self, meta: Meta, confirmed: float | None = None) -> None:
        """Cache `meta`; `confirmed`: when Redis held exactly it (token hashes included), for `recent_meta`."""
        if not self.cache_size:
            return
        self._metas[meta.game_id] = meta
        self._metas.move_to_end(meta.game_id)
        if confirmed is None:
            self._confirmed.pop(meta.game_id, None)
        else:
            self._confirmed[meta.game_id] = confirmed
        while len(self._metas) > self.cache_size:
            evicted, _meta = self._metas.popitem(last=False)
            self._confirmed.pop(evicted, None)

    def _advance_meta(
        self,
        game_id: str,
        c: Commit,
        version: int,
        digest: str,
        status: str,
        now: int,
        deadline: int,
        deadlines: dict[int, int],
        to_act: list[int],
        winners: list[int],
        token_hashes: dict[int, str],
        asked: float,
    ) -> None:
        """After our own commit: the cached metadata at the expected version, moved on exactly as the
        COMMIT script changed the hash (same JSON round trip as `Meta.from_hash`), with the token hashes the
        script read, so Redis confirmed it whole when the commit was sent (`asked`). Commits with extra
        metadata (resignations) just drop it: the next read parses the hash."""
        cached = self._metas.pop(game_id, None)
        self._confirmed.pop(game_id, None)
        if cached is None or cached.version != c.expected_version or c.extra_meta:
            return
        state = c.state
        self._remember_meta(
            replace(
                cached,
                version=version,
                digest=digest,
                status=status,
                to_act=json.loads(dumps(to_act)),
                scores=[] if status == "aborted" else json.loads(dumps(state.scores())),
                winners=json.loads(dumps(winners)),
                updated_ms=now,
                deadline_ms=deadline,
                deadlines={int(k): v for k, v in json.loads(dumps(deadlines)).items()},
                reserves=dict(c.reserves) if c.reserves else cached.reserves,
                undo=c.undo,
                state_of=c.state_of,
                token_hashes=token_hashes,
            ),
            asked,
        )
