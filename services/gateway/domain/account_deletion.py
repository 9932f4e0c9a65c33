"""Deleting an account (`DELETE /v1/players/me`): what it ends, in the order that keeps its secrets safe.

1. SQL, one transaction (services/accounts/repository.py delete_player): the confirmation checked, every API key
   of the account deleted, its name replaced by "deleted player". From here on no key of the account works: the
   cached lookups are rewritten as revoked before this answers, so every stream the keys opened (the account
   stream, game streams, gRPC WatchGame) ends within services/accounts/revocation.CHECK_S, and nothing written
   after this step (the resignations below included) reaches one of them.
2. What the account still had going: its queued matchmaking tickets cancelled, its pending challenges cancelled
   (sent) or declined (received), and each seat it holds in an active game resigned, as `POST .../resign` does
   (the zombie bot plays it out; the platform's kept seat token does it, no key needed).
3. Its private data in Redis dropped: the seat tokens kept for it (sealed), its account stream. Its games stay
   listed as its own without them, so an ended one is in its history until the archive takes it.

What stays: the account's row (its id, its creation time, its kind), so finished games, the archive's seats and
the ratings settled with it stay consistent; they name a "deleted player". Names are not unique on the platform,
so the old name is anyone's to register at once. A step of 2 that cannot be done now (the game-state service does
not answer) is logged and left: a seat nobody plays is abandoned by its clock, as any silent seat.
"""

from __future__ import annotations

from services.accounts import seats
from services.gateway.context import Context
from services.gateway.domain import challenge_flow
from services.gateway.domain.seat_resignation import resign_held
from services.gateway.models.accounts import AccountDeleted, ResignedSeat
from services.webhooks.store import WebhookStore


async def delete_account(c: Context, player_id: str, api_key: str, confirm_name: str) -> AccountDeleted:
    """Delete the account of `api_key` (its current key; 403 `key_retired` otherwise, 422 unless `confirm_name` is
    its name); answers what it ended."""
    await c.accounts.delete(player_id, api_key, confirm_name)
    # first, so that nothing this deletion causes (resignations, closed challenges) is sent to its endpoints
    await WebhookStore(c.redis, c.keys, "").forget_account(player_id)
    tickets = await _cancel_tickets(c, player_id)
    challenges = await _close_challenges(c, player_id)
    resigned = await _resign_seats(c, player_id)
    await c.redis.delete(c.keys.account_events(player_id))
    return AccountDeleted(player_id=player_id, resigned=resigned, tickets_cancelled=tickets,
                          challenges_closed=challenges)


async def _cancel_tickets(c: Context, player_id: str) -> int:
    cancelled = 0
    for ticket_id in await c.tickets.of(player_id):
        if await c.tickets.cancel(ticket_id) == "cancelled":
            cancelled += 1
    return cancelled


async def _close_challenges(c: Context, player_id: str) -> int:
    """Cancel the pending challenges it sent, decline those it received (both players are told, as by the
    routes)."""
    closed = 0
    for ch in await c.challenges.of(player_id):
        if ch.status != "pending":
            continue
        status = "cancelled" if ch.challenger == player_id else "declined"
        if await c.challenges.move(ch.challenge_id, "pending", status) == "ok":
            await challenge_flow.closed(c, ch, status)
            closed += 1
    return closed


async def _resign_seats(c: Context, player_id: str) -> list[ResignedSeat]:
    """Resign every seat the account holds in a game not known to have ended, then drop the seat tokens kept for it
    (the sealed ones its key acted with, those waiting for its account stream). Each game stays listed as the
    account's, without a credential: its history lists an ended game until the archive takes it, and the game's
    end is recorded for it as for any player."""
    resigned: list[ResignedSeat] = []
    for held in await seats.held_games(c.redis, c.keys, player_id):
        for seat in await resign_held(c, player_id, held, "a deleted account's"):
            resigned.append(ResignedSeat(game_id=held.game_id, seat=seat))
        await seats.forget_tokens(c.redis, c.keys, player_id, held.game_id)
        await c.redis.delete(c.keys.handoff(player_id, held.game_id))
    return resigned

