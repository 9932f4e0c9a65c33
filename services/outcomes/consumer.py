"""The one consumer of the outbox: everything that follows a committed version, once, whoever committed it.

Why one place: a game ends by a move, a resignation, an abort, a bot, the turn clock or the inactivity sweep, and
the game-state service knows nothing of accounts. Every version is in its bucket's outbox stream (services/
gamestate/outbox.py), written by the commit itself, so reading the 64 streams with one consumer group (each entry
to one consumer; scale by adding consumers) sees every version of every game, in commit order per game. For each:

- `your_turn` to the account of each seat with a new decision, or `game_end` to every seated account, on the
  account streams: one script per account (services/accounts/lua/follow_publish.lua) appends a version only if it
  is newer than the last one sent to that account for that game, so a version is announced at most once per account;
- once the game ended, before its `game_end`: the game listed as ended in its accounts' games (services/accounts/
  seats.py: mark_ended, idempotent) and a rated game settled by its places or dropped if aborted (services/accounts/
  ratings.py: one SQL transaction keyed by the game, so exactly once).

An entry is acknowledged (XACK) only after its effects are done. A consumer that dies between reading and
acknowledging leaves its entries pending; after `outcomes_claim_idle_s` another consumer claims them (XAUTOCLAIM)
and does them again, which the idempotent effects turn into exactly once. The seats' holders are the accounts the
gateway seated (services/accounts/seats.py: game_accounts), else the players the game was created for (the entry's
`seats`: the gateway seats accounts just after the creation, which the consumer may read first). Archiving needs
nothing here: the same commit puts an ended game in its bucket's finished index, which the archiver walks.

The loop also expires the challenges whose time is up (services/gateway/domain/challenges.py: expire_due), about
once a second: a sweep of the accounts' side that every consumer may run, since one script decides which sweep
expires each challenge and only that one tells the players.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from prometheus_client import Counter, Histogram
from redis.asyncio import Redis, RedisCluster
from redis.exceptions import ResponseError

from services.accounts.events import PUBLISH_TURNS, AccountEvents, append_keys
from services.accounts.keys import Keys as AccountKeys
from services.accounts.ratings import Ratings
from services.accounts.seats import mark_ended
from services.common.waits import rest
from services.gamestate.keys import BUCKETS
from services.gamestate.keys import Keys as GameKeys
from services.gamestate.outbox import Change
from services.gateway.domain.challenges import Challenges, expire_due
from services.outcomes import metrics
from services.outcomes.turn_events import version_events

log = logging.getLogger(__name__)
#: Most unread entries counted a bucket where Redis cannot tell its group's lag (the figure then reads "at least")
LAG_SCAN_CAP = 10_000


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _no_group(exc: ResponseError) -> bool:
    """The error of a stream command on a stream that has no such group, or no longer exists."""
    return str(exc).startswith("NOGROUP")


def _ms_of(entry_id: str) -> int:
    return int(entry_id.split("-", 1)[0])


@dataclass(frozen=True, slots=True)
class _Ended:
    """What Ratings.conclude reads of an ended game."""

    game_id: str
    status: str
    places: list[int]


class Outcomes:
    """One consumer of the outbox group: reads, does the effects, acknowledges."""

    #: the metrics its reading moves: a consumer built on this one (the tournament director) names its own
    entries_metric: ClassVar[Counter] = metrics.ENTRIES
    delay_metric: ClassVar[Histogram] = metrics.DELAY
    groups_recreated_metric: ClassVar[Counter] = metrics.GROUPS_RECREATED

    def __init__(self, games: Redis, game_keys: GameKeys, accounts: Redis, account_keys: AccountKeys,
                 ratings: Ratings, *, group: str = "outcomes", batch: int = 100, claim_idle_ms: int = 30_000,
                 events_maxlen: int = 1000, events_keep_s: int = 7 * 86_400, name: str | None = None,
                 start_id: str = "0", seat_wait_s: float = 2.0):
        self.games = games
        self.game_keys = game_keys
        self.accounts = accounts
        self.account_keys = account_keys
        self.ratings = ratings
        self.group = group
        self.batch = batch
        self.claim_idle_ms = claim_idle_ms
        self.events_maxlen = events_maxlen
        self.events_keep_s = events_keep_s
        #: this consumer's name in the group: unique per process, so a restarted one never owns a dead one's entries
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        #: where a new group starts reading: "0", every entry the streams still hold (a first deployment does the
        #: kept history again, harmlessly); "$", only what is committed from now on
        self.start_id = start_id
        #: how long after a commit to wait for the gateway or matchmaker to seat the game's accounts (below)
        self.seat_wait_s = seat_wait_s
        self._publish = PUBLISH_TURNS.register(accounts)
        self._streams = [game_keys.changes(b) for b in range(BUCKETS)]
        #: one Redis (not a cluster): every bucket's stream can be read with one command
        self.one_node = not isinstance(games, RedisCluster)
        #: streams holding entries this consumer left pending to wait for a game's seating (`holders`)
        self._waiting: set[str] = set()
        # challenges are only expired here, never created: no lifetime of their own (0)
        self._challenges = Challenges(accounts, account_keys, 0, events_keep_s)
        self._events = AccountEvents(accounts, account_keys, "", events_maxlen, events_keep_s)

    async def ensure_group(self) -> None:
        """Create the group on every bucket's stream (from `start_id`) unless it exists."""
        await asyncio.gather(*(self._create_group(s, self.start_id) for s in self._streams))

    async def _create_group(self, stream: str, start_id: str) -> bool:
        """The group on `stream` from `start_id` (the stream made if missing); False if it existed already."""
        try:
            await self.games.xgroup_create(stream, self.group, id=start_id, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
            return False
        return True

    async def recreate_groups(self, streams: Iterable[str]) -> None:
        """The group again on streams that lost it (the stream was deleted, or the group destroyed), from the
        stream's first entry: which of its entries were done went with the group, so every entry it still holds is
        done again, which the idempotent effects make harmless; none is lost. Without this, every read of such a
        stream would fail with NOGROUP until the process restarted."""
        for stream in sorted(set(streams)):
            if await self._create_group(stream, "0"):
                self.groups_recreated_metric.inc()
                log.warning("outcomes group %s recreated on %s (the stream or its group was gone)", self.group,
                            stream)

    async def _replies(self, pipe: Any, streams: list[str]) -> list[Any]:
        """The pipeline's replies, one per command and `streams` naming each command's stream. A stream without
        the group (NOGROUP) gets its group back, and its commands answer None (nothing read this time; a deleted
        stream's other errors, "no such key", go with it); any other error is raised."""
        replies = await pipe.execute(raise_on_error=False)
        lost = {s for s, r in zip(streams, replies) if isinstance(r, ResponseError) and _no_group(r)}
        for stream, reply in zip(streams, replies):
            if isinstance(reply, Exception) and stream not in lost:
                raise reply
        if lost:
            await self.recreate_groups(lost)
        return [None if isinstance(r, Exception) else r for r in replies]

    # ------------------------------------------------------------------ reading

    async def read_new(self, block_ms: int | None = None) -> list[tuple[str, str, dict]]:
        """(stream, entry id, fields) of up to `batch` new entries per bucket. On one Redis: one XREADGROUP of every
        bucket's stream, waiting up to `block_ms` for a first entry when given (an idle consumer then costs one
        command per wait, and an entry is read as soon as it is committed). On a cluster, whose buckets are in
        different slots: one pipelined read per bucket, not waiting."""
        if self.one_node:
            try:
                reply = await self.games.xreadgroup(self.group, self.name, {s: ">" for s in self._streams},
                                                    count=self.batch, block=block_ms)
            except ResponseError as exc:
                if not _no_group(exc):
                    raise
                await self.recreate_groups(self._streams)  # which stream lost it, the error does not say
                return []
            return [(s, _text(i), f) for _s, found in (reply or []) for i, f in found for s in [_text(_s)] if f]
        async with self.games.pipeline(transaction=False) as pipe:
            for stream in self._streams:
                pipe.xreadgroup(self.group, self.name, {stream: ">"}, count=self.batch)
            replies = await self._replies(pipe, self._streams)
        return [(s, _text(i), f) for reply in replies for _s, found in (reply or []) for i, f in found
                for s in [_text(_s)] if f]

    async def read_waiting(self) -> list[tuple[str, str, dict]]:
        """This consumer's own pending entries of the streams where it waits for a game's seating, again."""
        streams, self._waiting = sorted(self._waiting), set()
        if not streams:
            return []
        async with self.games.pipeline(transaction=False) as pipe:
            for stream in streams:
                pipe.xreadgroup(self.group, self.name, {stream: "0"}, count=self.batch)
            replies = await self._replies(pipe, streams)
        return [(s, _text(i), f) for reply in replies for _s, found in (reply or []) for i, f in found
                for s in [_text(_s)] if f]

    async def claim_stale(self) -> list[tuple[str, str, dict]]:
        """Entries other consumers read but did not acknowledge for `claim_idle_ms` (they died), now this one's."""
        async with self.games.pipeline(transaction=False) as pipe:
            for stream in self._streams:
                pipe.xautoclaim(stream, self.group, self.name, self.claim_idle_ms, "0-0", count=self.batch)
            replies = await self._replies(pipe, self._streams)
        return [(s, _text(i), f) for s, reply in zip(self._streams, replies) if reply for i, f in reply[1] if f]

    # ------------------------------------------------------------------ effects

    async def handle(self, entries: Iterable[tuple[str, str, dict]]) -> int:
        """Do the effects of `entries` (in stream order per game) and acknowledge them; how many were done. A game
        whose accounts are not seated yet is left pending from that version on (read again next pass)."""
        by_game: dict[str, dict[str, tuple[str, str, Change]]] = {}
        for stream, entry_id, fields in entries:
            change = Change.parse(entry_id, fields)
            by_game.setdefault(change.game_id, {})[entry_id] = (stream, entry_id, change)  # once, if read twice
        done: list[tuple[str, str]] = []

        async def one_game(items: list[tuple[str, str, Change]]) -> None:
            for stream, entry_id, change in sorted(items, key=lambda x: x[2].version):
                try:
                    if not await self.apply(change):
                        self._waiting.add(stream)
                        return
                except Exception:  # left pending: claimed again after claim_idle_ms
                    self.entries_metric.labels("failed").inc()
                    log.exception("outcome of %s v%d failed", change.game_id, change.version)
                    return
                self.entries_metric.labels("done").inc()
                self.delay_metric.observe(max(0.0, time.time() - change.at_ms / 1000))
                done.append((stream, entry_id))

        await asyncio.gather(*(one_game(list(items.values())) for items in by_game.values()))
        if done:
            async with self.games.pipeline(transaction=False) as pipe:
                for stream, entry_id in done:
                    pipe.xack(stream, self.group, entry_id)
                await pipe.execute()
        return len(done)

    async def holders(self, change: Change) -> dict[int, str] | None:
        """Seat -> account of the game: those the gateway seated, else those it was created for. The gateway or
        matchmaker seats the accounts just after the creation, with their `game_start` (same transaction, or
        after it), so a game created for accounts but not seated yet is waited for (None: not yet), up to
        `seat_wait_s` after the commit: its `your_turn` then never reaches an account before its `game_start`."""
        raw = await self.accounts.hgetall(self.account_keys.game_accounts(change.game_id))
        if raw:
            return {int(_text(k)): _text(v) for k, v in raw.items()}
        if change.seats and time.time() < change.at_ms / 1000 + self.seat_wait_s:
            return None
        return dict(change.seats)

    async def apply(self, change: Change) -> bool:
        """Every effect of one version; each idempotent, so doing it again changes nothing. An ended game is
        listed as ended and its ratings settled before `game_end` goes out, so a player who reads `game_end` finds
        both done. False: nothing done yet, the game's accounts are not seated yet (`holders`)."""
        seats = await self.holders(change)
        if seats is None:
            return False
        if change.ended:
            if seats:
                await mark_ended(self.accounts, self.account_keys, set(seats.values()), change.game_id,
                                 change.status, change.at_ms or None)
            ended = _Ended(change.game_id, change.status, change.places)
            if await self.ratings.is_rated(change.game_id) and await self.ratings.conclude(ended):
                metrics.SETTLED.inc()
        if seats:
            events = version_events(change.game_id, seats, change.status, change.version, change.to_act,
                                    None if change.version == 0 else change.before, change.actor, change.scores,
                                    change.winners, change.deadlines)
            await self.announce(change, events)
        return True

    async def announce(self, change: Change, events: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Each account's events of the version appended to its stream, unless it already has this version."""
        by_account: dict[str, list[str]] = {}
        for pid, kind, data in events:
            by_account.setdefault(pid, []).extend((kind, json.dumps(data, separators=(",", ":"))))
        minid = f"{int((time.time() - self.events_keep_s) * 1000)}-0"
        await asyncio.gather(*(self._publish(
            keys={"sent": self.account_keys.follow_sent(pid, change.game_id),
                  **append_keys(self.account_keys, pid)},
            args={"version": change.version, "minid": minid, "maxlen": self.events_maxlen,
                  "keep": self.events_keep_s, "events": flat},
        ) for pid, flat in by_account.items()))

    async def expire_challenges(self) -> int:
        """Expire the challenges whose time is up and tell their players; how many this call expired."""
        return await expire_due(self._challenges, self._events)

    # ------------------------------------------------------------------ lag

    async def measure_lag(self) -> tuple[int, float]:
        """(entries behind: pending plus not yet read, age in seconds of the oldest of them) over every bucket."""
        async with self.games.pipeline(transaction=False) as pipe:
            for stream in self._streams:
                pipe.xpending(stream, self.group)
                pipe.xinfo_groups(stream)
            replies = await self._replies(pipe, [s for s in self._streams for _ in (0, 1)])
        behind, oldest_ms = 0, None
        unread: list[tuple[str, str, int]] = []   # (stream, the group's last-delivered id, entries to read)
        for stream, pending, groups in zip(self._streams, replies[::2], replies[1::2]):
            if pending is None:  # its group was gone (now recreated): what it holds is counted next time
                continue
            info = next((g for g in groups if _text(g["name"]) == self.group), None)
            if info is None:
                continue
            behind += int(pending["pending"])
            if pending["pending"]:
                first = _ms_of(_text(pending["min"]))
                oldest_ms = first if oldest_ms is None else min(oldest_ms, first)
            if info.get("lag") is None:
                # Redis cannot tell the lag of a stream trimmed or deleted from past the group's position (the
                # outbox is trimmed by MAXLEN): count the unread entries themselves, up to LAG_SCAN_CAP
                unread.append((stream, _text(info["last-delivered-id"]), LAG_SCAN_CAP))
            elif int(info["lag"]):
                behind += int(info["lag"])
                if not pending["pending"]:
                    unread.append((stream, _text(info["last-delivered-id"]), 1))
        if unread:
            async with self.games.pipeline(transaction=False) as pipe:
                for stream, last, count in unread:
                    pipe.xrange(stream, min=f"({last}", max="+", count=count)
                for (_stream, _last, count), found in zip(unread, await pipe.execute()):
                    if count > 1:
                        behind += len(found)
                    if found:
                        first = _ms_of(_text(found[0][0]))
                        oldest_ms = first if oldest_ms is None else min(oldest_ms, first)
        age = 0.0 if oldest_ms is None else max(0.0, time.time() - oldest_ms / 1000)
        return behind, age


async def run(consumer: Outcomes, stop: asyncio.Event, *, idle_poll_s: float = 0.1, claim_every_s: float = 5.0,
              lag_every_s: float = 5.0, expire_every_s: float = 1.0) -> None:
    """Read, do and acknowledge until `stop`; stale entries are claimed every `claim_every_s`, lag measured every
    `lag_every_s`, due challenges expired every `expire_every_s`. A storage failure is logged and the loop goes
    on."""
    await consumer.ensure_group()
    last_claim = last_lag = last_expiry = 0.0
    while not stop.is_set():
        try:
            now = time.monotonic()
            entries: list[tuple[str, str, dict]] = []
            if now - last_claim >= claim_every_s:
                last_claim = now
                entries += await consumer.claim_stale()
            entries += await consumer.read_waiting()
            # nothing in hand: wait for the next commit in the read itself, where the Redis can (one node)
            blocked = consumer.one_node and not entries
            entries += await consumer.read_new(round(idle_poll_s * 1000) if blocked else None)
            done = await consumer.handle(entries) if entries else 0
            if now - last_expiry >= expire_every_s:
                last_expiry = now
                await consumer.expire_challenges()
            if now - last_lag >= lag_every_s:
                last_lag = now
                behind, age = await consumer.measure_lag()
                metrics.BEHIND.set(behind)
                metrics.OLDEST_AGE.set(age)
        except Exception:
            log.warning("outcomes pass failed", exc_info=True)
            done, blocked = 0, False
        if not done and not blocked:  # nothing new (and not waited for in the read), or games waiting for seating
            await rest(stop, idle_poll_s)
