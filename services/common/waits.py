"""Waits with a deadline that a cancellation always reaches.

Not `asyncio.wait_for`: on Python 3.11 it loses a cancellation that arrives in the same loop pass as the awaited
thing completes; it returns the result and the task runs on (CPython gh-86296, fixed in 3.12). gRPC cancels a
streaming handler once, when its client goes away, and `context.done()` stays false after that. So a WatchGame
handler whose cancel was lost ran on, and kept its game's reader, after its client had gone. `asyncio.timeout`
waits in the caller's own task, so a cancel always reaches the wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """`awaitable`'s result, or TimeoutError after `seconds`."""
    async with asyncio.timeout(seconds):
        return await awaitable


async def rest(stop: asyncio.Event, seconds: float) -> bool:
    """Wait `seconds`, or less if `stop` is set meanwhile: True if it was."""
    try:
        await within(stop.wait(), seconds)
    except TimeoutError:
        return stop.is_set()
    return True
