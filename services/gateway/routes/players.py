"""Every `/players...` route: creating a player, a player's public profile and archived games, and the
caller's own account (`/players/me...`: key rotation, ongoing games, the account stream).

The `/players/me...` routes come first so that `me` is never read as a player id.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from typing import Literal

from fastapi import APIRouter, Header, Query, Request
from redis.exceptions import RedisError
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from services.accounts import seats
from services.accounts.seats import Held
from services.archive.repository import BadCursor
from services.common.standings import shown_scores, shown_winners
from services.common.stream_slots import Slot
from services.gamestate.client import GameServiceError
from services.gateway.auth import CurrentAccount, CurrentPlayer
from services.gateway.context import Context, Ctx
from services.gateway.domain.address_quota import client_address
from services.gateway.http.digits import stream_id
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.http.streams import open_stream
from services.gateway.models.accounts import History, HistoryGame, KeyRotated, KeysRevoked, Me, MyGame, MyGames
from services.gateway.models.games import NewPlayer, PlayerCreated, PlayerOut, RatingOut

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
#: the OpenAPI tag of the caller's own account routes
ACCOUNT = ["accounts"]

_ID = re.compile(r"^[0-9a-f]{32}$")

#: Longest wait of one stream read (under the Redis client's 5 s socket timeout); the API key is checked again
#: after each, so a retired key ends its stream within about a second.
READ_BLOCK_MS = 1000



@router.get("/players/me", tags=ACCOUNT, response_model=Me,
            summary="The caller's account: name, kind and ratings")
async def get_me(player_id: CurrentPlayer, c: Ctx) -> Me:
    ratings = await c.ratings.all_games(player_id)
    return Me(player_id=player_id, name=await c.players.name(player_id) or "", kind=await c.accounts.kind(player_id),
              ratings={g: RatingOut(**r.to_json()) for g, r in ratings.items()},
              created_ms=await c.accounts.created_ms(player_id))


@router.post(
    "/players/me/keys", tags=ACCOUNT,
    status_code=201, response_model=KeyRotated, summary="Rotate the caller's API key",
    description="Bearer: the account's current API key (a key in its grace period is refused, 403 `key_retired`, "
    "so a leaked key cannot outlive the rotation that retired it). Answers a new API key; the key it replaces keeps "
    "working for `GATEWAY_API_KEY_GRACE_S` seconds (24 h by default) so every client can switch, then stops. An "
    "account holds at most `GATEWAY_API_KEYS_MAX` (5) working keys: one more rotation is 409 `too_many_keys`.",
)
async def rotate_key(me: CurrentAccount, c: Ctx) -> KeyRotated:
    return KeyRotated(api_key=await c.accounts.rotate(me.player_id, me.api_key),
                      previous_key_valid_s=c.settings.api_key_grace_s)


@router.post(
    "/players/me/keys/revoke-others", tags=ACCOUNT,
    response_model=KeysRevoked, summary="Stop every other API key of the caller now",
    description="Bearer: the account's current API key (403 `key_retired` otherwise). Every other key of the account, "
    "including those in their grace period, stops working at once (their open account streams close within about "
    "a second). What to do when a key leaked: rotate with the current key, then revoke the others.",
)
async def revoke_other_keys(me: CurrentAccount, c: Ctx) -> KeysRevoked:
    return KeysRevoked(revoked=await c.accounts.revoke_others(me.player_id, me.api_key))


@router.get(
    "/players/me/games", tags=ACCOUNT,
    response_model=MyGames, summary="My games: the active ones (my turn first), then those ended in the last day",
    description="Every game the account holds a seat in, however it began (created with `POST /v1/games`, a "
    "challenge, matchmaking), listed from the moment it is created (read your writes). Each is read live from the "
    "game-state service, so a game that just ended is listed as `finished` (or `aborted`) at once; ended games stay "
    "listed for 24 hours (older ones: `GET /v1/players/{id}/games`).",
)
async def my_games(player_id: CurrentPlayer, c: Ctx) -> MyGames:
    async def read(h: Held) -> MyGame | None:
        try:
            g = await c.gamestate.get_game(h.game_id)
        except GameServiceError as exc:
            if exc.code.name == "NOT_FOUND":
                return None
            raise
        if g.status != "active" and h.ended is None:
            await c.settle_soon(g.game_id, g, announce=True)  # announced and listed as ended now (#37)
        mine = [s for s in h.seats if s in g.to_act] if g.status == "active" else []
        seat = mine[0] if mine else h.seats[0]
        ended = g.status == "finished"
        return MyGame(game_id=h.game_id, game=h.game, seat=seat, seats=h.seats, status=g.status, my_turn=bool(mine),
                      version=g.version, to_act=g.to_act, deadline=g.deadlines.get(seat), since_ms=h.since_ms,
                      scores=shown_scores(g.status, g.scores) if ended else None,
                      winners=shown_winners(g.status, g.winners) if ended else None)

    held = await seats.held_games(c.redis, c.keys, player_id)
    games = [g for g in await asyncio.gather(*(read(h) for h in held)) if g is not None]
    games.sort(key=lambda g: (g.status != "active", not g.my_turn, g.deadline or 2**63, -g.since_ms, g.game_id))
    return MyGames(games=games)


@router.get(
    "/players/me/events", tags=ACCOUNT,
    summary="The account stream (Server-Sent Events): challenges, game starts, your turns, game ends",
    response_description=(
        "text/event-stream, one event per entry, `id` = its stream id. A new connection starts now: it first sends "
        "a `game_start` (with `ongoing` true) for every active game the account holds a seat in, as Lichess's "
        "`gameStart`, then what happens from then on. `replay=true` sends the kept history instead (the last "
        "`GATEWAY_ACCOUNT_EVENTS_MAXLEN` entries of at most `GATEWAY_ACCOUNT_EVENTS_KEEP_S`); `Last-Event-ID` resumes "
        "after the entry it names. Events: `challenge` `{challenge}`; `challenge_closed` `{challenge_id, status, "
        "reason}`; `game_start` `{game_id, game, seat, challenge_id | ticket_id, token, token_delivered, ongoing}` "
        "(the account's API key acts for the seat; a challenger's seat token is in the first delivery only, then "
        "`token` is null); `your_turn` `{game_id, seat, version, deadline}` (only to the seat's owner); `game_end` "
        "`{game_id, seat, status, scores, winners}`. A stream whose API key stops working sends an `error` event "
        "and closes."
    ),
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def account_events(
    request: Request, me: CurrentAccount, c: Ctx, last_event_id: str | None = Header(None, alias="Last-Event-ID"),
    replay: bool = Query(False, description="Send the kept history first (default: start now, announcing the "
                                            "ongoing games); ignored with Last-Event-ID"),
) -> EventSourceResponse:
    player_id, key = me.player_id, me.api_key
    announce = False
    if last_event_id is not None and last_event_id.strip():
        resumed = stream_id(last_event_id.strip())
        if resumed is None:
            raise ApiError(422, "Last-Event-ID must be an id this stream sent (like 1700000000000-0)")
        after = resumed
    elif replay:
        after = "0-0"
    else:
        after, announce = await c.events.last_id(player_id), True
    slot = open_stream(c.streams, request, key)  # 429 beyond GATEWAY_STREAM_LIMIT_IP / _TOKEN
    return EventSourceResponse(_stream(c, player_id, key, after, slot, announce), ping=c.settings.sse_ping_s,
                               background=BackgroundTask(slot.release))


async def _ongoing(c: Context, player_id: str, entry_id: str) -> list[ServerSentEvent]:
    """A `game_start` per seat of every active game of the account (what a stream that starts now opens with),
    each with the id of the newest entry so a resume continues after it. A seat token still waiting for its
    delivery (a challenger's) is delivered here, so it is never lost by starting now."""
    out = []
    for h in sorted(await seats.held_games(c.redis, c.keys, player_id), key=lambda h: h.since_ms):
        if h.ended is not None:
            continue
        try:
            g = await c.gamestate.get_game(h.game_id)
        except GameServiceError:
            continue  # gone: nothing to announce
        if g.status != "active":
            continue
        token = await c.events.take_handoff(player_id, h.game_id)
        for seat in h.seats:
            data = {"game_id": h.game_id, "game": h.game, "seat": seat, "token": token if seat == h.seats[0] else None,
                    "token_delivered": True, "ongoing": True}
            if data["token"] is None:
                data["note"] = "an ongoing game: the account's API key acts for this seat"
            out.append(ServerSentEvent(data=json.dumps(data), event="game_start", id=entry_id))
    return out


def _error(code: str, message: str) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps({"error": {"code": code, "message": message, "rule": None}}),
                           event="error")


async def _stream(c: Context, player_id: str, key: str, after: str, slot: Slot,
                  announce: bool) -> AsyncIterator[ServerSentEvent]:
    batches = c.account_readers.follow(player_id, after)  # one shared Redis reader per account
    # the account's matchmaking tickets live while it listens (#37): renewed every third of their TTL (a batch, if
    # only an empty one, comes every ACCOUNT_READ_BLOCK_MS), so a ticket need not be polled; its match arrives here
    renew_every = c.settings.ticket_ttl_s / 3
    renewed = time.monotonic()
    try:
        await c.tickets.keep_alive(player_id)
        if announce:
            for event in await _ongoing(c, player_id, after):
                yield event
        async for batch in batches:
            if time.monotonic() - renewed >= renew_every:
                renewed = time.monotonic()
                await c.tickets.keep_alive(player_id)
            for entry_id, kind, data in batch:
                yield ServerSentEvent(data=json.dumps(await c.events.deliver(player_id, kind, data)), event=kind,
                                      id=entry_id)
            if await c.players.authenticate(key) != player_id:
                yield _error("unauthenticated", "this API key no longer works")
                return
    except RedisError:
        yield _error("unavailable", "storage is unavailable; reconnect with Last-Event-ID")
    finally:
        await batches.aclose()  # leaves the account's reader now
        slot.release()  # at once, whichever way the stream ends (the background task is for one never started)


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


@router.get("/players/{player_id}/games", response_model=History, summary="A player's archived games, newest first")
async def player_games(
    player_id: str,
    c: Ctx,
    game: str | None = Query(None, max_length=64, description="Only games of this title"),
    status: Literal["finished", "aborted"] | None = Query(None, description="Only games that ended this way"),
    cursor: str | None = Query(None, max_length=200, description="next_cursor of the previous page"),
    limit: int = Query(20, ge=1, le=100),
) -> History:
    if not _ID.match(player_id) or await c.players.name(player_id) is None:
        raise ApiError(404, "no such player")
    try:
        page = await c.archive.history(player_id, game=game or "", status=status or "", cursor=cursor, limit=limit)
    except BadCursor:
        raise ApiError(422, "cursor: not a cursor of this listing") from None
    games = [
        HistoryGame(
            game_id=g.game_id, game=g.game, status=g.status, players=g.players,
            seats=[s for s, p in sorted(g.seat_players.items()) if p == player_id], owner=g.owner == player_id,
            version=g.version, scores=shown_scores(g.status, g.scores), winners=shown_winners(g.status, g.winners),
            rated=g.rated, created_ms=g.created_ms, finished_ms=g.finished_ms, time_control=g.time_control,
        )
        for g in page.games
    ]
    return History(player_id=player_id, games=games, next_cursor=page.next_cursor)
