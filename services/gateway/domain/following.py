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
from collections.abc import Mapping

from services.accounts.keys import BUCKETS, bucket_of
from services.accounts.seats import mark_ended
from services.common.redis_scripts import LuaScript
from services.common.slot_transactions import SlotTransactions
from services.gamestate.client import GameServiceError
from services.gateway.context import Context
from services.gateway.domain.challenge_flow import expire_due
from services.gateway.domain.turn_events import publish, version_events

log = logging.getLogger(__name__)

RENEW = LuaScript.beside(__file__, "lease_renew")
RELEASE = LuaScript.beside(__file__, "lease_release")


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Follower:
    def __init__(self, c: Context):
        self.c = c
        self.settings = c.settings
        self.holder = secrets.token_hex(8)
        self.tasks: dict[str, asyncio.Task] = {}
        self._wake = asyncio.Event()
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
                await self._forget(game_id, seats, None)
            raise
        clocked = g.turn_seconds > 0
        pos = {_text(k): _text(v) for k, v in (await c.redis.hgetall(c.keys.follow_pos(game_id))).items()}
        last = int(pos.get("v", -1))
        before = json.loads(pos["to_act"]) if pos and last == g.version - 1 else None  # else first sighting or a gap
        await self._version(game_id, seats, g.version, g.status, g.to_act, before, None, g.scores, g.winners,
                            g.deadlines if clocked else {})
        to_act, status = g.to_act, g.status
        if g.status == "active":
            async with contextlib.aclosing(c.gamestate.watch(game_id, None, g.version)) as updates:
                async for u in updates:
                    deadlines: dict[int, int] = {}
                    if clocked and u.status == "active":
                        deadlines = (await c.gamestate.get_game(game_id)).deadlines
                    await self._version(game_id, seats, u.version, u.status, u.to_act, to_act, u.actor, u.scores,
                                        u.winners, deadlines)
                    to_act, status = u.to_act, u.status
                    if u.status != "active":
                        break
        await self._forget(game_id, seats, status if status != "active" else None)

    async def _version(self, game_id: str, seats: dict[int, str], version: int, status: str, to_act: list[int],
                       before: list[int] | None, actor: int | None, scores: list[int], winners: list[int],
                       deadlines: Mapping[int, int]) -> None:
        """Publish one version's account events (exactly once: the script skips a version already published)."""
        if status != "active":  # finished or aborted
            await self.c.settle_soon(game_id)
        events = version_events(game_id, seats, status, version, to_act, before, actor, scores, winners, deadlines)
        await publish(self.c.redis, self.c.keys, self.settings, game_id, version, to_act, events)

    async def _forget(self, game_id: str, seats: dict[int, str], ended: str | None) -> None:
        """The game ended (`ended`: its status) or is gone (None): off the followed set; its accounts list it as
        ended for a while (`seats.mark_ended`), or no longer at all when it is gone."""
        c = self.c
        await c.redis.zrem(c.keys.followed(bucket_of(game_id)), game_id)
        if ended is not None:
            await mark_ended(c.redis, c.keys, set(seats.values()), game_id, ended)
            return
        tx = SlotTransactions(c.redis)
        for pid in set(seats.values()):
            tx.on(c.keys.account_tag(pid)).hdel(c.keys.account_games(pid), game_id)
        await tx.execute()
