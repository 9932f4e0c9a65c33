"""A game-state service process for the kill/restart test: services' own `start`, plus the toy game.

Run as `python -m tests.services.serve_proc`; configured by the same
environment variables as `python -m services.gamestate`; prints "PORT <n>" once serving.
"""

from __future__ import annotations

import asyncio
import signal

from services.common.settings import Settings
from services.gamestate.server import start
from services.gamestate.service import Registry
from tests.services import toygame


async def main() -> None:
    running = await start(Settings(), Registry({toygame.GAME.name: toygame.GAME}))
    print(f"PORT {running.port}", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await running.stop(1.0)


if __name__ == "__main__":
    asyncio.run(main())
