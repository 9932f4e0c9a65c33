"""The `Allow` header of a 405: every method the routes of the requested path take.

Why: Starlette answers a method mismatch from the first route whose path matches, so `PUT
/v1/games/{id}/actions` listed GET alone though POST is served there too (and before the web client's
static files became the router's fallback, their mount at `/` answered every API path's 405 with
`GET, HEAD`). Each method is probed with the routes' own `matches`, so nested (included) routers count too.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.routing import BaseRoute, Match
from starlette.types import Scope

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")


def allowed_methods(routes: Iterable[BaseRoute], scope: Scope) -> list[str]:
    """The methods some route takes at `scope`'s path, in METHODS order (empty when no route's path matches)."""
    routes = list(routes)
    return [m for m in METHODS if any(r.matches({**scope, "method": m})[0] is Match.FULL for r in routes)]
