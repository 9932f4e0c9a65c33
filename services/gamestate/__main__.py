"""`python -m services.gamestate`: the game-state service (gRPC) and its metrics exporter (`make run` starts it
under the development supervisor, the container's `entrypoint.sh gamestate` directly).

Prints the address it listens on; Ctrl-C (SIGINT) or SIGTERM stops it
gracefully, letting in-flight calls finish within SHUTDOWN_GRACE_S. It runs on
uvloop: grpc.aio and redis-py spend much of their CPU in the event loop, and
uvloop's C loop lowers the service's CPU per accepted action (bench/RESULTS.md).
"""

from __future__ import annotations

import asyncio
import os
import signal

import uvloop

from services.common.credentials import CredentialError
from services.common.entry import configure_logging
from services.common.gctune import tune_gc
from services.common.settings import get_settings
from services.gamestate.metrics import serve_metrics
from services.gamestate.server import PortTaken, start


async def main() -> None:
    settings = get_settings()
    try:
        running = await start(settings)
    except (CredentialError, PortTaken) as exc:
        raise SystemExit(f"skyboard game-state service: {exc}") from None
    try:
        serve_metrics(settings.metrics_port, settings.metrics_addr)
    except OSError as exc:  # never a service whose metrics silently go unexported
        await running.stop(0)
        raise SystemExit(f"skyboard game-state service: cannot export metrics on "
                         f"{settings.metrics_addr}:{settings.metrics_port}: {exc.strerror or exc}") from None
    tune_gc()
    host = settings.grpc_addr.rsplit(":", 1)[0]
    print(f"skyboard game-state service on {host}:{running.port} (gRPC, skyboard.v1.GameService), pid {os.getpid()}",
          flush=True)
    admin_host = settings.admin_grpc_addr.rsplit(":", 1)[0]
    print(f"internal listener on {admin_host}:{running.admin_port} (skyboard.v1.GameAdmin: never expose it)",
          flush=True)
    if settings.metrics_port:
        print(f"metrics on http://{settings.metrics_addr}:{settings.metrics_port}/metrics", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    print("stopping (finishing in-flight calls)...", flush=True)
    await running.stop(settings.shutdown_grace_s)
    print("stopped", flush=True)


if __name__ == "__main__":
    configure_logging()
    uvloop.run(main())
