"""What every role's entry point (`python -m services.<role>`) does first, written once: the same log format, and
a refusal to start without a usable service credential that names the role (services/common/credentials.py)."""

from __future__ import annotations

import logging

from services.common.credentials import CredentialError, check_secret

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging() -> None:
    """INFO and up, one format for every role, so the logs of a stack read alike."""
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)


def require_secret(role: str, secret: str | None) -> str:
    """The service secret, or exit with the reason: a role without it could never call GameAdmin."""
    try:
        return check_secret(secret)
    except CredentialError as exc:
        raise SystemExit(f"skyboard {role}: {exc}") from None
