"""The turn follower: publishes `your_turn` and `game_end` of account games to their owners' streams.

Why here and not in the game-state service: the service knows nothing of accounts, and the gateway
already reads games through it. Each gateway runs one follower (`GATEWAY_FOLLOW_GAMES`). The games to
follow are a Redis sorted set (`followed`), written when a challenge or a matchmaking ticket seats an
account. A follower takes a game with a lease (SET NX PX `GATEWAY_FOLLOW_LEASE_S`, renewed while it
follows), reads it once as a spectator (GetGame), then follows it with WatchGame as a spectator (which
carries `to_act` and the status, never a seat's secrets) until it ends. At most `GATEWAY_FOLLOW_MAX_GAMES`
games per gateway.

Restart-safe and exactly once: the last version published to each account is kept per account and game
(`follow_sent`, in the account's slot) and one script per account checks it and appends that account's entries of
a version together; the follower's own position (`follow_pos`, the last version and who was to act) is written
after. A gateway that dies mid-game is replaced within a lease by another one that resumes at the current version,
and no account gets a version twice. The followed games are split into buckets (services/accounts/keys.py), a
game's seats in its bucket's slot, which the scan walks (Redis Cluster, issue #40).
Events name only the seat's own owner (`your_turn`) or carry what every seat may know (`game_end`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from services.accounts.events import PUBLISH_TURNS
from services.accounts.keys import BUCKETS, bucket_of
from services.common.redis_scripts import LuaScript
from services.common.slot_transactions import SlotTransactions
from services.common.standings import shown_scores, shown_winners
from services.gamestate.client import GameServiceError
from services.gateway.context import Context
from services.gateway.domain.challenge_flow import expire_due

log = logging.getLogger(__name__)

RENEW = LuaScript.beside(__file__, "lease_renew")
RELEASE = LuaScript.beside(__file__, "lease_release")


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def new_turns(to_act: Sequence[int], before: Sequence[int] | None, actor: int | None) -> list[int]:
    """Seats with a new decision: newly in `to_act`, or the one that just acted and must act again. Without
    `before` (first sighting, or versions were skipped) every seat in `to_act`."""
    if before is None:
        return list(to_act)
    return [s for s in to_act if s not in before or s == actor]


class Follower:
    def __init__(self, c: Context):
        self.c = c
        self.settings = c.settings
        self.holder = secrets.token_hex(8)
        self.tasks: dict[str, asyncio.Task] = {}
        self._wake = asyncio.Event()
        self._publish = PUBLISH_TURNS.register(c.redis)
        self._renew = RENEW.register(c.redis)
        self._release = RELEASE.register(c.redis)

    def kick(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        """Scan for unfollowed games and expire due challenges until cancelled."""
        try:
            while True:
                try:
                    await self.scan()
                    await expire_due(self.c)
                except Exception:  # Redis or the service restarting: try again next scan
                    log.warning("follower scan failed", exc_info=True)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.follow_scan_s)
                self._wake.clear()
        finally:
            await self.stop()

    async def stop(self) -> None:
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def scan(self) -> None:
        room = self.settings.follow_max_games - len(self.tasks)
        if room <= 0:
            return
        lease_ms = int(self.settings.follow_lease_s * 1000)
        async with self.c.redis.pipeline(transaction=False) as pipe:
            for b in range(BUCKETS):
                pipe.zrange(self.c.keys.followed(b), 0, -1, withscores=True)
            replies = await pipe.execute()
        for _since, game_id in sorted((since, _text(raw)) for reply in replies for raw, since in reply):
            if game_id in self.tasks:
                continue
            if not await self.c.redis.set(self.c.keys.follow_lease(game_id), self.holder, nx=True, px=lease_ms):
                continue  # another gateway follows it
            self.tasks[game_id] = asyncio.create_task(self._follow(game_id))
            room -= 1
            if room <= 0:
                return

    async def _follow(self, game_id: str) -> None:
        lease = self.c.keys.follow_lease(game_id)
        renewing = asyncio.create_task(self._keep_lease(lease))
        following = asyncio.create_task(self._follow_game(game_id))
        try:
            done, _ = await asyncio.wait({renewing, following}, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is following and not task.cancelled() and task.exception() is not None:
                    log.warning("following game %s failed: %r", game_id, task.exception())
        finally:
            for task in (renewing, following):
                task.cancel()
            await asyncio.gather(renewing, following, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self._release(keys={"lease": lease}, args={"holder": self.holder})
            self.tasks.pop(game_id, None)

    async def _keep_lease(self, lease: str) -> None:
        """Renew the lease a third of its length at a time; returns (ending the follow) once it is lost."""
        ttl_ms = int(self.settings.follow_lease_s * 1000)
        while True:
            await asyncio.sleep(self.settings.follow_lease_s / 3)
            if not await self._renew(keys={"lease": lease}, args={"holder": self.holder, "ttl_ms": ttl_ms}):
                return

    async def _follow_game(self, game_id: str) -> None:
        c = self.c
        raw = await c.redis.hgetall(c.keys.game_accounts(game_id))
        seats = {int(_text(k)): _text(v) for k, v in raw.items()}
        if not seats:
            await c.redis.zrem(c.keys.followed(bucket_of(game_id)), game_id)
            return
        try:
            g = await c.gamestate.get_game(game_id)
        except GameServiceError as exc:
            if exc.reason == "not_found" or exc.code.name == "NOT_FOUND":
                await self._forget(game_id, seats)
            raise
        clocked = g.turn_seconds > 0
        pos = {_text(k): _text(v) for k, v in (await c.redis.hgetall(c.keys.follow_pos(game_id))).items()}
        last = int(pos.get("v", -1))
        before = json.loads(pos["to_act"]) if pos and last == g.version - 1 else None  # else first sighting or a gap
        await self._version(game_id, seats, g.version, g.status, g.to_act, before, None, g.scores, g.winners,
                            g.deadlines if clocked else {})
        to_act = g.to_act
        if g.status == "active":
            async with contextlib.aclosing(c.gamestate.watch(game_id, None, g.version)) as updates:
                async for u in updates:
                    deadlines: dict[int, int] = {}
                    if clocked and u.status == "active":
                        deadlines = (await c.gamestate.get_game(game_id)).deadlines
                    await self._version(game_id, seats, u.version, u.status, u.to_act, to_act, u.actor, u.scores,
                                        u.winners, deadlines)
                    to_act = u.to_act
                    if u.status != "active":
                        break
        await self._forget(game_id, seats)

    async def _version(self, game_id: str, seats: dict[int, str], version: int, status: str, to_act: list[int],
                       before: list[int] | None, actor: int | None, scores: list[int], winners: list[int],
                       deadlines: Mapping[int, int]) -> None:
        """Publish one version's account events (exactly once: the script skips a version already published)."""
        events: list[tuple[str, str, dict[str, Any]]] = []
        if status != "active":  # finished or aborted
            await self.c.settle_soon(game_id)
            for seat, pid in sorted(seats.items()):
                events.append((pid, "game_end", {"game_id": game_id, "seat": seat, "status": status,
                                                 "scores": shown_scores(status, scores),
                                                 "winners": shown_winners(status, winners)}))
        else:
            for seat in new_turns(to_act, before, actor):
                if seat in seats:
                    events.append((seats[seat], "your_turn", {"game_id": game_id, "seat": seat, "version": version,
                                                              "deadline": deadlines.get(seat)}))
        s = self.settings
        by_account: dict[str, list[str]] = {}
        for pid, kind, data in events:
            by_account.setdefault(pid, []).extend((kind, json.dumps(data, separators=(",", ":"))))
        minid = f"{int((time.time() - s.account_events_keep_s) * 1000)}-0"
        await asyncio.gather(*(self._publish(
            keys={"sent": self.c.keys.follow_sent(pid, game_id), "stream": self.c.keys.account_events(pid)},
            args={"version": version, "minid": minid, "maxlen": s.account_events_maxlen,
                  "keep": s.account_events_keep_s, "events": flat},
        ) for pid, flat in by_account.items()))
        async with self.c.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.c.keys.follow_pos(game_id), mapping={"v": version, "to_act": json.dumps(to_act)})
            pipe.expire(self.c.keys.follow_pos(game_id), s.account_events_keep_s)
            await pipe.execute()

    async def _forget(self, game_id: str, seats: dict[int, str]) -> None:
        """The game ended (or is gone): off the followed set and the accounts' ongoing games."""
        c = self.c
        tx = SlotTransactions(c.redis)
        tx.on(f"f:{bucket_of(game_id)}").zrem(c.keys.followed(bucket_of(game_id)), game_id)
        for pid in set(seats.values()):
            tx.on(c.keys.account_tag(pid)).hdel(c.keys.account_games(pid), game_id)
        await tx.execute()
