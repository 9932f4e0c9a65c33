"""The typed client of the game-state gRPC API (async: the gateway, the matchmaker); bot workers, scripts and
tests use its generated blocking twin, `client_sync.py`.

Both speak plain Python values (dicts for JSON) and raise `GameServiceError`
carrying the status code, the service's reason, message and rule id.
Calls are balanced round-robin over every address the target resolves to (a
`dns:///` name of several replicas, e.g. a headless Kubernetes Service).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import orjson
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.credentials import call_metadata
from services.gamestate.pb import pb2, pb2_grpc
from services.gamestate.pb_records import pb_record
from services.gamestate.updates import HEARTBEAT, Update
from services.gamestate.wire import dumps


def reply_json(text: str) -> Any:
    """A JSON text of the service's replies: orjson (several times faster: a client reads every legal action and
    event), the stdlib for what orjson refuses (integers past 64 bits, lone surrogates), so the values are the same."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class GameServiceError(Exception):
    """A refused call: `code` (grpc.StatusCode), `reason`, `message`, `rule`."""

    def __init__(
        self, code: grpc.StatusCode, reason: str, message: str, rule: str | None,
        extra: dict[str, Any] | None = None,
    ):
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.rule = rule
        #: further machine-readable fields of the details (a stale call's `current_version`)
        self.extra = extra or {}

    @classmethod
    def from_rpc(cls, exc: grpc.RpcError) -> GameServiceError:
        return cls.from_details(exc.code(), exc.details() or "")

    @classmethod
    def from_details(cls, code: grpc.StatusCode, details: str) -> GameServiceError:
        try:
            body = json.loads(details)
            reason, message, rule = body["reason"], body["message"], body.get("rule")
            extra = {k: v for k, v in body.items() if k not in ("reason", "message", "rule")}
        except (ValueError, TypeError, KeyError, AttributeError):
            reason, message, rule, extra = code.name.lower(), details, None, {}
        return cls(code, reason, message, rule, extra)


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    token: str | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class Created:
    game_id: str
    seats: list[Seat]
    version: int

    def token(self, seat: int) -> str:
        tok = self.seats[seat].token
        if tok is None:
            raise KeyError(f"seat {seat} is a bot seat")
        return tok


@dataclass(frozen=True, slots=True)
class NewGame:
    """One game to create in a batch (`AdminClient.create_games`): the arguments of `create_game`."""

    game: str
    players: int
    seed: int | None = None
    options: dict[str, Any] | None = None
    bots: dict[int, str] | None = None
    turn_seconds: float = 0.0
    owner: str = ""  # the player whose quotas apply; "" = none (the matchmaker's games)
    #: the time control's JSON shape (services/gamestate/clocks.py); None = turn_seconds decides
    time_control: dict[str, Any] | None = None
    rated: bool = False  # the matchmaker's rated games
    #: human seat -> the player seated there (the matchmaker, challenges): their histories show the game
    seat_players: dict[int, str] | None = None


#: Most games one `create_games` call may carry (the service refuses more with INVALID_ARGUMENT).
MAX_BATCH = 256


def _seat_states(r) -> list[dict[str, Any]]:
    """Per seat {"seat", "kind", "status", "bot_level"} (bot_level None for a human playing it)."""
    return [{"seat": x.seat, "kind": x.kind, "status": x.status, "bot_level": x.bot_level or None} for x in r.seats]


def _control(tc) -> dict[str, Any]:
    """A TimeControl message as its JSON shape (clocks.py)."""
    if tc.kind == "correspondence":
        return {"kind": tc.kind, "days_per_decision": tc.days_per_decision}
    return {"kind": tc.kind, "seconds_per_decision": tc.seconds_per_decision, "reserve_seconds": tc.reserve_seconds}


#: the decoders of the message fields whose Python value is not the protobuf's (pb_records.decode does the others)
_DECODERS: dict[str, Callable[[Any], Any]] = {
    "seats": _seat_states,
    "time_control": lambda r: _control(r.time_control) if r.HasField("time_control") else None,
}
#: seat -> the player seated there, where the creator named one (SeatState.player_id: matched and challenge games);
#: the owner holds an owned game's other human seats
_SEAT_PLAYERS = (dict[int, str], field(default_factory=dict),
                 lambda r: {x.seat: x.player_id for x in r.seats if x.player_id})

#: A game as a seat or a spectator sees it: the protobuf GameView, decoded (its fields' meanings: the .proto)
GameState = pb_record("GameState", pb2.GameView.DESCRIPTOR, module=__name__, decoders=_DECODERS,
                      derived={"seat_players": _SEAT_PLAYERS},
                      doc="A game as a seat or a spectator sees it: the protobuf GameView, decoded.")


@dataclass(frozen=True, slots=True)
class Legal:
    version: int
    seat: int
    actions: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Submitted:
    version: int
    events: list[dict[str, Any]]
    status: str
    to_act: list[int]
    replayed: bool


#: One game of a listing: the protobuf GameSummary, decoded
Summary = pb_record("Summary", pb2.GameSummary.DESCRIPTOR, module=__name__, decoders=_DECODERS,
                    derived={"seat_players": _SEAT_PLAYERS},
                    doc="One game of a listing: the protobuf GameSummary, decoded.")


@dataclass(frozen=True, slots=True)
class GameLog:
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    final_digest: str = ""
    version: int = 0
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    status: str = "active"


# ---------------------------------------------------------------------- conversions


def _create_request(game, players, seed, options, bots, turn_seconds, time_control=None) -> pb2.CreateGameRequest:
    req = pb2.CreateGameRequest(
        game=game,
        players=players,
        options_json=json.dumps(options or {}),
        bots={int(s): lvl for s, lvl in (bots or {}).items()},
        turn_seconds=turn_seconds,
    )
    if seed is not None:
        req.seed = seed
    if time_control is not None:
        req.time_control.CopyFrom(pb2.TimeControl(**time_control))
    return req


def _created(r) -> Created:
    return Created(r.game_id, [Seat(s.seat, s.token or None, s.bot or None) for s in r.seats], r.version)


_CODES = {c.value[0]: c for c in grpc.StatusCode}


def _create_games_request(games: Sequence[NewGame]) -> pb2.CreateGamesRequest:
    return pb2.CreateGamesRequest(games=[
        pb2.OwnedCreateGameRequest(
            game=_create_request(g.game, g.players, g.seed, g.options, g.bots, g.turn_seconds, g.time_control),
            owner=g.owner, rated=g.rated, seat_players=g.seat_players or {},
        )
        for g in games
    ])


def _bot_request(game_id, seat, action, expected_version, idempotency_key) -> pb2.BotActionRequest:
    text = action if isinstance(action, str) else dumps(action)
    return pb2.BotActionRequest(
        game_id=game_id, seat=seat, action_json=text, expected_version=expected_version,
        idempotency_key=idempotency_key or "",
    )


def _batch_results(r) -> list[Created | GameServiceError]:
    """One entry per request: the created game, or the error that item alone would have raised."""
    out: list[Created | GameServiceError] = []
    for item in r.results:
        if item.HasField("created"):
            out.append(_created(item.created))
        else:
            code = _CODES.get(item.error.code, grpc.StatusCode.UNKNOWN)
            out.append(GameServiceError.from_details(code, item.error.details))
    return out


def _state(r) -> GameState:
    return GameState.from_pb(r)


def _submitted(r) -> Submitted:
    return Submitted(r.version, [reply_json(e) for e in r.events_json], r.status, list(r.to_act), r.replayed)


def _update(r) -> Update:
    return Update(
        version=r.version,
        kind=r.kind,
        actor=r.actor if r.HasField("actor") else None,
        events=[reply_json(e) for e in r.events_json],
        status=r.status,
        to_act=list(r.to_act),
        scores=list(r.scores),
        winners=list(r.winners),
    )


def _summary(g) -> Summary:
    return Summary.from_pb(g)


def _log(r) -> GameLog:
    return GameLog(
        game=r.game,
        players=r.players,
        options=json.loads(r.options_json),
        seed=r.seed,
        entries=[json.loads(e) for e in r.entries_json],
        final_digest=r.final_digest,
        version=r.version,
        scores=list(r.scores),
        winners=list(r.winners),
        status=r.status,
    )


def _catalog(r) -> tuple[list[dict[str, Any]], list[str]]:
    games = [
        {
            "name": g.name,
            "title": g.title,
            "min_players": g.min_players,
            "max_players": g.max_players,
            "options": json.loads(g.options_json),
        }
        for g in r.games
    ]
    return games, list(r.bot_levels)


def _level_details(r) -> list[dict[str, Any]]:
    """The catalog's per-level details (description, expected think time and rating per game); [] if absent."""
    return json.loads(r.bot_level_details_json) if r.bot_level_details_json else []


def _submit_request(game_id, token, action, expected_version, idempotency_key) -> pb2.SubmitActionRequest:
    text = action if isinstance(action, str) else dumps(action)
    return pb2.SubmitActionRequest(
        game_id=game_id,
        token=token,
        action_json=text,
        expected_version=expected_version,
        idempotency_key=idempotency_key or "",
    )


def _watch_request(game_id, token, after_version) -> pb2.WatchGameRequest:
    req = pb2.WatchGameRequest(game_id=game_id, token=token or "")
    if after_version is not None:
        req.after_version = after_version
    return req


#: HTTP/2 keepalive: a connection to a replica that vanished without closing it (its network cut, its host
#: gone) is found dead within ~15 s and dropped, so round-robin stops sending calls into it and the name is
#: resolved again. The server allows these pings (services/gamestate/server.py).
KEEPALIVE_OPTIONS = [
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]


def channel_options(lb_policy: str) -> list[tuple[str, object]]:
    return [("grpc.lb_policy_name", lb_policy), *KEEPALIVE_OPTIONS]



# ---------------------------------------------------------------------- clients
# client_sync.py is generated from this section (python -m services.gamestate.unasync): edit here, then run it.


class AsyncGameClient:
    """The game-state service's GameService calls. `timeout` applies to each unary call. The channel is opened
    on first use (for the async client: inside the running loop, which a grpc.aio channel belongs to)."""

    def __init__(self, target: str, timeout: float = 10.0, lb_policy: str = "round_robin"):
        self.target = target
        self.timeout = timeout
        self.lb_policy = lb_policy
        self._channel: grpc.aio.Channel | None = None
        self._stub: pb2_grpc.GameServiceStub | None = None

    @property
    def channel(self) -> grpc.aio.Channel:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self.target, options=channel_options(self.lb_policy))
        return self._channel

    @property
    def stub(self) -> pb2_grpc.GameServiceStub:
        if self._stub is None:
            self._stub = pb2_grpc.GameServiceStub(self.channel)
        return self._stub

    async def close(self) -> None:
        """Close the channel; a later call opens a new one."""
        if self._channel is not None:
            await self._channel.close()
        self._channel, self._stub = None, None

    async def __aenter__(self) -> AsyncGameClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def _call(self, method, request):
        try:
            return await method(request, timeout=self.timeout)
        except grpc.RpcError as exc:
            raise GameServiceError.from_rpc(exc) from None

    async def healthy(self) -> bool:
        """True iff the service answers the standard health check with SERVING."""
        try:
            reply = await health_pb2_grpc.HealthStub(self.channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=min(self.timeout, 2.0)
            )
        except grpc.RpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    async def catalog(self) -> tuple[list[dict[str, Any]], list[str]]:
        return _catalog(await self._call(self.stub.ListCatalog, pb2.ListCatalogRequest()))

    async def catalog_details(self) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
        """The catalog with the levels' details: (games, level names, level details)."""
        r = await self._call(self.stub.ListCatalog, pb2.ListCatalogRequest())
        return (*_catalog(r), _level_details(r))

    async def create_game(
        self,
        game: str,
        players: int,
        *,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        bots: dict[int, str] | None = None,
        turn_seconds: float = 0.0,
        time_control: dict[str, Any] | None = None,
    ) -> Created:
        req = _create_request(game, players, seed, options, bots, turn_seconds, time_control)
        return _created(await self._call(self.stub.CreateGame, req))

    def admin(self, secret: str) -> AsyncAdminClient:
        """The internal GameAdmin calls over this client's channel, presenting the service credential."""
        return AsyncAdminClient(self.channel, secret, self.timeout)

    async def get_game(self, game_id: str, token: str | None = None) -> GameState:
        req = pb2.GetGameRequest(game_id=game_id, token=token or "")
        return _state(await self._call(self.stub.GetGame, req))

    async def legal_actions(self, game_id: str, token: str) -> Legal:
        req = pb2.ListLegalActionsRequest(game_id=game_id, token=token)
        r = await self._call(self.stub.ListLegalActions, req)
        return Legal(r.version, r.seat, [reply_json(a) for a in r.actions_json])

    async def legal_actions_reply(self, game_id: str, token: str) -> pb2.ListLegalActionsResponse:
        """The reply as sent, actions still JSON text: for a caller that passes them on (the REST gateway)."""
        return await self._call(self.stub.ListLegalActions, pb2.ListLegalActionsRequest(game_id=game_id, token=token))

    async def submit(
        self,
        game_id: str,
        token: str,
        action: dict[str, Any] | str,
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> Submitted:
        req = _submit_request(game_id, token, action, expected_version, idempotency_key)
        return _submitted(await self._call(self.stub.SubmitAction, req))

    async def submit_reply(
        self,
        game_id: str,
        token: str,
        action: dict[str, Any] | str,
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> pb2.SubmitActionResponse:
        """The reply as sent, events still JSON text: for a caller that passes them on (the REST gateway)."""
        req = _submit_request(game_id, token, action, expected_version, idempotency_key)
        return await self._call(self.stub.SubmitAction, req)

    async def take_back(
        self, game_id: str, token: str, expected_version: int, idempotency_key: str | None = None
    ) -> Submitted:
        """Take back the seat's last decision (GameState.take_back says when it may): a new version whose state is
        the one before it."""
        return _submitted(await self.take_back_reply(game_id, token, expected_version, idempotency_key))

    async def take_back_reply(
        self, game_id: str, token: str, expected_version: int, idempotency_key: str | None = None
    ) -> pb2.SubmitActionResponse:
        """The reply as sent, events still JSON text: for a caller that passes them on (the REST gateway)."""
        req = pb2.TakeBackRequest(game_id=game_id, token=token, expected_version=expected_version,
                                  idempotency_key=idempotency_key or "")
        return await self._call(self.stub.TakeBack, req)

    async def watch(
        self, game_id: str, token: str | None = None, after_version: int | None = None, heartbeats: bool = False
    ) -> AsyncIterator[Update]:
        """Updates after `after_version` (from creation if None); ends after the game ends.

        Idle-stream heartbeats (kind "heartbeat") are skipped unless heartbeats=True
        (the gateway may turn them into SSE keep-alive comments).
        """
        call = self.stub.WatchGame(_watch_request(game_id, token, after_version))
        try:
            async for r in call:
                if heartbeats or r.kind != HEARTBEAT:
                    yield _update(r)
        except grpc.RpcError as exc:
            raise GameServiceError.from_rpc(exc) from None
        finally:
            call.cancel()  # closing the iterator early ends the stream on the server too

    async def list_games(self, status: str = "", game: str = "", limit: int = 0) -> list[Summary]:
        r = await self._call(self.stub.ListGames, pb2.ListGamesRequest(status=status, game=game, limit=limit))
        return [_summary(g) for g in r.games]

    async def resign(self, game_id: str, token: str, bot_level: str | None = None) -> int:
        req = pb2.ResignRequest(game_id=game_id, token=token, bot_level=bot_level or "")
        return (await self._call(self.stub.Resign, req)).version

    async def abort(self, game_id: str, token: str) -> int:
        return (await self._call(self.stub.Abort, pb2.AbortRequest(game_id=game_id, token=token))).version

    async def rotate_token(self, game_id: str, token: str) -> str:
        req = pb2.RotateTokenRequest(game_id=game_id, token=token)
        return (await self._call(self.stub.RotateToken, req)).token

    async def get_log(self, game_id: str) -> GameLog:
        return _log(await self._call(self.stub.GetLog, pb2.GetLogRequest(game_id=game_id)))


class AsyncAdminClient:
    """The internal GameAdmin calls (the REST gateway, the matchmaker, bot workers), presenting the service
    credential. Made by `AsyncGameClient.admin(secret)`: it shares that client's channel."""

    def __init__(self, channel: grpc.aio.Channel, secret: str, timeout: float = 10.0):
        self.stub = pb2_grpc.GameAdminStub(channel)
        self.metadata = call_metadata(secret)
        self.timeout = timeout

    async def _call(self, method, request):
        try:
            return await method(request, timeout=self.timeout, metadata=self.metadata)
        except grpc.RpcError as exc:
            raise GameServiceError.from_rpc(exc) from None

    async def create_game(
        self,
        game: str,
        players: int,
        *,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        bots: dict[int, str] | None = None,
        turn_seconds: float = 0.0,
        owner: str = "",
        time_control: dict[str, Any] | None = None,
        rated: bool = False,
        seat_players: dict[int, str] | None = None,
    ) -> Created:
        req = pb2.OwnedCreateGameRequest(
            game=_create_request(game, players, seed, options, bots, turn_seconds, time_control), owner=owner,
            rated=rated, seat_players=seat_players or {},
        )
        return _created(await self._call(self.stub.CreateGame, req))

    async def create_games(self, games: Sequence[NewGame]) -> list[Created | GameServiceError]:
        return _batch_results(await self._call(self.stub.CreateGames, _create_games_request(games)))

    async def submit_bot(
        self, game_id: str, seat: int, action: dict[str, Any] | str, expected_version: int,
        idempotency_key: str | None = None,
    ) -> Submitted:
        req = _bot_request(game_id, seat, action, expected_version, idempotency_key)
        return _submitted(await self._call(self.stub.SubmitBotAction, req))

    async def game_summaries(self, game_ids: Sequence[str]) -> list[Summary]:
        """The known games of `game_ids` (at most 100), in their order, in one call."""
        r = await self._call(self.stub.GetGameSummaries, pb2.GetGameSummariesRequest(game_ids=list(game_ids)))
        return [_summary(g) for g in r.games]
