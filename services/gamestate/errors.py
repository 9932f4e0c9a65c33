"""Service errors: a gRPC status code, a machine reason, a message and an optional rule id.

The service layer raises these; the gRPC layer turns them into statuses whose
details are the JSON {"reason", "message", "rule"}; the client turns them back.
"""

from __future__ import annotations

import json

import grpc


class ServiceError(Exception):
    """A refused call. Raising one guarantees nothing was changed."""

    def __init__(
        self, code: grpc.StatusCode, reason: str, message: str, rule: str | None = None,
        extra: dict[str, object] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.rule = rule
        #: machine-readable fields a client needs to recover (e.g. a stale call's current version)
        self.extra = extra or {}

    def details(self) -> str:
        return json.dumps({"reason": self.reason, "message": self.message, "rule": self.rule, **self.extra})

    def __str__(self) -> str:
        return f"{self.code.name} {self.reason}: {self.message}" + (f" [{self.rule}]" if self.rule else "")


def invalid(message: str, reason: str = "invalid_argument") -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, reason, message)


def not_found(game_id: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, "not_found", f"no game {game_id!r}")


def stale(expected: int, current: int) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ABORTED, "stale_version", f"expected version {expected} but the game is at {current}",
        extra={"current_version": current},
    )


def unauthenticated(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unauthenticated", message)


def denied(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, "permission_denied", message)


def illegal(message: str, rule: str | None) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "illegal_action", message, rule)


def precondition(message: str, reason: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, reason, message)


def unavailable(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "unavailable", message)


def internal(message: str = "internal error") -> ServiceError:
    return ServiceError(grpc.StatusCode.INTERNAL, "internal", message)


def quota_exceeded(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "quota_exceeded", message)
