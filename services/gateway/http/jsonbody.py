"""JSON request bodies, parsed at the edge (`edge.Edge`) before any route or the hot path sees them.

Why: FastAPI parses JSON bodies with Python's json, which recurses per nesting level (a 2 KB body of
brackets raised RecursionError: a 500 with two tracebacks) and lets NaN, lone surrogates and integers of
any length through to the models, Redis and gRPC, where they failed as 500s. Here every body FastAPI would
parse as JSON goes through services.common.boundedjson first (at most 32 levels, integers within 64 bits, no lone
surrogates, no NaN/Infinity, UTF-8); one that breaks a limit is answered 422 with the standard error body,
the status FastAPI gives malformed JSON. The hot path takes the parsed value instead of parsing again;
FastAPI routes still parse the body themselves, now known to be within the limits.
"""

from __future__ import annotations

import email.message
from functools import lru_cache
from typing import Any, Final

from starlette.types import ASGIApp, Scope

from services.common import boundedjson
from services.gateway.http.errors import error_response

#: What `parse` returns for a body FastAPI would not parse as JSON (no body, or another content type).
NOT_JSON: Final = object()


@lru_cache(maxsize=256)
def is_json_type(content_type: str) -> bool:
    """FastAPI's own test (fastapi.routing, request body): `application/json` or `application/*+json`, read
    as the email package reads a Content-Type. The same test, so no body FastAPI parses escapes the check."""
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def content_type(scope: Scope) -> str | None:
    """The first Content-Type header, as Starlette's `request.headers.get` reads it."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            return value.decode("latin-1")
    return None


def parse(scope: Scope, body: bytes, max_bytes: int) -> Any:
    """The JSON value of `body`, or NOT_JSON if FastAPI would not read it as JSON; JsonRefused if it breaks a
    limit of services.common.boundedjson (size: `max_bytes`, the gateway's own body limit)."""
    if not body:
        return NOT_JSON
    ctype = content_type(scope)
    if not ctype or not is_json_type(ctype):
        return NOT_JSON
    return boundedjson.loads(body, max_bytes=max_bytes)


def refused(exc: boundedjson.JsonRefused) -> ASGIApp:
    return error_response(422, f"request body: {exc.message}")
