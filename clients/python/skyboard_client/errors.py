"""Typed errors mirroring the API's error body `{"error": {"code", "message", "rule", "current_version"}}`."""

from __future__ import annotations

from typing import Any


class SkyboardError(Exception):
    """A refused request (nothing was changed) or a stream that failed.

    `status` is the HTTP status (0 for an `error` event of a stream), `code` the machine-readable reason
    (`stale_version`, `rate_limited`, `quota_exceeded`, `illegal_action`, ...), `rule` the rule id of the game
    specification an illegal action breaks, `current_version` the game's version on a 409 `stale_version`,
    `retry_after` the seconds the server asked to wait (429 and 503).
    """

    def __init__(
        self, status: int, code: str, message: str, rule: str | None = None, current_version: int | None = None,
        retry_after: float | None = None, body: dict[str, Any] | None = None,
    ):
        super().__init__(f"{status} {code}: {message}" if status else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule
        self.current_version = current_version
        self.retry_after = retry_after
        self.body = body or {}


class Unauthenticated(SkyboardError):
    """401: a missing, unknown, revoked or expired API key or seat token."""


class Forbidden(SkyboardError):
    """403: a credential of someone else (another game's token, another player's ticket)."""


class NotFound(SkyboardError):
    """404: no such game, player, ticket or challenge."""


class Conflict(SkyboardError):
    """409: what the thing is now forbids the call (`game_over`, `abort_not_allowed`, `challenge_<status>`)."""


class StaleVersion(Conflict):
    """409 `stale_version`: `expected_version` is not the game's version; read the game at `current_version`."""


class GameOver(Conflict):
    """409 `game_over`: the game has ended."""


class InvalidRequest(SkyboardError):
    """422: a body or parameter that does not validate, or names what the catalog does not have."""


class IllegalAction(InvalidRequest):
    """422 for an action the rules refuse now; `rule` names the rule of the game's specification."""


class RateLimited(SkyboardError):
    """429 `rate_limited`: the client waited `Retry-After` as many times as its retry policy allows."""


class QuotaExceeded(SkyboardError):
    """429 `quota_exceeded`: active games, bot seats or creations per hour (or `too_many_accounts`,
    `too_many_challenges`); waiting a few seconds will not help, so it is never retried."""


class Unavailable(SkyboardError):
    """503: the platform is briefly unavailable, still so after the retry policy's attempts."""


class StreamClosed(SkyboardError):
    """A stream that could not be resumed within the retry policy."""


_BY_CODE: dict[str, type[SkyboardError]] = {
    "stale_version": StaleVersion, "game_over": GameOver, "quota_exceeded": QuotaExceeded,
    "too_many_accounts": QuotaExceeded, "too_many_challenges": QuotaExceeded, "rate_limited": RateLimited,
}
_BY_STATUS: dict[int, type[SkyboardError]] = {
    401: Unauthenticated, 403: Forbidden, 404: NotFound, 409: Conflict, 422: InvalidRequest, 429: RateLimited,
    503: Unavailable,
}


def error_from_body(status: int, body: Any, retry_after: float | None = None) -> SkyboardError:
    """The typed error for an error body (`{"error": {...}}`), or a generic one for anything else."""
    detail = body.get("error") if isinstance(body, dict) else None
    if not isinstance(detail, dict):
        return SkyboardError(status, "error", str(body)[:500], retry_after=retry_after)
    code = str(detail.get("code") or "error")
    cls = _BY_CODE.get(code) or _BY_STATUS.get(status, SkyboardError)
    if cls is InvalidRequest and (code == "illegal_action" or detail.get("rule")):
        cls = IllegalAction
    return cls(status, code, str(detail.get("message", "")), detail.get("rule"), detail.get("current_version"),
               retry_after, body)


_STATUS_OF_CODE = {"unauthenticated": 401, "forbidden": 403, "not_found": 404, "unavailable": 503,
                   "invalid_request": 422}


def error_from_event(data: Any) -> SkyboardError:
    """The typed error of a stream's `error` event (its data is the error body)."""
    code = data.get("error", {}).get("code") if isinstance(data, dict) else None
    return error_from_body(_STATUS_OF_CODE.get(str(code), 0), data)
