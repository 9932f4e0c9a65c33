"""Players, matchmaking tickets and leaderboards."""

from __future__ import annotations

import re

from fastapi import APIRouter, Query, Request

from services.accounts.ratings import Rating
from services.gateway.context import Context, Ctx, require_bearer
from services.gateway.domain import clock_floor
from services.gateway.domain.address_quota import client_address
from services.gateway.domain.api_keys import KINDS
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.models.games import (
    Leaderboard,
    LeaderboardEntry,
    NewPlayer,
    NewTicket,
    PlayerCreated,
    PlayerOut,
    RatingOut,
    TicketCreated,
    TicketOut,
)
from services.gateway.settings import GatewaySettings
from services.matchmaker.store import Ticket

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

_ID = re.compile(r"^[0-9a-f]{32}$")


async def _player(request: Request, c: Context) -> str:
    return await c.player(require_bearer(request))


@router.post("/players", status_code=201, response_model=PlayerCreated, summary="Create a player and its api key")
async def create_player(body: NewPlayer, request: Request, c: Ctx) -> PlayerCreated:
    name = body.name.strip()
    if not name:
        raise ApiError(422, "name must not be blank")
    await c.account_quota.take(client_address(request))
    player_id, api_key = await c.players.create(name, body.kind)
    return PlayerCreated(player_id=player_id, api_key=api_key)


@router.get("/players/{player_id}", response_model=PlayerOut, summary="A player's name and rating per game")
async def get_player(player_id: str, c: Ctx) -> PlayerOut:
    name = await c.players.name(player_id) if _ID.match(player_id) else None
    if name is None:
        raise ApiError(404, "no such player")
    ratings = await c.ratings.all_games(player_id)
    return PlayerOut(player_id=player_id, name=name, kind=await c.accounts.kind(player_id),
                     ratings={g: RatingOut(**r.to_json()) for g, r in ratings.items()})


def _check_options(entry: dict, players: int, options: dict) -> None:
    """Refuse tickets that could never become a game (the catalog's own limits, no rules)."""
    if not entry["min_players"] <= players <= entry["max_players"]:
        raise ApiError(422, f"{entry['title']} takes {entry['min_players']}-{entry['max_players']} players")
    for key, value in options.items():
        spec = entry["options"].get(key)
        if spec is None:
            raise ApiError(422, f"unknown option {key!r}; known: {', '.join(entry['options']) or 'none'}")
        if value not in spec.get("choices", []):
            raise ApiError(422, f"option {key!r} must be one of {spec.get('choices')}")


@router.post("/matchmaking/tickets", status_code=201, response_model=TicketCreated, summary="Queue for a game")
async def create_ticket(body: NewTicket, request: Request, c: Ctx) -> TicketCreated:
    player_id = await _player(request, c)
    if body.opponents == "humans" and await c.accounts.kind(player_id) == "bot":
        raise ApiError(422, "a bot account cannot ask for human opponents only", "humans_only_for_humans")
    entry = await c.catalog_entry(body.game)
    _check_options(entry, body.players, body.options)
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


async def _own_ticket(ticket_id: str, request: Request, c: Context) -> Ticket:
    player_id = await _player(request, c)
    ticket = await c.tickets.get(ticket_id) if _ID.match(ticket_id) else None
    if ticket is None:
        raise ApiError(404, "no such ticket")
    if ticket.player_id != player_id:
        raise ApiError(403, "this ticket belongs to another player")
    return ticket


def _ticket_out(t: Ticket) -> TicketOut:
    status = "queued" if t.status == "claimed" else t.status
    delivered = t.token is not None or t.token_delivered_ms is not None
    note = None
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
async def poll_ticket(ticket_id: str, request: Request, c: Ctx) -> TicketOut:
    await _own_ticket(ticket_id, request, c)
    ticket = await c.tickets.poll(ticket_id)
    if ticket is None:
        raise ApiError(404, "no such ticket")
    return _ticket_out(ticket)


@router.delete("/matchmaking/tickets/{ticket_id}", response_model=TicketOut, summary="Cancel a queued ticket")
async def cancel_ticket(ticket_id: str, request: Request, c: Ctx) -> TicketOut:
    await _own_ticket(ticket_id, request, c)
    status = await c.tickets.cancel(ticket_id)
    ticket = await c.tickets.get(ticket_id)
    if ticket is None or status is None:
        raise ApiError(404, "no such ticket")
    if status != "cancelled":
        shown = "being matched" if status == "claimed" else status
        raise ApiError(409, f"the ticket is {shown} and can no longer be cancelled")
    return _ticket_out(ticket)


@router.get("/leaderboard/{game}", response_model=Leaderboard, summary="Best rated players of a game")
async def leaderboard(
    game: str,
    c: Ctx,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=100_000),
) -> Leaderboard:
    entry = await c.catalog_entry(game)
    rows = await c.ratings.board(entry["name"], limit, offset)  # SQL: ORDER BY the stored ordinal
    entries = [
        LeaderboardEntry(rank=offset + i + 1, player_id=row.player_id, name=row.name,
                         kind=row.kind if row.kind in KINDS else "human",
                         **Rating(row.mu, row.sigma, row.games).to_json())
        for i, row in enumerate(rows)
    ]
    return Leaderboard(game=entry["name"], entries=entries)
