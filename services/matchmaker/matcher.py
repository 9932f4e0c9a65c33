"""One matchmaking pass: group queued tickets, claim each group atomically, create its game.

Creating goes through the game-state service. If it fails, the claim is
released and the tickets wait on; a ticket whose claim was lost to another
matchmaker is simply skipped. The pass also settles rated games that finished
(their bots may have ended them with nobody watching).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid

from services.gateway.gamestate import GameStateClient, GameStateError
from services.gateway.ratings import Ratings
from services.gateway.settings import GatewaySettings
from services.matchmaker.grouping import Group, form_groups
from services.matchmaker.store import TicketStore

log = logging.getLogger(__name__)

#: Games a matchmaking pass creates at once.
CREATE_CONCURRENCY = 32


class Matcher:
    def __init__(self, store: TicketStore, ratings: Ratings, gamestate: GameStateClient, settings: GatewaySettings):
        self.store = store
        self.ratings = ratings
        self.gamestate = gamestate
        self.settings = settings
        self._seat_rng = random.SystemRandom()

    async def run_once(self) -> list[str]:
        """One pass over every bucket; returns the ids of the games created."""
        created = []
        released = await self.store.release_stale_claims(self.settings.mm_claim_stale_s)
        if released:
            log.warning("released %d tickets whose matchmaker died while creating their game", released)
        for bucket in await self.store.buckets():
            tickets = await self.store.queued(bucket)
            if not tickets:
                continue
            groups = form_groups(
                tickets, tickets[0].players, int(time.time() * 1000),
                self.settings.mm_base_gap, self.settings.mm_gap_per_s,
            )
            created += await self._start_all(bucket, groups)
        await self.settle_finished()
        return created

    async def _start_all(self, bucket: str, groups: list[Group]) -> list[str]:
        """Create the groups' games concurrently, at most CREATE_CONCURRENCY at once: groups are disjoint
        and claims atomic, and one at a time the round trips capped a pass at ~200 tickets/s."""
        sem = asyncio.Semaphore(CREATE_CONCURRENCY)

        async def one(group: Group) -> str | None:
            async with sem:
                return await self._start(bucket, group)

        results = await asyncio.gather(*(one(g) for g in groups), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return [game_id for game_id in results if game_id]

    async def _start(self, bucket: str, group: Group) -> str | None:
        claim_id = uuid.uuid4().hex
        ids = [t.ticket_id for t in group.tickets]
        if await self.store.claim(claim_id, bucket, ids) != 0:
            return None
        first = group.tickets[0]
        seats = list(range(group.seats))
        self._seat_rng.shuffle(seats)
        human_seats = dict(zip(ids, seats[: len(ids)]))
        bots = {seat: self.settings.bot_fill_level for seat in seats[len(ids):]}
        try:
            game_id, seat_info = await self.gamestate.create(first.game, group.seats, None, first.options, bots)
        except GameStateError as exc:
            log.warning("could not create a %s game for %d tickets: %s", first.game, len(ids), exc.reason)
            await self.store.release(claim_id, bucket, ids)
            return None
        except BaseException:
            await self.store.release(claim_id, bucket, ids)
            raise
        tokens = {seat: token for seat, token, _bot in seat_info}
        entities = {seat: f"bot:{level}" for seat, level in bots.items()}
        entities |= {human_seats[t.ticket_id]: f"player:{t.player_id}" for t in group.tickets}
        placements = {tid: (game_id, seat, tokens.get(seat)) for tid, seat in human_seats.items()}
        if not await self.store.matched(claim_id, placements):
            log.error("claim %s was released while game %s was being created; the game stays unused", claim_id,
                      game_id)
            return None
        await self.ratings.register_game(game_id, first.game, entities)
        log.info("matched %d tickets (+%d bots) into %s game %s", len(ids), len(bots), first.game, game_id)
        return game_id

    async def settle_finished(self) -> int:
        """Settle the ratings of rated games that finished; returns how many this pass settled."""
        settled = 0
        for game_id in await self.ratings.pending():
            try:
                view = await self.gamestate.get(game_id, None)
            except GameStateError as exc:
                log.debug("rated game %s not readable: %s", game_id, exc.reason)
                continue
            if view.status == "finished":
                settled += await self.ratings.settle(game_id, view.scores, view.winners)
        return settled
