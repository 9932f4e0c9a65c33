"""The gateway's side of the game-state service: typed async calls over gRPC.

The gateway holds no game logic; every game read and write goes through here.
A refused call raises `GameStateError` carrying the service's status code and
its details (reason, message, rule), which `http_error` turns into the REST
error body. An unreachable service is a 503.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.gamestate.client import (
    MAX_BATCH,
    AsyncAdminClient,
    AsyncGameClient,
    GameServiceError,
    GameState,
    NewGame,
    Update,
)
from services.gateway.http.errors import ApiError

GameStateError = GameServiceError
__all__ = ["MAX_BATCH", "GameStateClient", "GameStateError", "NewGame", "http_error"]


_HTTP = {
    grpc.StatusCode.INVALID_ARGUMENT: (422, "invalid_request"),
    grpc.StatusCode.UNAUTHENTICATED: (401, "unauthenticated"),
    grpc.StatusCode.PERMISSION_DENIED: (403, "forbidden"),
    grpc.StatusCode.NOT_FOUND: (404, "not_found"),
    grpc.StatusCode.ABORTED: (409, "stale_version"),
    grpc.StatusCode.UNAVAILABLE: (503, "unavailable"),
    grpc.StatusCode.DEADLINE_EXCEEDED: (503, "unavailable"),
}


#: Refusals because of what the game is now (not of the request itself): 409 with the reason as the code.
CONFLICTS = ("abort_not_allowed", "game_over")


def http_error(exc: GameStateError) -> ApiError:
    """The REST error for a refused service call."""
    if exc.code == grpc.StatusCode.FAILED_PRECONDITION:
        if exc.reason == "game_active":
            return ApiError(403, exc.message, "game_active")
        if exc.reason in CONFLICTS:
            return ApiError(409, exc.message, exc.reason)
        return ApiError(422, exc.message, exc.reason or "illegal_action", exc.rule)
    if exc.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ApiError(429, exc.message, exc.reason or "quota_exceeded")
    if exc.code == grpc.StatusCode.ABORTED and "current_version" in exc.extra:
        return ApiError(409, exc.message, "stale_version", extra={"current_version": exc.extra["current_version"]})
    status, code = _HTTP.get(exc.code, (502, "bad_gateway"))
    if status == 503:
        return ApiError(503, "the game-state service is unavailable", code)
    if status == 502:
        return ApiError(502, "the game-state service failed", code)
    return ApiError(status, exc.message, code, exc.rule)


class GameStateClient:
    """Wraps the service's typed `AsyncGameClient`, created on first use inside the running loop
    (a grpc.aio channel belongs to the loop that made it)."""

    def __init__(self, addr: str, timeout_s: float = 10.0, secret: str | None = None):
        self.addr = addr
        self.timeout_s = timeout_s
        self.secret = secret
        self._client: AsyncGameClient | None = None
        self._admin: AsyncAdminClient | None = None

    @property
    def client(self) -> AsyncGameClient:
        if self._client is None:
            self._client = AsyncGameClient(self.addr, timeout=self.timeout_s)
        return self._client

    @property
    def admin(self) -> AsyncAdminClient:
        """GameAdmin over the same channel (creation on a player's behalf, batches)."""
        if self.secret is None:
            raise RuntimeError("this gateway has no service secret (GATEWAY_SERVICE_SECRET / SERVICE_SECRET)")
        if self._admin is None:
            self._admin = self.client.admin(self.secret)
        return self._admin

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
        self._client, self._admin = None, None

    async def healthy(self) -> bool:
        """True iff the service answers the standard health check with SERVING."""
        try:
            reply = await health_pb2_grpc.HealthStub(self.client.channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=min(self.timeout_s, 2.0)
            )
        except grpc.RpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    async def catalog(self) -> tuple[list[dict[str, Any]], list[str]]:
        return await self.client.catalog()

    async def catalog_details(self) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
        return await self.client.catalog_details()

    async def create(
        self, game: str, players: int, seed: int | None, options: dict[str, Any], bots: dict[int, str],
        turn_seconds: float | None = None, owner: str = "", time_control: dict[str, Any] | None = None,
        rated: bool = False, seat_players: dict[int, str] | None = None,
    ) -> tuple[str, list[tuple[int, str | None, str | None]]]:
        """Create a game owned by `owner` (a player id whose quotas apply; "" = none) through GameAdmin;
        `seat_players` names who sits where when the creator knows (a challenge)."""
        created = await self.admin.create_game(
            game, players, seed=seed, options=options, bots=bots, turn_seconds=turn_seconds or 0.0, owner=owner,
            time_control=time_control, rated=rated, seat_players=seat_players,
        )
        return created.game_id, sorted((s.seat, s.token, s.bot) for s in created.seats)

    async def create_many(
        self, games: Sequence[NewGame]
    ) -> list[tuple[str, list[tuple[int, str | None, str | None]]] | GameStateError]:
        """Create up to MAX_BATCH games in one GameAdmin call (the matchmaker's path): per game (game_id, seats)
        as `create` returns it, or the `GameStateError` of that game alone. A failed call raises."""
        results = await self.admin.create_games(games)
        return [r if isinstance(r, GameStateError) else (r.game_id, sorted((s.seat, s.token, s.bot) for s in r.seats))
                for r in results]

    async def get(self, game_id: str, token: str | None) -> GameState:
        """The game as `token`'s seat (None: a spectator) sees it; winners mean something once finished."""
        return await self.client.get_game(game_id, token)

    async def legal_actions(self, game_id: str, token: str) -> tuple[int, int, Sequence[str]]:
        """(version, seat, the legal actions as the service's JSON texts): the gateway passes them on unparsed."""
        r = await self.client.legal_actions_reply(game_id, token)
        return r.version, r.seat, r.actions_json

    async def submit(
        self, game_id: str, token: str, action: Any, expected_version: int, idempotency_key: str | None
    ) -> tuple[int, Sequence[str], str, Sequence[int], bool]:
        """(version, the seat's events as the service's JSON texts, status, to_act, replayed)."""
        r = await self.client.submit_reply(game_id, token, json.dumps(action), expected_version, idempotency_key)
        return r.version, r.events_json, r.status, r.to_act, r.replayed

    async def resign(self, game_id: str, token: str) -> int:
        """Resign the token's seat (the zombie level plays it); the version that recorded it."""
        return await self.client.resign(game_id, token)

    async def abort(self, game_id: str, token: str) -> int:
        return await self.client.abort(game_id, token)

    async def rotate_token(self, game_id: str, token: str) -> str:
        return await self.client.rotate_token(game_id, token)

    async def log(self, game_id: str) -> dict[str, Any]:
        r = await self.client.get_log(game_id)
        return {
            "game_id": game_id, "game": r.game, "players": r.players, "options": r.options, "seed": r.seed,
            "actions": r.entries, "version": r.version, "final_digest": r.final_digest, "scores": r.scores,
            "winners": r.winners, "status": r.status,
        }

    async def watch(self, game_id: str, token: str | None, after: int | None) -> AsyncIterator[Update]:
        """Redacted events after `after`, in order, until the game ends."""
        stream = self.client.watch(game_id, token, after)
        try:
            async for update in stream:
                yield update
        finally:
            await stream.aclose()
