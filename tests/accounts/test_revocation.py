"""`until_revoked`, the one re-check of every stream an API key opens (services/accounts/revocation.py), on plain
async generators: an item is passed on only after a check made once it arrived; an idle stream is checked while it
waits; a check that cannot be made ends the stream (never goes on unchecked); and the stream under it is closed
whichever way it ends. The same code runs over REST and gRPC in tests/gateway/test_key_streams.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from services.accounts.revocation import Revoked, Unverified, until_revoked


class Source:
    """An async generator fed by hand (`put`), which records that it was closed."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[int | None] = asyncio.Queue()
        self.closed = asyncio.Event()

    async def items(self) -> AsyncIterator[int]:
        try:
            while (item := await self.queue.get()) is not None:
                yield item
        finally:
            self.closed.set()


def test_each_item_waits_for_a_check_made_after_it_arrived() -> None:
    async def go() -> None:
        source, log = Source(), []
        revoked = False

        async def lost() -> str | None:
            log.append(("check", source.queue.qsize()))
            return "revoked" if revoked else None

        stream = until_revoked(source.items(), lost, every_s=60)
        await source.queue.put(1)
        assert await anext(stream) == 1
        revoked = True  # revoked before the next item is written
        await source.queue.put(2)
        with pytest.raises(Revoked, match="revoked"):
            await anext(stream)  # 2 arrived after the revocation: never passed on
        assert source.closed.is_set(), "the stream under it is closed"
        assert len(log) == 2

    asyncio.run(asyncio.wait_for(go(), 10))


def test_an_idle_stream_is_checked_while_it_waits() -> None:
    async def go() -> None:
        source = Source()
        checks = 0

        async def lost() -> str | None:
            nonlocal checks
            checks += 1
            return "this API key no longer works" if checks >= 3 else None

        with pytest.raises(Revoked, match="no longer works"):
            await anext(until_revoked(source.items(), lost, every_s=0.01))  # nothing ever comes
        assert checks == 3 and source.closed.is_set()

    asyncio.run(asyncio.wait_for(go(), 10))


def test_a_check_that_fails_ends_the_stream_as_unverified() -> None:
    async def go() -> None:
        source = Source()

        async def lost() -> str | None:
            raise RedisConnectionError("down")

        await source.queue.put(1)
        with pytest.raises(Unverified) as ended:
            await anext(until_revoked(source.items(), lost, every_s=60))
        assert ended.value.code == "unavailable" and source.closed.is_set()

    asyncio.run(asyncio.wait_for(go(), 10))


def test_the_end_of_the_stream_and_closing_it_close_the_one_under_it() -> None:
    async def go() -> None:
        async def lost() -> str | None:
            return None

        ended = Source()
        for item in (1, 2, None):
            await ended.queue.put(item)
        assert [i async for i in until_revoked(ended.items(), lost, every_s=60)] == [1, 2]
        assert ended.closed.is_set()
        waiting = Source()
        stream = until_revoked(waiting.items(), lost, every_s=0.01)
        reading = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)  # mid-read, checked a few times meanwhile
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        await stream.aclose()
        assert waiting.closed.is_set(), "a reader that leaves mid-read closes the stream under it"

    asyncio.run(asyncio.wait_for(go(), 10))
