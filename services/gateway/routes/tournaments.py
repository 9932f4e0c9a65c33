"""Tournaments: an organiser creates a Swiss event or an arena; players (and bot accounts, where allowed) enter and
withdraw; anyone reads the events, their rounds and standings. The director (python -m services.tournament_director)
pairs the rounds (seats an arena's waiting players) and creates the games. The operations themselves are
services/gateway/domain/tournaments.py, which the gRPC TournamentService serves as well."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from redis.exceptions import RedisError
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from services.gateway.auth import CurrentPlayer
from services.gateway.context import Context, Ctx
from services.gateway.domain import tournaments as ops
from services.gateway.http.errors import ERROR_RESPONSES
from services.gateway.http.streams import open_stream
from services.gateway.models.tournaments import (
    Entry,
    NewTournament,
    TournamentCreated,
    TournamentList,
    TournamentOut,
    TournamentStandings,
)
from services.tournaments.store import Event

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES, tags=["tournaments"])


async def _event(tournament_id: str, c: Ctx) -> Event:
    return await ops.find(c, tournament_id)


Found = Annotated[Event, Depends(_event)]


@router.post(
    "/tournaments", status_code=201, response_model=TournamentCreated, summary="Create a Swiss tournament or an arena",
    description="Bearer: your API key (you are the organiser). Swiss: every round seats the entrants at tables of "
    "`players` by standings, avoiding repeat opponents; match points come from each table's places. Arena: from "
    "`starts_at` to `ends_at`, waiting players are seated as soon as a table fills, nearest in the standings, and "
    "queued again when their game ends; points by place, multiplied on a streak. An account "
    "may create `GATEWAY_TOURNAMENTS_PER_DAY` (5) tournaments a day (429 `quota_exceeded`) of at most "
    "`GATEWAY_TOURNAMENT_MAX_PLAYERS` entrants. Realtime clocks need `GATEWAY_MIN_SECONDS_PER_DECISION`.",
)
async def create_tournament(body: NewTournament, player_id: CurrentPlayer, c: Ctx) -> TournamentCreated:
    return TournamentCreated(tournament_id=await ops.create(c, player_id, body))


@router.get("/tournaments", response_model=TournamentList, summary="Tournaments, soonest first")
async def list_tournaments(
    c: Ctx, status: str | None = Query(None, pattern="^(open|running|finished)$"),
    limit: int = Query(ops.LIST_DEFAULT, ge=1, le=ops.LIST_MAX),
) -> TournamentList:
    return TournamentList(tournaments=await ops.listing(c, status, limit))


@router.get("/tournaments/{tournament_id}", response_model=TournamentOut, summary="One tournament")
async def get_tournament(event: Found, c: Ctx) -> TournamentOut:
    return await ops.describe(c, event)


@router.get("/tournaments/{tournament_id}/standings", response_model=TournamentStandings,
            summary="A tournament's standings and rounds",
            description="Swiss: standings by match points, then Buchholz, then the sum of game scores; every round "
            "paired so far with its tables, games and places. An arena: by points (with the streak bonus), then the "
            "sum of game scores; its tables as one round 0, in the order seated. Recomputed from the record at every "
            "read.")
async def standings(event: Found, c: Ctx) -> TournamentStandings:
    return await ops.standings(c, event)


@router.post("/tournaments/{tournament_id}/join", response_model=Entry, summary="Enter a tournament",
             description="Bearer: your API key. A bot account may enter only where the organiser allows bots "
             "(403 `forbidden`); a full or finished tournament is 409 `tournament_full` or `tournament_finished`.")
async def join(event: Found, player_id: CurrentPlayer, c: Ctx) -> Entry:
    return await ops.join(c, event, player_id)


@router.post("/tournaments/{tournament_id}/withdraw", response_model=Entry, summary="Withdraw from a tournament",
             description="Bearer: your API key. No further tables for you; your games of the event still running "
             "are resigned and played out by the zombie bot (you place last in them); your results stay.")
async def withdraw(event: Found, player_id: CurrentPlayer, c: Ctx) -> Entry:
    return await ops.withdraw(c, event, player_id)


@router.get(
    "/tournaments/{tournament_id}/events",
    summary="A tournament's feed (Server-Sent Events): pairings, standings, the end",
    response_description=(
        "text/event-stream, `id` = the entry's stream id; from the first kept entry, or after `Last-Event-ID`. "
        "Events: `pairing` `{tournament_id, round, byes, tables: [{number, players, game_id}]}` as a round is "
        "paired; `standings` `{tournament_id, round, standings}` (after round `round`) with each pairing; `end` "
        "`{tournament_id, rounds, standings}` once, the final standings, after which the stream closes. Written by "
        "the director at most once each: the record is `GET .../standings`."),
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def tournament_events(
    request: Request, event: Found, c: Ctx, last_event_id: str | None = Header(None, alias="Last-Event-ID"),
) -> EventSourceResponse:
    after = ops.resume_after(last_event_id)
    slot = open_stream(c.streams, request, None)  # 429 beyond GATEWAY_STREAM_LIMIT_IP
    return EventSourceResponse(_feed(c, event.tournament_id, after, request), ping=c.settings.sse_ping_s,
                               background=BackgroundTask(slot.release))


async def _feed(c: Context, tournament_id: str, after: str, request: Request) -> AsyncIterator[ServerSentEvent]:
    try:
        async for item in ops.feed(c, tournament_id, after, request.is_disconnected):
            yield ServerSentEvent(data=item.data, event=item.kind, id=item.id)
    except RedisError:
        yield ServerSentEvent(data=json.dumps({"error": {"code": "unavailable", "rule": None,
                                                         "message": "storage is unavailable; reconnect with "
                                                                    "Last-Event-ID"}}), event="error")
