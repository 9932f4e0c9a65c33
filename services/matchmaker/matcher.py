"""One matchmaking pass: group queued tickets, claim the groups atomically, create their games.

Groups are handled in batches of `mm_batch_size`: one script claims every
group of a batch (each whole or not at all), one `CreateGames` call creates
their games through the game-state service, one script records the placements
and one transaction registers the games for rating, so a table costs a share
of four round trips instead of four round trips of its own. A group whose game
could not be created is released and its tickets wait on; a ticket whose claim
was lost to another matchmaker is simply skipped. What follows the games' ends (ratings settled, `game_end`)
is the outcomes consumer's (services/outcomes/).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from dataclasses import dataclass

from services.accounts.events import AccountEvents
from services.accounts.ratings import Ratings
from services.accounts.seats import register_on
from services.common.slot_transactions import SlotTransactions
from services.gamestate.client import AsyncGameClient, GameServiceError, NewGame
from services.matchmaker.grouping import Group, form_groups
from services.matchmaker.settings import MatchmakerSettings
from services.matchmaker.store import Placement, TicketStore

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class _Seating:
    """A claimed group's seats: ticket id -> seat, and the bot seats with their level."""

    group: Group
    human_seats: dict[str, int]
    bots: dict[int, str]

    @property
    def ticket_ids(self) -> list[str]:
        return [t.ticket_id for t in self.group.tickets]


class Matcher:
    def __init__(self, store: TicketStore, ratings: Ratings, gamestate: AsyncGameClient, settings: MatchmakerSettings):
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
        return created

    async def _start_all(self, bucket: str, groups: list[Group]) -> list[str]:
        """Start the groups in batches, `mm_batches_in_flight` at once: groups are disjoint and claims
        atomic, and overlapping batches keeps Redis, the service and this process busy together."""
        size = self.settings.mm_batch_size
        batches = [groups[i:i + size] for i in range(0, len(groups), size)]
        sem = asyncio.Semaphore(self.settings.mm_batches_in_flight)

        async def one(batch: list[Group]) -> list[str]:
            async with sem:
                return await self._start_batch(bucket, batch)

        results = await asyncio.gather(*(one(b) for b in batches), return_exceptions=True)
        created = []
        for result in results:
            if isinstance(result, BaseException):
                raise result
            created += result
        return created

    async def _start_batch(self, bucket: str, groups: list[Group]) -> list[str]:
        """Claim, create, record and register one batch of groups; returns the ids of the games started."""
        claim_id = uuid.uuid4().hex
        outcomes = await self.store.claim_groups(claim_id, bucket, [[t.ticket_id for t in g.tickets] for g in groups])
        seatings = [self._seat(g) for g, outcome in zip(groups, outcomes) if outcome == 0]
        if not seatings:
            return []
        specs = [NewGame(s.group.tickets[0].game, s.group.seats, options=s.group.tickets[0].options, bots=s.bots,
                         time_control=s.group.tickets[0].time_control, rated=True, seat_players=_players(s))
                 for s in seatings]
        try:
            results = await self.gamestate.admin(self.settings.service_secret or "").create_games(specs)
        except GameServiceError as exc:
            log.warning("could not create %d games: %s", len(seatings), exc.reason)
            await self._release(claim_id, bucket, seatings)
            return []
        except BaseException:
            await self._release(claim_id, bucket, seatings)
            raise
        if len(results) != len(seatings):  # a broken reply: the placements cannot be matched to the groups
            log.error("CreateGames answered %d results for %d games", len(results), len(seatings))
            await self._release(claim_id, bucket, seatings)
            return []
        placed: list[tuple[_Seating, str, dict[str, Placement]]] = []
        failed: list[_Seating] = []
        refused: set[str] = set()
        for seating, result in zip(seatings, results):
            if isinstance(result, GameServiceError):
                log.warning("could not create a %s game for %d tickets: %s", seating.group.tickets[0].game,
                            len(seating.human_seats), result.reason)
                failed.append(seating)
                refused |= await self._refuse_over_quota(claim_id, bucket, seating, result)
                continue
            game_id = result.game_id
            tokens = {s.seat: s.token for s in result.seats}
            placements = {tid: (game_id, seat, tokens.get(seat)) for tid, seat in seating.human_seats.items()}
            placed.append((seating, game_id, placements))
        await self._release(claim_id, bucket, failed, refused)
        recorded = await self.store.matched_groups(claim_id, bucket, [p for _s, _g, p in placed])
        rated = []
        seated = 0
        for (seating, game_id, _p), ok in zip(placed, recorded):
            if not ok:
                log.error("claim %s was released while game %s was being created; the game stays unused",
                          claim_id, game_id)
                continue
            entities = {seat: f"bot:{level}" for seat, level in seating.bots.items()}
            entities |= {seating.human_seats[t.ticket_id]: f"player:{t.player_id}" for t in seating.group.tickets}
            rated.append((game_id, seating.group.tickets[0].game, entities))
            seated += len(seating.human_seats)
        await self.ratings.register_games(rated)
        await self._announce(placed, recorded)
        log.info("matched %d tickets into %d games (%d failed to create)", seated, len(rated), len(failed))
        return [game_id for game_id, _game, _entities in rated]

    async def _announce(self, placed: list[tuple[_Seating, str, dict[str, Placement]]], recorded: list[bool]) -> None:
        """List the matched games among the players' ongoing games (their seats, which the outcomes consumer announces
        turns to) and put a
        `game_start` on each player's account stream: the account's API key acts for the seat (its token is kept sealed
        with the account, `accounts.seats`), and the ticket's next poll still hands the token out once."""
        keys, s = self.store.keys, self.settings
        events = AccountEvents(self.store.redis, keys, s.service_secret or "", s.account_events_maxlen,
                               s.account_events_keep_s)
        tx = SlotTransactions(self.store.redis)  # one MULTI; on a cluster one per account and followed bucket
        for (seating, game_id, placements), ok in zip(placed, recorded):
            if not ok:
                continue
            game = seating.group.tickets[0].game
            seats = {seating.human_seats[t.ticket_id]: t.player_id for t in seating.group.tickets}
            tokens = {seat: token for _g, seat, token in placements.values() if token}
            register_on(tx, keys, s.account_events_keep_s, game_id, game, seats, tokens, s.service_secret or "")
            for t in seating.group.tickets:
                events.add_to(tx.on(keys.account_tag(t.player_id)), t.player_id, "game_start", {
                    "game_id": game_id, "game": game, "seat": seating.human_seats[t.ticket_id],
                    "ticket_id": t.ticket_id, "token": None, "token_delivered": False,
                    "note": "play with your API key (it acts for this seat); the seat token, if you want one, is "
                            "handed out by the ticket's next poll or by POST /v1/games/{id}/token"})
        await tx.execute()

    def _seat(self, group: Group) -> _Seating:
        """Random seats for the group's tickets; the remaining seats get the bot-fill level."""
        seats = list(range(group.seats))
        self._seat_rng.shuffle(seats)
        human = dict(zip((t.ticket_id for t in group.tickets), seats[: len(group.tickets)]))
        return _Seating(group, human, {seat: self.settings.bot_fill_level for seat in seats[len(group.tickets):]})

    async def _refuse_over_quota(self, claim_id: str, bucket: str, seating: _Seating,
                                 error: GameServiceError) -> set[str]:
        """End the tickets of players the game-state service found over a quota (docs/decisions/abuse-bounds.md: every
        seated player is charged) as `refused`, with its message, instead of queueing them again forever; returns their
        ids (the group's other tickets go back to the queue)."""
        over = set(error.extra.get("players") or []) if error.reason == "quota_exceeded" else set()
        refused = [t.ticket_id for t in seating.group.tickets if t.player_id in over]
        await self.store.refuse(claim_id, bucket, refused, error.message)
        return set(refused)

    async def _release(self, claim_id: str, bucket: str, seatings: list[_Seating],
                       refused: set[str] | frozenset[str] = frozenset()) -> None:
        """Put the tickets of groups whose game was not created back in the queue (one script), but `refused`."""
        ids = [tid for s in seatings for tid in s.ticket_ids if tid not in refused]
        if ids:
            await self.store.release(claim_id, bucket, ids)


def _players(seating: _Seating) -> dict[int, str]:
    """Seat -> player id of a seating's tickets: the game records who sits where (histories, the archive)."""
    by_ticket = {t.ticket_id: t.player_id for t in seating.group.tickets}
    return {seat: by_ticket[tid] for tid, seat in seating.human_seats.items()}
