"""Game endpoints: catalog, create, read, legal actions, submit, events (SSE), log; resign, abort, new token.

Each one is a thin translation to one game-state service call; the service
decides everything about the game (the gateway holds no rules).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any, Literal

from fastapi import APIRouter, Header, Query, Request, Response
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask

from services.accounts.access import bot_accounts
from services.accounts.revocation import Ended
from services.common.standings import shown_scores, shown_winners
from services.common.stream_slots import Slot
from services.gamestate.client import GameServiceError, GameState
from services.gamestate.updates import ENDED
from services.gateway.auth import Bearer, SeatChoice, SeatToken
from services.gateway.context import Context, Ctx
from services.gateway.domain import clock_floor
from services.gateway.domain.challenge_flow import seat_game
from services.gateway.domain.seat_access import Viewer, acting_seat, read_game, rotated, watch_game
from services.gateway.http.digits import ascii_int
from services.gateway.http.errors import ERROR_RESPONSES, ApiError, service_error
from services.gateway.http.streams import open_stream, stream_holder
from services.gateway.models.game_record import game_out, seated_accounts, summary_out
from services.gateway.models.games import (
    Catalog,
    CreatedGame,
    CreateGame,
    GameList,
    GameLog,
    GameOut,
    LegalActions,
    NewToken,
    Seat,
    SubmitAction,
    Submitted,
    TakeBack,
    Version,
    ladders_of,
)

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,128}$")


def _game_id(game_id: str) -> str:
    if not _GAME_ID.match(game_id):
        raise ApiError(404, f"no game {game_id[:64]!r}")
    return game_id


@router.get("/catalog", response_model=Catalog, summary="The games this platform serves and the bot levels")
async def catalog(c: Ctx) -> Catalog:
    games, levels, details = await c.gamestate.catalog_details()
    return Catalog(games=games, bot_levels=levels, bot_level_details=details, ladders=ladders_of(games, details))


@router.post(
    "/games", status_code=201, response_model=CreatedGame, summary="Create a game (with a player's API key)",
    description="Bearer: a player's API key (`POST /v1/players`). The player owns the game, and it counts against "
    "the player's quotas: active games at once, bot seats across them, creations per hour (429 `quota_exceeded` "
    "names the one reached). The account holds the first human seat, or the seats `account_seats` names (every "
    "human seat for hot-seat, asked explicitly): its API key acts for them on every seat route (`?seat=N` chooses "
    "where it holds several), and the game is on its account stream (`game_start`) and in "
    "`GET /v1/players/me/games` at once. The answer holds each human seat's token, shown only here: the other "
    "seats' tokens are for the guests who play them, and the account's key reads and acts for none of those.",
)
async def create_game(body: CreateGame, api_key: Bearer, c: Ctx) -> CreatedGame:
    owner = await _creator(api_key, c)
    bots: dict[int, str] = {}
    for key, level in body.bots.items():
        seat = ascii_int(key)
        if seat is None or seat >= body.players:
            raise ApiError(422, f"bots: {key[:20]!r} is not a seat of a {body.players}-player game")
        bots[seat] = level
    if body.time_control is not None and body.turn_seconds is not None:
        raise ApiError(422, "give either turn_seconds (a shorthand) or time_control, not both")
    control = body.time_control.model_dump() if body.time_control is not None else None
    clock_floor.check(c.settings.min_seconds_per_decision, control, body.turn_seconds)
    held = _account_seats(body, bots) if owner else []
    created = await c.admin.create_game(
        body.game, body.players, seed=body.seed, options=body.options, bots=bots,
        turn_seconds=body.turn_seconds or 0.0, owner=owner, time_control=control,
        seat_players={s: owner for s in held},
    )
    seats = sorted(created.seats, key=lambda s: s.seat)
    if held:
        await seat_game(c, created.game_id, body.game, {s: owner for s in held},
                        {s.seat: s.token for s in seats if s.token}, "the seat token was in the create answer")
    return CreatedGame(game_id=created.game_id, seats=[Seat(seat=s.seat, token=s.token, bot=s.bot) for s in seats])


def _account_seats(body: CreateGame, bots: dict[int, str]) -> list[int]:
    """The human seats the creating account holds (docs/decisions/accounts.md): `account_seats`, else the first human
    seat alone. Hot-seat (every human seat) is asked for by naming them: a seat whose token is handed to a guest must
    not be the creator's too, or the creator's key would read the guest's hand."""
    human = [s for s in range(body.players) if s not in bots]
    if body.account_seats is None:
        return human[:1]
    chosen = sorted(set(body.account_seats))
    wrong = [s for s in chosen if s not in human]
    if wrong:
        raise ApiError(422, f"account_seats: {wrong} are not human seats of this {body.players}-player game")
    return chosen


async def _creator(api_key: str | None, c: Context) -> str:
    """The owner of a new game: the API key's player, or "" for an anonymous game where development allows it."""
    if api_key is None:
        if c.settings.allow_anonymous_create:
            return ""
        raise ApiError(401, "creating a game needs a player's API key (Authorization: Bearer <api key>); "
                            "POST /v1/players makes one")
    return await c.player(api_key)


@router.get("/games", response_model=GameList, summary="Games by status and title, newest first",
            description="What gRPC ListGames answers: active games (to watch as a spectator), finished and aborted "
            "ones (finished games come from the archive once they leave Redis). No credential needed; every game's "
            "public view is public.")
async def list_games(
    c: Ctx,
    status: Literal["", "active", "finished", "aborted"] = Query("", description="'' = any"),
    game: str = Query("", max_length=64, description="A title's name (see /v1/catalog); '' = any"),
    limit: int = Query(50, ge=1, le=500),
) -> GameList:
    found = await c.gamestate.list_games(status, game, limit)
    return GameList(games=[summary_out(g) for g in found])


@router.get("/games/{game_id}", response_model=GameOut, summary="A game as a seat (Bearer) or a spectator sees it")
async def get_game(game_id: str, token: Bearer, c: Ctx, seat: SeatChoice = None) -> GameOut:
    g, _viewer = await read_game(c, _game_id(game_id), token, seat)
    return game_out(g, await bot_accounts(c.accounts_db, seated_accounts(g)))


class JsonBytes(Response):
    """JSON already encoded by `legal_actions_answer` / `submit_answer`: FastAPI returns it as is."""

    media_type = "application/json"


async def legal_actions_answer(c: Context, game_id: str, token: str, seat: int | None = None) -> bytes:
    """The body of `GET /v1/games/{id}/actions` (shape `LegalActions`), built around the service's action
    JSON texts without parsing them: the FastAPI route and the hot path (hot.py) both answer with it. `token`: a
    seat token, or an API key acting for its account's seat (`seat` chooses one of several)."""
    acting = await acting_seat(c, _game_id(game_id), token, seat)
    r = await c.gamestate.legal_actions_reply(game_id, acting.token)
    return b'{"version":%d,"seat":%d,"actions":[%s]}' % (r.version, r.seat, ",".join(r.actions_json).encode())


async def submit_answer(
    c: Context, game_id: str, token: str, action: dict[str, Any], expected_version: int, idempotency_key: str | None,
    seat: int | None = None,
) -> bytes:
    """Submit for the token's seat (or the API key's account seat); the body of the answer (shape `Submitted`).
    Shared like the above."""
    if idempotency_key is not None and not _IDEMPOTENCY_KEY.match(idempotency_key):
        raise ApiError(422, "Idempotency-Key must be 1-128 visible ASCII characters")
    acting = await acting_seat(c, _game_id(game_id), token, seat)
    try:
        r = await c.gamestate.submit_reply(game_id, acting.token, action, expected_version, idempotency_key)
    except GameServiceError as exc:
        c.metrics.actions.labels(exc.reason or exc.code.name.lower()).inc()
        raise
    c.metrics.actions.labels("replayed" if r.replayed else "accepted").inc()
    return _submitted(r)


def _submitted(r: Any) -> bytes:
    """The body (shape `Submitted`) of the service's SubmitActionResponse, its events passed on as JSON text."""
    return b'{"version":%d,"events":[%s],"status":%s,"to_act":[%s],"replayed":%s}' % (
        r.version, ",".join(r.events_json).encode(), json.dumps(r.status).encode(),
        ",".join(map(str, r.to_act)).encode(), b"true" if r.replayed else b"false",
    )


@router.get("/games/{game_id}/actions", response_model=LegalActions, summary="The legal actions of your seat")
async def legal_actions(game_id: str, token: SeatToken, c: Ctx, seat: SeatChoice = None) -> Response:
    return JsonBytes(await legal_actions_answer(c, game_id, token, seat))


@router.post("/games/{game_id}/actions", response_model=Submitted, summary="Submit one action for your seat")
async def submit_action(
    game_id: str,
    body: SubmitAction,
    token: SeatToken,
    c: Ctx,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key", description="Retries replay the first outcome"),
    seat: SeatChoice = None,
) -> Response:
    return JsonBytes(await submit_answer(c, game_id, token, body.action, body.expected_version, idempotency_key, seat))


@router.post(
    "/games/{game_id}/take-back", response_model=Submitted, summary="Take back your seat's last decision",
    description="Bearer: the seat token (or an API key acting for its seat). As on Board Game Arena: the game goes "
    "back to the state before your last decision, as a new version (`expected_version`: the current one) whose "
    "stream entry has `kind` `take_back` and the one event `taken_back` (`seat`, `restores`: the version whose state "
    "is back). The game decides which decisions may be: within your turn, until anything hidden is revealed (a die, "
    "a card drawn, sealed bids opened) or the decision passes to another seat; and only while nothing else happened "
    "since. `GET /v1/games/{id}` says `take_back: true` when it may; call it again to go further back. Your turn "
    "clock goes back too. 409 `take_back_not_allowed` when nothing may be taken back, 409 `stale_version` on an "
    "old version; an Idempotency-Key replays the first outcome as for actions.",
)
async def take_back(
    game_id: str,
    body: TakeBack,
    token: SeatToken,
    c: Ctx,
    idempotency_key: str | None = Header(None, alias="Idempotency-Key", description="Retries replay the first outcome"),
    seat: SeatChoice = None,
) -> Response:
    if idempotency_key is not None and not _IDEMPOTENCY_KEY.match(idempotency_key):
        raise ApiError(422, "Idempotency-Key must be 1-128 visible ASCII characters")
    acting = await acting_seat(c, _game_id(game_id), token, seat)
    r = await c.gamestate.take_back_reply(game_id, acting.token, body.expected_version, idempotency_key)
    return JsonBytes(_submitted(r))


@router.post(
    "/games/{game_id}/resign", response_model=Version, summary="Resign your seat (a bot plays it out)",
    description="Bearer: the seat token. The seat's remaining decisions go to the zombie bot (the service's "
    "`ZOMBIE_BOT_LEVEL`, default `greedy`), the token is revoked (its event streams end) and every seat sees a "
    "`seat_resigned` event. In a rated game the player ranks last. 409 `game_over` once the game has ended.",
)
async def resign(game_id: str, token: SeatToken, c: Ctx, seat: SeatChoice = None) -> Version:
    acting = await acting_seat(c, _game_id(game_id), token, seat)
    version = await c.gamestate.resign(game_id, acting.token)
    return Version(version=version)


@router.post(
    "/games/{game_id}/abort", response_model=Version, summary="Abort the game (before everyone has decided)",
    description="Bearer: a seat token. The game ends with status `aborted`, unrated, and every seat sees a "
    "`game_aborted` event. Allowed while some human seat has not yet made a decision of its own (a turn clock's "
    "default is not one) and no seat has resigned or been abandoned; otherwise 409 `abort_not_allowed` (409 "
    "`game_over` once the game has ended).",
)
async def abort(game_id: str, token: SeatToken, c: Ctx, seat: SeatChoice = None) -> Version:
    acting = await acting_seat(c, _game_id(game_id), token, seat)
    version = await c.gamestate.abort(game_id, acting.token)
    return Version(version=version)


@router.post(
    "/games/{game_id}/token", status_code=201, response_model=NewToken, summary="Rotate your seat token",
    description="Bearer: the seat token, which is revoked (its event streams end within a second); the answer "
    "holds the seat's new token, shown only here. Rotated with the seat token, the seat is the new token's alone: "
    "an account that held it (the game's creator, hot-seat) no longer does, and that account's streams of the seat "
    "end too. Rotated with the account's API key (`?seat=N` where it holds several), the account keeps the seat.",
)
async def rotate_token(game_id: str, token: SeatToken, c: Ctx, seat: SeatChoice = None) -> NewToken:
    acting = await acting_seat(c, _game_id(game_id), token, seat)
    held = acting.seat if acting.seat is not None else (await c.gamestate.get_game(game_id, acting.token)).seat
    new = await c.gamestate.rotate_token(game_id, acting.token)
    if held is not None:  # made with the key: the account keeps the seat; with the seat token: the seat is its alone
        await rotated(c, game_id, held, new, acting.player_id)
    return NewToken(token=new)


@router.get("/games/{game_id}/log", response_model=GameLog, summary="Seed and actions of a finished game")
async def game_log(game_id: str, c: Ctx) -> GameLog:
    log = await c.gamestate.get_log(_game_id(game_id))
    return GameLog(game_id=game_id, game=log.game, players=log.players, options=log.options, seed=log.seed,
                   actions=log.entries, version=log.version, final_digest=log.final_digest,
                   scores=shown_scores(log.status, log.scores), winners=shown_winners(log.status, log.winners),
                   status=log.status)


def _resume_from(after: int | None, last_event_id: str | None) -> int | None:
    if last_event_id is not None and last_event_id.strip():
        version = ascii_int(last_event_id.strip())
        if version is None:
            raise ApiError(422, "Last-Event-ID must be a version number")
        return version
    return after


@router.get(
    "/games/{game_id}/events",
    summary="Server-Sent Events of a game, redacted for your seat (or a spectator)",
    response_description=(
        "text/event-stream: one `message` per engine event (id = version, data = the event JSON plus "
        "`version`), then one `state` event per version (status, to_act, scores, winners); `end` when "
        "the game is over, then the stream closes. On a failure an `error` event (the error body), then the "
        "stream closes: so it does within a second once the seat token it was opened with is rotated or its "
        "seat resigns, and once the API key it was opened with stops working (a rotation past its grace, "
        "`revoke-others`) or its account no longer holds the seat (a guest rotated the seat's token)."
    ),
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def game_events(
    game_id: str,
    request: Request,
    token: Bearer,
    c: Ctx,
    after: int | None = Query(None, ge=0, le=2**62, description="Send the versions after this one"),
    last_event_id: str | None = Header(None, alias="Last-Event-ID"),
    seat: SeatChoice = None,
) -> EventSourceResponse:
    start = _resume_from(after, last_event_id)
    g, viewer = await read_game(c, _game_id(game_id), token, seat)  # a bad token or unknown game: an error
    slot = open_stream(c.streams, request, await stream_holder(c, token))  # 429 beyond GATEWAY_STREAM_LIMIT_*
    if g.status != "active" and start is not None and start >= g.version:
        events = _ended(c, g, slot)  # nothing after the last version: the terminal event, not an empty body
    else:
        events = _stream(c, game_id, viewer, start, slot)  # a key's stream ends with the key (seat_access)
    return EventSourceResponse(events, ping=c.settings.sse_ping_s, background=BackgroundTask(slot.release))


async def _ended(c: Context, g: GameState, slot: Slot) -> AsyncIterator[ServerSentEvent]:
    """The stream of an ended game asked for what follows its last version: its `end` event at once, then the
    stream closes (so a client resuming after the end stops instead of reconnecting to an empty body)."""
    try:
        state = {"version": g.version, "kind": ENDED, "actor": None, "status": g.status, "to_act": [],
                 "scores": shown_scores(g.status, g.scores), "winners": shown_winners(g.status, g.winners)}
        yield ServerSentEvent(data=json.dumps(state), event="end", id=str(g.version))
    finally:
        slot.release()


async def _stream(c: Context, game_id: str, viewer: Viewer, after: int | None,
                  slot: Slot) -> AsyncIterator[ServerSentEvent]:
    try:
        async with aclosing(watch_game(c, game_id, viewer, after)) as updates:  # ends the call with the stream
            async for item in updates:
                vid = str(item.version)
                for event in item.events:
                    yield ServerSentEvent(data=json.dumps({**event, "version": item.version}), id=vid)
                finished = item.status == "finished"
                state = {"version": item.version, "kind": item.kind, "actor": item.actor, "status": item.status,
                         "to_act": item.to_act, "scores": item.scores if finished else None,
                         "winners": shown_winners(item.status, item.winners)}
                yield ServerSentEvent(data=json.dumps(state), event="state", id=vid)
                if item.status != "active":  # finished, or aborted
                    yield ServerSentEvent(data=json.dumps(state), event="end", id=vid)
                    return
    except GameServiceError as exc:
        err = service_error(exc)
        yield ServerSentEvent(
            data=json.dumps({"error": {"code": err.code, "message": err.message, "rule": err.rule}}), event="error"
        )
    except Ended as exc:  # the API key it was opened with stopped, or its account no longer holds the seat
        yield ServerSentEvent(
            data=json.dumps({"error": {"code": exc.code, "message": str(exc), "rule": None}}), event="error"
        )
    finally:
        slot.release()  # at once, whichever way the stream ends (the background task is for one never started)
