"""The uniform error body `{"error": {"code", "message", "rule"}}` for every 4xx/5xx.

Handlers are installed for our own `ApiError`, the game-state service's refusals (`GameServiceError`: one
translation here, so routes just call the service), Starlette's HTTP errors (unknown routes, wrong methods),
request validation (422) and anything unexpected (500), so a client never sees another error shape.
"""

from __future__ import annotations

import logging

import grpc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import InterfaceError as SqlInterfaceError
from sqlalchemy.exc import OperationalError as SqlOperationalError
from sqlalchemy.exc import TimeoutError as SqlPoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from services.common import boundedjson
from services.gamestate.client import GameServiceError
from services.gateway.http.allow import allowed_methods

log = logging.getLogger(__name__)

_CODES = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal",
    502: "bad_gateway",
    503: "unavailable",
}


class ErrorDetail(BaseModel):
    code: str
    message: str
    rule: str | None = None
    current_version: int | None = Field(
        None, description="Only on 409 `stale_version`: the game's version now, to read the game again at."
    )


class ErrorBody(BaseModel):
    """What every failed request returns."""

    error: ErrorDetail


class ApiError(Exception):
    """A refused request; raising one means nothing was changed."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        rule: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, object] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.code = code or _CODES.get(status, "error")
        self.message = message
        self.rule = rule
        self.headers = headers
        self.extra = extra or {}


def error_response(
    status: int, message: str, code: str | None = None, rule: str | None = None, headers: dict[str, str] | None = None,
    extra: dict[str, object] | None = None,
) -> JSONResponse:
    body = {"error": {"code": code or _CODES.get(status, "error"), "message": message, "rule": rule, **(extra or {})}}
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


_SERVICE_HTTP = {
    grpc.StatusCode.INVALID_ARGUMENT: (422, "invalid_request"),
    grpc.StatusCode.UNAUTHENTICATED: (401, "unauthenticated"),
    grpc.StatusCode.PERMISSION_DENIED: (403, "forbidden"),
    grpc.StatusCode.NOT_FOUND: (404, "not_found"),
    grpc.StatusCode.ABORTED: (409, "stale_version"),
    grpc.StatusCode.UNAVAILABLE: (503, "unavailable"),
    grpc.StatusCode.DEADLINE_EXCEEDED: (503, "unavailable"),
}

#: Refusals because of what the game is now (not of the request itself): 409 with the reason as the code.
CONFLICTS = ("abort_not_allowed", "game_over", "take_back_not_allowed")
#: Refusals of the request itself whose reason is a code of its own in docs/errors.md: 422 with the reason as the
#: code (any other INVALID_ARGUMENT is `invalid_request`).
INVALID_REASONS = ("idempotency_mismatch", "unknown_game")


def service_error(exc: GameServiceError) -> ApiError:
    """The REST error for a call the game-state service refused (an unreachable service is a 503)."""
    if exc.code == grpc.StatusCode.FAILED_PRECONDITION:
        if exc.reason == "game_active":
            return ApiError(403, exc.message, "game_active")
        if exc.reason in CONFLICTS:
            return ApiError(409, exc.message, exc.reason)
        return ApiError(422, exc.message, exc.reason or "illegal_action", exc.rule)
    if exc.code == grpc.StatusCode.INVALID_ARGUMENT and exc.reason in INVALID_REASONS:
        return ApiError(422, exc.message, exc.reason)
    if exc.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ApiError(429, exc.message, exc.reason or "quota_exceeded")
    if exc.code == grpc.StatusCode.ABORTED and "current_version" in exc.extra:
        return ApiError(409, exc.message, "stale_version", extra={"current_version": exc.extra["current_version"]})
    status, code = _SERVICE_HTTP.get(exc.code, (502, "bad_gateway"))
    if status == 503:
        return ApiError(503, "the game-state service is unavailable", code)
    if status == 502:
        return ApiError(502, "the game-state service failed", code)
    return ApiError(status, exc.message, code, exc.rule)


#: What the SQL database going away raises (through SQLAlchemy, or a refused connection as it opens)
SQL_UNAVAILABLE = (SqlOperationalError, SqlInterfaceError, SqlPoolTimeout, ConnectionRefusedError)


def exception_response(exc: Exception, method: str, path: str) -> JSONResponse:
    """The error answer to an exception raised while serving `method path` (routes and the hot path alike)."""
    if isinstance(exc, GameServiceError):
        exc = service_error(exc)
    if isinstance(exc, ApiError):
        return error_response(exc.status, exc.message, exc.code, exc.rule, exc.headers, exc.extra)
    if isinstance(exc, RedisConnectionError | RedisTimeoutError):
        # Redis restarting or unreachable: a clean, retryable 503 (a keyed retry replays the first outcome)
        log.warning("Redis unavailable on %s %s: %s", method, path, exc.__class__.__name__)
        return error_response(503, "storage is unavailable; retry", "unavailable", headers={"Retry-After": "1"})
    if isinstance(exc, SQL_UNAVAILABLE):
        # the SQL database (players, keys, ratings) restarting or unreachable: retryable as well
        log.warning("SQL unavailable on %s %s: %s", method, path, exc.__class__.__name__)
        return error_response(503, "storage is unavailable; retry", "unavailable", headers={"Retry-After": "1"})
    log.error("unhandled error on %s %s", method, path, exc_info=exc)
    return error_response(500, "internal error")


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    @app.exception_handler(GameServiceError)
    @app.exception_handler(RedisConnectionError)
    @app.exception_handler(RedisTimeoutError)
    @app.exception_handler(SqlOperationalError)
    @app.exception_handler(SqlInterfaceError)
    @app.exception_handler(SqlPoolTimeout)
    @app.exception_handler(ConnectionRefusedError)
    @app.exception_handler(Exception)
    async def _raised(request: Request, exc: Exception) -> JSONResponse:
        return exception_response(exc, request.method, request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        headers = getattr(exc, "headers", None)
        if exc.status_code == 404 and message == "Not Found":
            message = "no such route"
        if exc.status_code == 405:
            methods = allowed_methods(request.app.router.routes, request.scope)
            if methods:  # else the static files' own 405 (GET, HEAD), kept as is
                headers = {**(headers or {}), "Allow": ", ".join(methods)}
                message = f"{request.method} is not allowed here; allowed: {', '.join(methods)}"
        return error_response(exc.status_code, message, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, _validation_message(exc))


#: What a 422 means, on every operation. The JSON limits are services.common.boundedjson's, checked by `edge.Edge`
#: before any route (`jsonbody`); the catalog is the game-state service's, so no static schema can tell an
#: unknown game name from a known one.
INVALID_REQUEST = (
    "invalid request: a body or parameter that does not validate; a JSON body that is not UTF-8 JSON or breaks "
    f"a limit (nested deeper than {boundedjson.MAX_DEPTH} levels, an integer outside -2**63..2**64-1, a lone "
    "UTF-16 surrogate, NaN or Infinity); or a schema-valid request naming something the catalog does not have "
    "(a game, option or bot level; see GET /v1/catalog) or a seat or player count the game does not take. "
    "`code` says which where it is specific: `unknown_game` (a title the catalog does not have), "
    "`idempotency_mismatch` (an Idempotency-Key already used for a different submission: the first outcome is "
    "kept, so choose a new key), `seat_ambiguous` (an API key whose account holds several seats of the game "
    "named none: add `?seat=N`), `clock_too_fast`, `illegal_action` (or the engine's reason, with `rule`)"
)

#: OpenAPI `responses=` entry documenting the error body for the usual codes.
ERROR_RESPONSES = {
    status: {"model": ErrorBody, "description": INVALID_REQUEST if status == 422 else code.replace("_", " ")}
    for status, code in _CODES.items()
    if status in (401, 403, 404, 409, 413, 422, 429)
}
