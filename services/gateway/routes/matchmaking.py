"""Matchmaking tickets: queue for a game, poll until matched (the seat token is handed out once), cancel.

The matchmaker (services/matchmaker) groups the queued tickets and creates their games.
"""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends

from services.gateway.auth import CurrentPlayer
from services.gateway.context import Ctx
from services.gateway.domain import clock_floor
from services.gateway.domain.tables import check_table
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.models.games import NewTicket, TicketCreated, TicketOut
from services.gateway.settings import GatewaySettings
from services.matchmaker.store import Ticket

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

_ID = re.compile(r"^[0-9a-f]{32}$")


@router.post("/matchmaking/tickets", status_code=201, response_model=TicketCreated, summary="Queue for a game")
async def create_ticket(body: NewTicket, player_id: CurrentPlayer, c: Ctx) -> TicketCreated:
    if body.opponents == "humans" and await c.accounts.kind(player_id) == "bot":
        raise ApiError(422, "a bot account cannot ask for human opponents only", "humans_only_for_humans")
    entry = await c.catalog_entry(body.game)
    check_table(entry, body.players, body.options)
    options = {k: body.options.get(k, spec["default"]) for k, spec in entry["options"].items()}
    rating = await c.ratings.get(player_id, body.game)
    bots_after = c.settings.default_bots_after_s if body.bots_after_s is None else body.bots_after_s
    control = body.time_control.model_dump() if body.time_control is not None else default_time_control(c.settings)
    clock_floor.check(c.settings.min_seconds_per_decision, control)
    ticket = await c.tickets.create(player_id, body.game, body.players, options, bots_after, rating.ordinal,
                                    body.opponents, control)
    return TicketCreated(ticket_id=ticket.ticket_id)


def default_time_control(settings: GatewaySettings) -> dict:
    """The matchmaking default: realtime, GATEWAY_MM_SECONDS_PER_DECISION + GATEWAY_MM_RESERVE_SECONDS."""
    return {"kind": "realtime", "seconds_per_decision": settings.mm_seconds_per_decision,
            "reserve_seconds": settings.mm_reserve_seconds}


async def _own_ticket(ticket_id: str, player_id: CurrentPlayer, c: Ctx) -> Ticket:
    """The caller's ticket `ticket_id`: 404 if there is none, 403 if it is another player's."""
    ticket = await c.tickets.get(ticket_id) if _ID.match(ticket_id) else None
    if ticket is None:
        raise ApiError(404, "no such ticket")
    if ticket.player_id != player_id:
        raise ApiError(403, "this ticket belongs to another player")
    return ticket


OwnTicket = Annotated[Ticket, Depends(_own_ticket)]


def _ticket_out(t: Ticket) -> TicketOut:
    status = "queued" if t.status == "claimed" else t.status
    delivered = t.token is not None or t.token_delivered_ms is not None
    note = t.note if status == "refused" else None
    if status == "matched" and t.token is None:
        note = ("the seat token was handed out by an earlier poll and is never shown again" if delivered
                else "the seat token could not be handed out (the gateway could not unseal it)")
    return TicketOut(ticket_id=t.ticket_id, status=status, game=t.game, players=t.players,
                     game_id=t.game_id, seat=t.seat, token=t.token, token_delivered=delivered, note=note,
                     time_control=t.time_control)


@router.get(
    "/matchmaking/tickets/{ticket_id}",
    response_model=TicketOut,
    summary="Poll a ticket (keeps it alive)",
    description="Poll at least every `GATEWAY_TICKET_TTL_S` while `queued`. Once `matched`, the answer names the "
    "game and seat, and the one poll that first sees the match gets the seat `token`: it is handed out once, "
    "then deleted from the server (until then it is stored encrypted), so keep it. Later polls show the match "
    "with `token` null, `token_delivered` true and a `note` saying so.",
)
async def poll_ticket(ticket_id: str, _mine: OwnTicket, c: Ctx) -> TicketOut:
    ticket = await c.tickets.poll(ticket_id)
    if ticket is None:
        raise ApiError(404, "no such ticket")
    return _ticket_out(ticket)


@router.delete("/matchmaking/tickets/{ticket_id}", response_model=TicketOut, summary="Cancel a queued ticket")
async def cancel_ticket(ticket_id: str, _mine: OwnTicket, c: Ctx) -> TicketOut:
    status = await c.tickets.cancel(ticket_id)
    ticket = await c.tickets.get(ticket_id)
    if ticket is None or status is None:
        raise ApiError(404, "no such ticket")
    if status != "cancelled":
        shown = "being matched" if status == "claimed" else status
        raise ApiError(409, f"the ticket is {shown} and can no longer be cancelled")
    return _ticket_out(ticket)
