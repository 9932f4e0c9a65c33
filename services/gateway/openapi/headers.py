"""The response headers of /openapi.json: the rate-limit standing, Retry-After, and the 503 every call may get.

Why declared: the gateway's edge (http/edge.py) adds `RateLimit-Limit`, `-Remaining` and `-Reset` to every answer
it counted and `Retry-After` to a 429 or 503 that can be retried, and any call may get a 503 while storage or the
game-state service restarts (docs/rate-limits.md). None of it comes from the routes, so FastAPI cannot infer it;
declared here once, a generated client reads these headers typed instead of parsing them by hand.
"""

from __future__ import annotations

import copy
from typing import Any

from services.gateway.http.limits import EXEMPT_PATHS

SECONDS = {"type": "integer", "minimum": 0}

HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Limit": {
        "description": "The requests per window of the tightest bucket this request counted against "
                       "(docs/rate-limits.md).", "schema": {"type": "integer", "minimum": 0}},
    "RateLimit-Remaining": {
        "description": "The requests that bucket has left in its window.", "schema": {"type": "integer", "minimum": 0}},
    "RateLimit-Reset": {
        "description": "Seconds until that bucket's window ends and it refills.", "schema": SECONDS},
    "Retry-After": {
        "description": "Seconds to wait before sending the same request again (nothing was done). Sent with a 429 "
                       "`rate_limited` or another bound that lifts with time, and with a 503 when the wait is known.",
        "schema": SECONDS},
}
RATE_LIMIT = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")

#: What a 503 is, on every operation that does not say more.
UNAVAILABLE = {
    "description": "unavailable: the platform is briefly unable to serve (storage or the game-state service "
                   "restarting); nothing was done unless the request carried an Idempotency-Key already applied. "
                   "Retry after `Retry-After` where sent, else with back-off.",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
}

#: Answers given before the request is counted against a rate limit (the body-size check comes first).
UNCOUNTED_STATUSES = frozenset({"413"})


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def apply(doc: dict[str, Any]) -> None:
    """Declare a 503 on every operation, Retry-After on its 429 and 503, and the rate-limit headers on every answer
    the edge counts (in place)."""
    doc.setdefault("components", {})["headers"] = HEADERS
    for path, item in doc["paths"].items():
        for op in item.values():
            responses = op.setdefault("responses", {})
            unavailable = responses.setdefault("503", copy.deepcopy(UNAVAILABLE))
            unavailable.setdefault("content", copy.deepcopy(UNAVAILABLE["content"]))
            for status, response in responses.items():
                headers = response.setdefault("headers", {})
                if path not in EXEMPT_PATHS and status not in UNCOUNTED_STATUSES:
                    headers.update({name: _ref(name) for name in RATE_LIMIT})
                if status in ("429", "503"):
                    headers["Retry-After"] = _ref("Retry-After")
                if not headers:
                    del response["headers"]
