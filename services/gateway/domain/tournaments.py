"""The tournament operations, once for both of the gateway's surfaces: the REST routes
(services/gateway/routes/tournaments.py) and the gRPC TournamentService (services/gateway/grpc_tournaments.py).

Each function takes the request as REST's models shape it and answers REST's response models; a refusal is an
`ApiError` (the REST status and code), which the gRPC surface turns into a status with the same code as its reason.
So both surfaces validate, limit and refuse alike, and neither holds rules of its own."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from services.gateway.context import Context
from services.gateway.domain import clock_floor
from services.gateway.domain.tables import check_table
from services.gateway.domain.tournament_entry import resign_games
from services.gateway.http.errors import ApiError
from services.gateway.models.tournaments import (
    Entry,
    NewTournament,
    RoundOut,
    StandingOut,
    TableOut,
    TournamentOut,
    TournamentStandings,
)
from services.tournaments import scoring
from services.tournaments.arena import ArenaSettings
from services.tournaments.feed import feed_key, standings_json
from services.tournaments.store import ARENA_ROUND, Event, Refused
from services.tournaments.swiss import SwissSettings

_ID = re.compile(r"^[0-9a-f]{32}$")
_ENTRY_ID = re.compile(r"^\d{1,20}-\d{1,20}$")
DAY_MS = 86_400_000
#: the furthest ahead an event may start
MAX_LEAD_MS = 30 * DAY_MS
#: an arena's shortest and longest window
ARENA_MIN_MS, ARENA_MAX_MS = 1_000, DAY_MS
STATUSES = ("open", "running", "finished")
#: the listing's page: its default and its largest
LIST_DEFAULT, LIST_MAX = 50, 200
#: longest wait of one feed read (a closed client is noticed at the next)
FEED_BLOCK_MS = 1000


def refused(exc: Refused) -> ApiError:
    """The API error of a refusal of the store (nothing changed)."""
    if exc.code == "unknown_tournament":
        return ApiError(404, "no such tournament")
    if exc.code == "bots_not_allowed":
        return ApiError(403, exc.message)
    return ApiError(409, exc.message, exc.code)


async def find(c: Context, tournament_id: str) -> Event:
    """The event, or 404 (a malformed id is no tournament either)."""
    event = await c.tournaments.get(tournament_id) if _ID.match(tournament_id) else None
    if event is None:
        raise ApiError(404, "no such tournament")
    return event


def _out(event: Event, round_no: int, entrants: int) -> TournamentOut:
    if event.kind == "arena":
        a = event.arena_settings()
        return TournamentOut(
            tournament_id=event.tournament_id, kind="arena", name=event.name, game=event.game,
            organiser=event.organiser, status=event.status, players=a.seats, rounds=0,  # type: ignore[arg-type]
            round=0, byes="score" if a.bots_after_ms is None else "bots", points=list(a.points), bye_points=0,
            ends_at=a.end_ms, streak_after=a.streak_after, streak_factor=a.streak_factor,
            bots_after_s=None if a.bots_after_ms is None else a.bots_after_ms / 1000,
            options=event.options, time_control=event.time_control, rated=event.rated,  # type: ignore[arg-type]
            bots_allowed=event.bots_allowed, max_players=event.max_players, entrants=entrants,
            created_ms=event.created_ms, starts_at=event.starts_ms)
    s = event.swiss_settings()
    return TournamentOut(
        tournament_id=event.tournament_id, kind="swiss", name=event.name, game=event.game,
        organiser=event.organiser, status=event.status, players=s.seats, rounds=s.rounds,  # type: ignore[arg-type]
        round=round_no, byes=s.byes, points=list(s.points), bye_points=scoring.shown(s.bye_points or 0),
        options=event.options, time_control=event.time_control, rated=event.rated,  # type: ignore[arg-type]
        bots_allowed=event.bots_allowed, max_players=event.max_players, entrants=entrants,
        created_ms=event.created_ms, starts_at=event.starts_ms)


async def create(c: Context, player_id: str, body: NewTournament) -> str:
    """Create the event `body` describes, organised by `player_id`, within the organiser's daily quota; its id."""
    s = c.settings
    now = int(time.time() * 1000)
    if body.max_players > s.tournament_max_players:
        raise ApiError(422, f"max_players must be at most {s.tournament_max_players} (GATEWAY_TOURNAMENT_MAX_PLAYERS)")
    if not now - 60_000 <= body.starts_at <= now + MAX_LEAD_MS:
        raise ApiError(422, "starts_at must lie between now and 30 days ahead")
    entry = await c.catalog_entry(body.game)
    check_table(entry, body.players, body.options)
    options = {k: body.options.get(k, spec["default"]) for k, spec in entry["options"].items()}
    tc = body.time_control.model_dump() if body.time_control else None
    clock_floor.check(s.min_seconds_per_decision, tc)
    bye_units = None
    if body.bye_points is not None:
        bye_units = round(body.bye_points * scoring.UNIT)
        if abs(bye_units - body.bye_points * scoring.UNIT) > 1e-6:
            raise ApiError(422, "bye_points must be a whole number of sixtieths of a point")
    try:
        if body.kind == "arena":
            arena = _arena_settings(body)
            format_settings: dict = {"seats": arena.seats, "ends_ms": arena.end_ms, "points": list(arena.points),
                                     "streak_after": arena.streak_after, "streak_factor": arena.streak_factor,
                                     "bots_after_ms": arena.bots_after_ms}
        else:
            if body.rounds is None:
                raise ApiError(422, "a Swiss tournament needs its number of rounds")
            settings = SwissSettings(seats=body.players, rounds=body.rounds, byes=body.byes,
                                     points=tuple(body.points or ()), bye_points=bye_units)
            format_settings = {"seats": settings.seats, "rounds": settings.rounds, "byes": settings.byes,
                               "points": list(settings.points), "bye_points": settings.bye_points}
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    if await c.tournaments.organised_since(player_id, now - DAY_MS) >= s.tournaments_per_day:
        raise ApiError(429, f"you have created {s.tournaments_per_day} tournaments in the last 24 hours, the most "
                            "allowed (GATEWAY_TOURNAMENTS_PER_DAY)", "quota_exceeded")
    event = Event(
        tournament_id=uuid.uuid4().hex, kind=body.kind, game=entry["name"], name=body.name, organiser=player_id,
        settings=format_settings,
        options=options, time_control=tc, rated=body.rated, bots_allowed=body.bots_allowed,
        max_players=body.max_players, status="open", created_ms=now, starts_ms=body.starts_at)
    await c.tournaments.create(event)
    return event.tournament_id


def _arena_settings(body: NewTournament) -> ArenaSettings:
    """An arena's rules from the request (ValueError: refused as 422)."""
    if body.ends_at is None:
        raise ApiError(422, "an arena needs its end (ends_at)")
    if not ARENA_MIN_MS <= body.ends_at - body.starts_at <= ARENA_MAX_MS:
        raise ApiError(422, "an arena's window (ends_at - starts_at) must last 1 second to 24 hours")
    if body.rounds is not None or body.bye_points is not None:
        raise ApiError(422, "an arena has no rounds or byes (its window is starts_at to ends_at)")
    return ArenaSettings(seats=body.players, start_ms=body.starts_at, end_ms=body.ends_at,
                         points=tuple(body.points or ()), streak_after=body.streak_after,
                         streak_factor=body.streak_factor,
                         bots_after_ms=None if body.bots_after_s is None else round(body.bots_after_s * 1000))


async def listing(c: Context, status: str | None, limit: int) -> list[TournamentOut]:
    """Events soonest first, of one status if given; 422 for a status or limit REST's query would refuse."""
    if status is not None and status not in STATUSES:
        raise ApiError(422, f"status must be one of {', '.join(STATUSES)}")
    if not 1 <= limit <= LIST_MAX:
        raise ApiError(422, f"limit must lie between 1 and {LIST_MAX}")
    events = await c.tournaments.listing(status, limit)
    counts = await c.tournaments.counts([e.tournament_id for e in events])
    return [_out(e, *counts[e.tournament_id]) for e in events]


async def describe(c: Context, event: Event) -> TournamentOut:
    return _out(event, *(await c.tournaments.counts([event.tournament_id]))[event.tournament_id])


async def standings(c: Context, event: Event) -> TournamentStandings:
    """The standings recomputed from the record, and every round paired so far with its tables."""
    if event.kind == "arena":
        arena = await c.tournaments.arena(event.tournament_id)
        tables = await c.tournaments.tables(event.tournament_id, ARENA_ROUND)
        seated = [RoundOut(round=ARENA_ROUND, byes=[], tables=[
            TableOut(number=t.number, players=t.players, game_id=t.game_id, places=t.places,
                     ended=t.ended_ms is not None) for t in tables])]
        return TournamentStandings(tournament_id=event.tournament_id, status=event.status,  # type: ignore[arg-type]
                                   round=ARENA_ROUND, rounds=seated if tables else [],
                                   standings=[StandingOut(**row) for row in standings_json(arena.standings())])
    state = await c.tournaments.swiss(event.tournament_id)
    tables = await c.tournaments.tables(event.tournament_id)
    rounds = [RoundOut(round=p.round, byes=list(p.byes), tables=[
        TableOut(number=t.number, players=t.players, game_id=t.game_id, places=t.places, ended=t.ended_ms is not None)
        for t in tables if t.round == p.round]) for p in state.pairings]
    return TournamentStandings(tournament_id=event.tournament_id, status=event.status,  # type: ignore[arg-type]
                               round=state.round, rounds=rounds,
                               standings=[StandingOut(**row) for row in standings_json(state.tally.ranked())])


async def join(c: Context, event: Event, player_id: str) -> Entry:
    """Enter the player, seeded by its rating (ordinal) in the event's title: the first round's order."""
    kind = await c.accounts.kind(player_id)
    seed = (await c.ratings.get(player_id, event.game)).ordinal
    try:
        entered = await c.tournaments.join(event.tournament_id, player_id, kind, seed, int(time.time() * 1000))
    except Refused as exc:
        raise refused(exc) from None
    return Entry(tournament_id=event.tournament_id, player_id=player_id, entered=entered)


async def withdraw(c: Context, event: Event, player_id: str) -> Entry:
    """No further tables for the player; its games of the event still running are resigned (the zombie plays)."""
    try:
        left = await c.tournaments.withdraw(event.tournament_id, player_id, int(time.time() * 1000))
    except Refused as exc:
        raise refused(exc) from None
    running = await c.tournaments.running_tables(event.tournament_id, player_id)
    resigned = await resign_games(c, player_id, running) if left else []
    return Entry(tournament_id=event.tournament_id, player_id=player_id, entered=left, resigned=resigned)


def resume_after(event_id: str | None, what: str = "Last-Event-ID") -> str:
    """Where a feed resumes: after `event_id` (one the feed sent), or from its first kept entry; 422 otherwise."""
    if event_id is None or not event_id.strip():
        return "0-0"
    if not _ENTRY_ID.match(event_id.strip()):
        raise ApiError(422, f"{what} must be an id this stream sent (like 1700000000000-0)")
    return event_id.strip()


@dataclass(frozen=True, slots=True)
class FeedItem:
    """One entry of an event's feed: its stream id, its kind (pairing, standings, end) and its JSON."""

    id: str
    kind: str
    data: str


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def feed(c: Context, tournament_id: str, after: str,
               gone: Callable[[], Awaitable[bool]]) -> AsyncIterator[FeedItem]:
    """The feed's entries after `after`, as they come, until `end` (included) or until `gone()` (awaited: the
    client left). Redis errors propagate: each surface says "unavailable, resume" its own way."""
    key = feed_key(c.keys.prefix, tournament_id)
    while not await gone():
        found = await c.redis.xread({key: after}, count=100, block=FEED_BLOCK_MS)
        for _key, entries in found or []:
            for entry_id, fields in entries:
                after = _text(entry_id)
                kind = _text(fields.get(b"type", fields.get("type")))
                yield FeedItem(after, kind, _text(fields.get(b"data", fields.get("data"))))
                if kind == "end":
                    return
