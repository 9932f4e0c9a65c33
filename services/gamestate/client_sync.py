"""Blocking clients of the game-state gRPC API (bot workers, scripts, tests): `GameClient`, `AdminClient`.

Generated from client.py by `python -m services.gamestate.unasync`; do not edit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.credentials import call_metadata
from services.gamestate.client import (
    Created,
    GameLog,
    GameServiceError,
    GameState,
    Legal,
    NewGame,
    Submitted,
    Summary,
    _batch_results,
    _bot_request,
    _catalog,
    _create_games_request,
    _create_request,
    _created,
    _level_details,
    _log,
    _state,
    _submit_request,
    _submitted,
    _summary,
    _update,
    _watch_request,
    channel_options,
    reply_json,
)
from services.gamestate.pb import pb2, pb2_grpc
from services.gamestate.updates import HEARTBEAT, Update


class GameClient:
    """The game-state service's GameService calls. `timeout` applies to each unary call. The channel is opened
    on first use (for the async client: inside the running loop, which a grpc.aio channel belongs to)."""

    def __init__(self, target: str, timeout: float = 10.0, lb_policy: str = "round_robin"):
        self.target = target
        self.timeout = timeout
        self.lb_policy = lb_policy
        self._channel: grpc.Channel | None = None
        self._stub: pb2_grpc.GameServiceStub | None = None

    @property
    def channel(self) -> grpc.Channel:
        if self._channel is None:
            self._channel = grpc.insecure_channel(self.target, options=channel_options(self.lb_policy))
        return self._channel

    @property
    def stub(self) -> pb2_grpc.GameServiceStub:
        if self._stub is None:
            self._stub = pb2_grpc.GameServiceStub(self.channel)
        return self._stub

    def close(self) -> None:
        """Close the channel; a later call opens a new one."""
        if self._channel is not None:
            self._channel.close()
        self._channel, self._stub = None, None

    def __enter__(self) -> GameClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _call(self, method, request):
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as exc:
            raise GameServiceError.from_rpc(exc) from None

    def healthy(self) -> bool:
        """True iff the service answers the standard health check with SERVING."""
        try:
            reply = health_pb2_grpc.HealthStub(self.channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=min(self.timeout, 2.0)
            )
        except grpc.RpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    def catalog(self) -> tuple[list[dict[str, Any]], list[str]]:
        return _catalog(self._call(self.stub.ListCatalog, pb2.ListCatalogRequest()))

    def catalog_details(self) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
        """The catalog with the levels' details: (games, level names, level details)."""
        r = self._call(self.stub.ListCatalog, pb2.ListCatalogRequest())
        return (*_catalog(r), _level_details(r))

    def create_game(
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
        return _created(self._call(self.stub.CreateGame, req))

    def admin(self, secret: str) -> AdminClient:
        """The internal GameAdmin calls over this client's channel, presenting the service credential."""
        return AdminClient(self.channel, secret, self.timeout)

    def get_game(self, game_id: str, token: str | None = None) -> GameState:
        req = pb2.GetGameRequest(game_id=game_id, token=token or "")
        return _state(self._call(self.stub.GetGame, req))

    def legal_actions(self, game_id: str, token: str) -> Legal:
        req = pb2.ListLegalActionsRequest(game_id=game_id, token=token)
        r = self._call(self.stub.ListLegalActions, req)
        return Legal(r.version, r.seat, [reply_json(a) for a in r.actions_json])

    def legal_actions_reply(self, game_id: str, token: str) -> pb2.ListLegalActionsResponse:
        """The reply as sent, actions still JSON text: for a caller that passes them on (the REST gateway)."""
        return self._call(self.stub.ListLegalActions, pb2.ListLegalActionsRequest(game_id=game_id, token=token))

    def submit(
        self,
        game_id: str,
        token: str,
        action: dict[str, Any] | str,
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> Submitted:
        req = _submit_request(game_id, token, action, expected_version, idempotency_key)
        return _submitted(self._call(self.stub.SubmitAction, req))

    def submit_reply(
        self,
        game_id: str,
        token: str,
        action: dict[str, Any] | str,
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> pb2.SubmitActionResponse:
        """The reply as sent, events still JSON text: for a caller that passes them on (the REST gateway)."""
        req = _submit_request(game_id, token, action, expected_version, idempotency_key)
        return self._call(self.stub.SubmitAction, req)

    def take_back(
        self, game_id: str, token: str, expected_version: int, idempotency_key: str | None = None
    ) -> Submitted:
        """Take back the seat's last decision (GameState.take_back says when it may): a new version whose state is
        the one before it."""
        return _submitted(self.take_back_reply(game_id, token, expected_version, idempotency_key))

    def take_back_reply(
        self, game_id: str, token: str, expected_version: int, idempotency_key: str | None = None
    ) -> pb2.SubmitActionResponse:
        """The reply as sent, events still JSON text: for a caller that passes them on (the REST gateway)."""
        req = pb2.TakeBackRequest(game_id=game_id, token=token, expected_version=expected_version,
                                  idempotency_key=idempotency_key or "")
        return self._call(self.stub.TakeBack, req)

    def watch(
        self, game_id: str, token: str | None = None, after_version: int | None = None, heartbeats: bool = False
    ) -> Iterator[Update]:
        """Updates after `after_version` (from creation if None); ends after the game ends.

        Idle-stream heartbeats (kind "heartbeat") are skipped unless heartbeats=True
        (the gateway may turn them into SSE keep-alive comments).
        """
        call = self.stub.WatchGame(_watch_request(game_id, token, after_version))
        try:
            for r in call:
                if heartbeats or r.kind != HEARTBEAT:
                    yield _update(r)
        except grpc.RpcError as exc:
            raise GameServiceError.from_rpc(exc) from None
        finally:
            call.cancel()  # closing the iterator early ends the stream on the server too

    def list_games(self, status: str = "", game: str = "", limit: int = 0) -> list[Summary]:
        r = self._call(self.stub.ListGames, pb2.ListGamesRequest(status=status, game=game, limit=limit))
        return [_summary(g) for g in r.games]

    def resign(self, game_id: str, token: str, bot_level: str | None = None) -> int:
        req = pb2.ResignRequest(game_id=game_id, token=token, bot_level=bot_level or "")
        return (self._call(self.stub.Resign, req)).version

    def abort(self, game_id: str, token: str) -> int:
        return (self._call(self.stub.Abort, pb2.AbortRequest(game_id=game_id, token=token))).version

    def rotate_token(self, game_id: str, token: str) -> str:
        req = pb2.RotateTokenRequest(game_id=game_id, token=token)
        return (self._call(self.stub.RotateToken, req)).token

    def get_log(self, game_id: str) -> GameLog:
        return _log(self._call(self.stub.GetLog, pb2.GetLogRequest(game_id=game_id)))


class AdminClient:
    """The internal GameAdmin calls (the REST gateway, the matchmaker, bot workers), presenting the service
    credential. Made by `GameClient.admin(secret)`: it shares that client's channel."""

    def __init__(self, channel: grpc.Channel, secret: str, timeout: float = 10.0):
        self.stub = pb2_grpc.GameAdminStub(channel)
        self.metadata = call_metadata(secret)
        self.timeout = timeout

    def _call(self, method, request):
        try:
            return method(request, timeout=self.timeout, metadata=self.metadata)
        except grpc.RpcError as exc:
            raise GameServiceError.from_rpc(exc) from None

    def create_game(
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
        return _created(self._call(self.stub.CreateGame, req))

    def create_games(self, games: Sequence[NewGame]) -> list[Created | GameServiceError]:
        return _batch_results(self._call(self.stub.CreateGames, _create_games_request(games)))

    def submit_bot(
        self, game_id: str, seat: int, action: dict[str, Any] | str, expected_version: int,
        idempotency_key: str | None = None,
    ) -> Submitted:
        req = _bot_request(game_id, seat, action, expected_version, idempotency_key)
        return _submitted(self._call(self.stub.SubmitBotAction, req))

    def game_summaries(self, game_ids: Sequence[str]) -> list[Summary]:
        """The known games of `game_ids` (at most 100), in their order, in one call."""
        r = self._call(self.stub.GetGameSummaries, pb2.GetGameSummariesRequest(game_ids=list(game_ids)))
        return [_summary(g) for g in r.games]
