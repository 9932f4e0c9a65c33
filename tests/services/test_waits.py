"""A wait with a deadline ends when its task is cancelled, even in the loop pass where the awaited thing completes.

Python 3.11's `asyncio.wait_for` loses that cancel (CPython gh-86296). gRPC cancels a WatchGame handler only once,
when its client goes away, so a lost cancel kept the handler and its game's reader running for a client that had
gone. Every service waits through services/common/waits.py instead (docs/decisions/abuse-bounds.md, "Streams and
the public gRPC port": a closed stream frees its watcher).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from services.common.waits import rest, within

SERVICES = Path(__file__).resolve().parents[2] / "services"


def _cancelled_as_it_completes(setup) -> bool:
    """`setup()` (called in the loop) gives (wait, complete): start a task that awaits `wait()` again and again, as
    the watcher and the service loops do, then in one loop pass `complete()` what it awaits and cancel the task.
    True if the task ended: False means the cancel was lost and it waits again."""

    async def run() -> bool:
        wait, complete = setup()

        async def waiter() -> None:
            while True:
                try:
                    await wait()
                except TimeoutError:
                    continue

        task = asyncio.create_task(waiter())
        await asyncio.sleep(0)  # the task is now waiting
        complete()
        task.cancel()
        for _ in range(10):
            await asyncio.sleep(0)
        ended = task.done()
        task.cancel()
        return ended

    return asyncio.run(run())


def _read_through(wait_with_deadline):
    """(wait, complete) for a read from a queue, as the watcher waits for its game reader's next read."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    return (lambda: wait_with_deadline(queue.get(), 5.0)), (lambda: queue.put_nowait(1))


def test_a_cancel_as_the_read_arrives_ends_the_wait():
    assert _cancelled_as_it_completes(lambda: _read_through(within))


def test_the_race_is_real_with_wait_for():
    # the control: the same race loses the cancel through asyncio.wait_for on Python 3.11 (fixed in 3.12)
    import sys

    lost = not _cancelled_as_it_completes(lambda: _read_through(asyncio.wait_for))
    assert lost == (sys.version_info < (3, 12))


def test_within_times_out_and_returns_results():
    async def run() -> tuple[int, bool]:
        done = await within(asyncio.sleep(0, 7), 1.0)
        try:
            await within(asyncio.Event().wait(), 0.01)
        except TimeoutError:
            return done, True
        return done, False

    assert asyncio.run(run()) == (7, True)


def test_rest_says_whether_it_was_stopped():
    async def run() -> tuple[bool, bool]:
        stop = asyncio.Event()
        idle = await rest(stop, 0.01)
        stop.set()
        return idle, await rest(stop, 5.0)

    assert asyncio.run(run()) == (False, True)


def test_a_cancel_as_stop_is_set_ends_a_rest():
    def setup():
        stop = asyncio.Event()

        async def rest_once() -> None:
            await rest(stop, 5.0)
            stop.clear()  # as a loop goes on to its next pass

        return rest_once, stop.set

    assert _cancelled_as_it_completes(setup)


def test_no_service_waits_through_asyncio_wait_for():
    found = [f"{path.relative_to(SERVICES.parent)}:{n}" for path in SERVICES.rglob("*.py")
             if "node_modules" not in path.parts
             for n, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"\bwait_for\(", line)]
    assert not found, f"asyncio.wait_for can lose a cancel on Python 3.11: use services.common.waits ({found})"
