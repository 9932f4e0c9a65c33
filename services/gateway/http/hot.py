"""The two calls every move makes, `GET` and `POST /v1/games/{id}/actions`, served straight from ASGI.

Why: under load most of the gateway's CPU went to the framework around these two calls (routing,
dependency solving, body and response validation, serialisation, exception layers), not to the call
to the game-state service. Here they are answered by the same code as their FastAPI routes
(`routes/games.legal_actions_answer` / `submit_answer`, same checks in the same order, same error
bodies), without the framework. A request this path cannot take exactly as FastAPI would (a HEAD, a root
path, another content type, a body that is not plainly a valid `SubmitAction`, a repeated
Idempotency-Key) is left to the FastAPI route, which answers it (422s and all) as before. The body comes
already parsed by `edge.Edge` (`jsonbody.parse`, within services.common.boundedjson's limits).
"""

from __future__ import annotations

import re
from typing import Any

from starlette.types import Receive, Scope, Send

from services.gateway.auth import parse_bearer, required
from services.gateway.context import Context
from services.gateway.http.errors import exception_response
from services.gateway.http.jsonbody import NOT_JSON
from services.gateway.metrics import HOT_ROUTE_KEY
from services.gateway.routes.games import legal_actions_answer, submit_answer

ROUTE = "/v1/games/{game_id}/actions"
_PATH = re.compile(r"^/v1/games/([^/]+)/actions$")  # Starlette's pattern for the route above
_MAX_VERSION = 2**62  # SubmitAction.expected_version's bound
_JSON_HEADERS = [(b"content-type", b"application/json")]


def _headers(scope: Scope) -> tuple[str | None, str | None, str | None, int]:
    """First Authorization, Content-Type and Idempotency-Key values (as Starlette's `headers.get` reads
    them) and how many Idempotency-Key headers there are."""
    auth = ctype = idem = None
    idem_count = 0
    for name, value in scope["headers"]:
        if name == b"authorization":
            if auth is None:
                auth = value.decode("latin-1")
        elif name == b"content-type":
            if ctype is None:
                ctype = value.decode("latin-1")
        elif name == b"idempotency-key":
            idem_count += 1
            if idem is None:
                idem = value.decode("latin-1")
    return auth, ctype, idem, idem_count


def plain_submission(data: Any, content_type: str | None) -> tuple[dict[str, Any], int] | None:
    """(action, expected_version) if FastAPI would validate the body (`data`: its JSON value as
    `jsonbody.parse` gave it, or NOT_JSON) into exactly these values; None for anything else (FastAPI then
    answers it itself)."""
    if data is NOT_JSON or content_type is None or content_type.strip().lower() != "application/json":
        return None
    if type(data) is not dict or len(data) != 2:
        return None
    action, version = data.get("action"), data.get("expected_version")
    if type(action) is not dict or type(version) is not int or not 0 <= version <= _MAX_VERSION:
        return None
    return action, version


_SEAT_QUERY = re.compile(rb"^seat=([0-9]{1,2})$")


def plain_seat(query: bytes) -> tuple[bool, int | None]:
    """(takes it, seat): no query string, or exactly `seat=N` within `SeatChoice`'s bounds (an API key acting for
    one of its account's seats, docs/decisions/accounts.md); anything else is FastAPI's to answer."""
    if not query:
        return True, None
    m = _SEAT_QUERY.match(query)
    if m is None or int(m.group(1)) > 63 or (len(m.group(1)) > 1 and m.group(1).startswith(b"0")):
        return False, None
    return True, int(m.group(1))


class HotRoutes:
    """Serves the two move calls for `Edge`, or declines (returns None) so FastAPI serves the request."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    async def serve(self, scope: Scope, document: Any, receive: Receive, send: Send) -> int | None:
        """The status sent, or None if the request was left to FastAPI (nothing sent). `document` is the
        body's JSON value (`jsonbody.parse`), or NOT_JSON."""
        if scope.get("root_path"):
            return None
        m = _PATH.match(scope["path"])
        if m is None:
            return None
        method = scope["method"]
        auth, ctype, idem, idem_count = _headers(scope)
        if method == "POST":
            submission = plain_submission(document, ctype)
            if submission is None or idem_count > 1:
                return None
        elif method != "GET":
            return None
        plain, seat = plain_seat(scope.get("query_string", b""))
        if not plain:
            return None
        scope[HOT_ROUTE_KEY] = ROUTE
        game_id = m.group(1)
        try:
            token = required(parse_bearer(auth))
            if method == "GET":
                payload = await legal_actions_answer(self.ctx, game_id, token, seat)
            else:
                action, version = submission
                payload = await submit_answer(self.ctx, game_id, token, action, version, idem, seat)
        except Exception as exc:
            response = exception_response(exc, method, scope["path"])
            await response(scope, receive, send)
            return response.status_code
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(payload)).encode()), *_JSON_HEADERS]})
        await send({"type": "http.response.body", "body": payload})
        return 200
