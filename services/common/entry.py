"""What every role's entry point (`python -m services.<role>`) does, written once: the same log format, a refusal to
start without a usable service credential that names the role (services/common/credentials.py), and a loop that
SIGINT and SIGTERM stop cleanly."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable

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


def run_until_signalled(serve: Callable[[asyncio.Event], Awaitable[None]]) -> None:
    """Run `serve(stop)` in a new event loop; SIGINT and SIGTERM set `stop`, so a role ends its pass and closes its
    connections instead of dying in the middle of a write."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(stop)

    asyncio.run(main())
