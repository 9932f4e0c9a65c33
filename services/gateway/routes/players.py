"""Every `/players...` route: creating a player, a player's public profile and archived games, and the
caller's own account (`/players/me...`: key rotation, ongoing games, the account stream).

The `/players/me...` routes come first so that `me` is never read as a player id.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request
from redis.exceptions import RedisError
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from services.accounts import revocation, seats
from services.accounts.revocation import KeyHold
from services.archive.repository import BadCursor
from services.common.stream_slots import Slot, holder_of_account
from services.gamestate.client import GameServiceError
from services.gateway.auth import CurrentAccount, CurrentPlayer
from services.gateway.context import Context, Ctx
from services.gateway.domain.account_deletion import delete_account
from services.gateway.domain.address_quota import client_address
from services.gateway.domain.history import history_page
from services.gateway.domain.my_games import my_games as my_games_page
from services.gateway.http.digits import account_resume, announcement_id
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.http.streams import open_stream
from services.gateway.models.accounts import (
    AccountDeleted,
    AccountDeletion,
    History,
    KeyRotated,
    KeysRevoked,
    Me,
    MyGames,
)
from services.gateway.models.games import NewPlayer, PlayerCreated, PlayerOut, RatingOut

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
#: the OpenAPI tag of the caller's own account routes
ACCOUNT = ["accounts"]

_ID = re.compile(r"^[0-9a-f]{32}$")

#: The paged listings' parameters (a player's history, my games): one shape for both, as their `next_cursor`
PageCursor = Annotated[str | None, Query(max_length=200, description="next_cursor of the previous page")]
PageLimit = Annotated[int, Query(ge=1, le=100, description="Games per page")]
BAD_CURSOR = "cursor: not a cursor of this listing"



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
    "working for `GATEWAY_API_KEY_GRACE_S` seconds (24 h by default) so every client can switch, then stops, and "
    "every stream it opened closes within about half a second. An "
    "account holds at most `GATEWAY_API_KEYS_MAX` (5) working keys: one more rotation is 409 `too_many_keys`.",
)
async def rotate_key(me: CurrentAccount, c: Ctx) -> KeyRotated:
    return KeyRotated(api_key=await c.accounts.rotate(me.player_id, me.api_key),
                      previous_key_valid_s=c.settings.api_key_grace_s)


@router.post(
    "/players/me/keys/revoke-others", tags=ACCOUNT,
    response_model=KeysRevoked, summary="Stop every other API key of the caller now",
    description="Bearer: the account's current API key (403 `key_retired` otherwise). Every other key of the account, "
    "including those in their grace period, stops working at once: every stream they opened (the account stream, "
    "game streams, gRPC WatchGame) closes within about half a second. What to do when a key leaked: rotate with "
    "the current key, then revoke the others.",
)
async def revoke_other_keys(me: CurrentAccount, c: Ctx) -> KeysRevoked:
    return KeysRevoked(revoked=await c.accounts.revoke_others(me.player_id, me.api_key))


@router.delete(
    "/players/me", tags=ACCOUNT, response_model=AccountDeleted, summary="Delete the caller's account",
    description="Bearer: the account's current API key (403 `key_retired` otherwise, as for revoke-others); the "
    "body repeats the account's name (`confirm_name`, 422 otherwise): it cannot be undone. Every key of the account "
    "stops at once (a second deletion is 401), and every stream they opened (the account stream, game streams, gRPC "
    "WatchGame) closes within about half a second, with nothing written after the deletion; then its queued tickets "
    "are cancelled, its pending challenges closed, and each seat it holds in an active game resigned (a bot plays "
    "it out). Its finished games and ratings stay, under the name \"deleted player\"; its old name is free.",
)
async def delete_me(body: AccountDeletion, me: CurrentAccount, c: Ctx) -> AccountDeleted:
    return await delete_account(c, me.player_id, me.api_key, body.confirm_name)


@router.get(
    "/players/me/games", tags=ACCOUNT,
    response_model=MyGames, summary="My games, a page at a time: those I play, then those ended in the last day",
    description="Every game the account holds a seat in, however it began (created with `POST /v1/games`, a "
    "challenge, matchmaking), listed from the moment it is created (read your writes), `limit` at a time (20 by "
    "default, at most 100); `next_cursor` continues, as in the history. The games it still plays come first, newest "
    "first, then those that ended in the last 24 hours, the last ended first (older ones: `GET /v1/players/{id}/games`"
    "). Each page is read live from the game-state service, so a game that just ended is listed as `finished` (or "
    "`aborted`) at once, and `my_turn` says where one of my seats must decide; a game that ends while you page moves "
    "to the ended ones, so a later page may list it again.",
)
async def my_games(player_id: CurrentPlayer, c: Ctx, cursor: PageCursor = None, limit: PageLimit = 20) -> MyGames:
    try:
        return await my_games_page(c, player_id, cursor, limit)
    except BadCursor:
        raise ApiError(422, BAD_CURSOR) from None


@router.get(
    "/players/me/events", tags=ACCOUNT,
    summary="The account stream (Server-Sent Events): challenges, game starts, your turns, game ends",
    response_description=(
        "text/event-stream, one event per entry, `id` = its stream id. A new connection starts now: it first sends "
        "a `game_start` (with `ongoing` true) for every active game the account holds a seat in, as Lichess's "
        "`gameStart`, each with an id of its own (`<newest entry id>:<game_id>:<seat>`), then what happens from then "
        "on. `replay=true` sends the kept history instead (the last `GATEWAY_ACCOUNT_EVENTS_MAXLEN` entries of at "
        "most `GATEWAY_ACCOUNT_EVENTS_KEEP_S`); `Last-Event-ID` resumes after the entry it names (after an "
        "announcement, the ongoing games are announced again under the same ids). Events: `challenge` "
        "`{challenge}`; `challenge_closed` `{challenge_id, status, "
        "reason}`; `game_start` `{game_id, game, seat, challenge_id | ticket_id, token, token_delivered, ongoing}` "
        "(the account's API key acts for the seat; a challenger's seat token is in the first delivery only, then "
        "`token` is null); `your_turn` `{game_id, seat, version, deadline}` (only to the seat's owner); `game_end` "
        "`{game_id, seat, status, scores, winners}`; `webhook_disabled` `{webhook_id, url, reason, failing_since_ms}` "
        "(a webhook whose deliveries kept failing was disabled: docs/webhooks.md). A stream whose API key stops "
        "working sends an `error` event and closes."
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
        resumed = account_resume(last_event_id.strip())
        if resumed is None:
            raise ApiError(422, "Last-Event-ID must be an id this stream sent (like 1700000000000-0)")
        after, announce = resumed  # after an announcement: the ongoing games again, under the same ids
    elif replay:
        after = "0-0"
    else:
        after, announce = await c.events.last_id(player_id), True
    slot = open_stream(c.streams, request, holder_of_account(player_id))  # 429 beyond GATEWAY_STREAM_LIMIT_*
    return EventSourceResponse(_stream(c, player_id, key, after, slot, announce), ping=c.settings.sse_ping_s,
                               background=BackgroundTask(slot.release))


async def _ongoing(c: Context, player_id: str, entry_id: str) -> list[ServerSentEvent]:
    """A `game_start` per seat of every active game of the account (what a stream that starts now opens with),
    each with an id of its own naming the newest entry (`announcement_id`), so a resume continues after that entry
    and a client that drops repeated ids keeps every seat. A seat token still waiting for its delivery (a
    challenger's) is delivered here, so it is never lost by starting now."""
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
            out.append(ServerSentEvent(data=json.dumps(data), event="game_start",
                                       id=announcement_id(entry_id, h.game_id, seat)))
    return out


def _error(code: str, message: str) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps({"error": {"code": code, "message": message, "rule": None}}),
                           event="error")


async def _stream(c: Context, player_id: str, key: str, after: str, slot: Slot,
                  announce: bool) -> AsyncIterator[ServerSentEvent]:
    # one shared Redis reader per account; the key re-checked before each batch and at least every
    # revocation.CHECK_S: the stream ends once the key stops working (the one mechanism of every key's stream)
    batches = revocation.until_revoked(c.account_readers.follow(player_id, after),
                                       revocation.checker(c.redis, c.keys, c.accounts_db, KeyHold(key, player_id)))
    # the account's matchmaking tickets live while it listens (docs/decisions/accounts.md): renewed every third of their
    # TTL (a batch, if only an empty one, comes every ACCOUNT_READ_BLOCK_MS), so a ticket need not be polled; its match
    # arrives here
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
    except revocation.Ended as exc:  # the key stopped working (or could not be checked)
        yield _error(exc.code, str(exc))
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


@router.get(
    "/players/{player_id}/games", response_model=History, summary="A player's ended games, newest finished first",
    description="Every game the player created or was seated in that has ended (`finished` or `aborted`), the last "
    "ended first, `limit` at a time (20 by default, at most 100); `next_cursor` continues. A game is listed as soon "
    "as it ends: the archive takes it `ARCHIVE_AFTER_S` (60 s) after its end, and until then it is read from the "
    "live store, listed as the archive will list it.",
)
async def player_games(
    player_id: str,
    c: Ctx,
    game: str | None = Query(None, max_length=64, description="Only games of this title"),
    status: Literal["finished", "aborted"] | None = Query(None, description="Only games that ended this way"),
    cursor: PageCursor = None,
    limit: PageLimit = 20,
) -> History:
    if not _ID.match(player_id) or await c.players.name(player_id) is None:
        raise ApiError(404, "no such player")
    try:
        return await history_page(c, player_id, game or "", status or "", cursor, limit)
    except BadCursor:
        raise ApiError(422, BAD_CURSOR) from None
