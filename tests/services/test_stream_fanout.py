"""WatchGame streams cost memory, not Redis connections, are bounded per address and per credential, and free
what they held within a second of closing (docs/decisions/abuse-bounds.md, "Streams and the public gRPC port")."""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import grpc
import pytest
import redis

from services.common import stream_fanout
from services.gamestate.client import AsyncGameClient, GameServiceError
from services.gamestate.fanout import WATCHER_READS
from tests.services.helpers import play_random

N_WATCHERS = 100


def _clients(rdb: redis.Redis, name: str) -> list[dict]:
    """The Redis connections the service under test holds (CLIENT LIST, by its connection name)."""
    return [c for c in rdb.client_list() if c.get("name") == name]


def _blocked(rdb: redis.Redis, name: str) -> int:
    """Of those, how many are blocked in a read right now (an XREAD waiting for entries)."""
    return sum("b" in c.get("flags", "") for c in _clients(rdb, name))


async def _open(client: AsyncGameClient, game_id: str, token: str | None, n: int) -> list[asyncio.Task]:
    """`n` streams, each read in its own task; returns once each has received its first entry."""
    started = [asyncio.Event() for _ in range(n)]

    async def read(event: asyncio.Event) -> None:
        async for _update in client.watch(game_id, token):
            event.set()

    tasks = [asyncio.create_task(read(e)) for e in started]
    for task, event in zip(tasks, started):
        waiting = asyncio.create_task(event.wait())
        await asyncio.wait([task, waiting], timeout=20, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if task.done():  # refused (or ended): the others go too
            await _close(tasks)
            task.result()
            raise AssertionError("a stream ended before its first entry")
        assert event.is_set(), "a stream sent nothing in 20 s"
    return tasks


async def _close(tasks: list[asyncio.Task]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _client(target: str) -> AsyncGameClient:
    return AsyncGameClient(target)  # made inside the instances' loop: a grpc.aio channel belongs to one loop


def _watchers(inst) -> int:
    return inst.running.service.fanout.watchers() if hasattr(inst.running.service, "fanout") else -1


def test_watchers_of_a_game_share_one_redis_reader(make_instance, rdb):
    name = f"sbtest-fanout-{uuid.uuid4().hex[:8]}"
    inst = make_instance(redis_client_name=name)  # the conftest's settings: no stream limits
    client = inst.run(_client(inst.target))
    game = inst.run(client.create_game("toybids", 2, seed=81))
    before = len(_clients(rdb, name))
    tasks = inst.run(_open(client, game.game_id, None, N_WATCHERS))
    seats = inst.run(_open(client, game.game_id, game.token(0), 10))
    time.sleep(0.5)  # every reader is back in its blocking read
    during, blocked = len(_clients(rdb, name)), _blocked(rdb, name)
    assert before >= 1, "the service names its Redis connections (REDIS_CLIENT_NAME)"
    inst.run(_close(tasks + seats))
    inst.run(client.close())
    print(f"redis clients of the service: {before} before, {during} with {N_WATCHERS + 10} watchers, "
          f"{blocked} blocked in a read")
    assert blocked <= 1, f"{blocked} connections blocked in XREAD for one game's {N_WATCHERS + 10} watchers"
    # streams opening at once borrow at most WATCHER_READS pooled connections, the reader one: none per watcher
    assert during - before <= WATCHER_READS + 2, f"{during - before} more Redis connections for {N_WATCHERS + 10}"


def test_a_closed_stream_frees_its_watcher_and_reader_within_a_second(make_instance, rdb):
    name = f"sbtest-fanout-{uuid.uuid4().hex[:8]}"
    inst = make_instance(redis_client_name=name, watch_block_ms=1000)
    client = inst.run(_client(inst.target))
    game = inst.run(client.create_game("toybids", 2, seed=82))
    tasks = inst.run(_open(client, game.game_id, game.token(1), 3))
    time.sleep(0.3)
    assert _watchers(inst) == 3
    closed_at = time.monotonic()
    inst.run(_close(tasks))
    while (_watchers(inst) or _blocked(rdb, name)) and time.monotonic() - closed_at < 5:
        time.sleep(0.01)
    took = time.monotonic() - closed_at
    inst.run(client.close())
    print(f"released {took:.3f} s after the client closed its streams")
    assert _watchers(inst) == 0 and _blocked(rdb, name) == 0, "still held 5 s after closing"
    assert took < 1.0, f"released only after {took:.2f} s"


def test_streams_are_bounded_per_address_and_per_credential(make_instance):
    inst = make_instance(stream_limit_address=4, stream_limit_credential=2)
    client = inst.run(_client(inst.target))
    game = inst.run(client.create_game("toybids", 2, seed=83))

    async def refused(token: str | None) -> GameServiceError:
        with pytest.raises(GameServiceError) as caught:
            async for _update in client.watch(game.game_id, token):
                pass
        return caught.value

    seat = inst.run(_open(client, game.game_id, game.token(0), 2))
    exc = inst.run(refused(game.token(0)))  # a third stream of that seat token
    assert exc.code == grpc.StatusCode.RESOURCE_EXHAUSTED, exc
    assert exc.reason == "too_many_streams" and "2 concurrent streams per credential" in exc.message
    anon = inst.run(_open(client, game.game_id, None, 2))  # the address's 3rd and 4th
    exc = inst.run(refused(None))
    assert exc.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "4 concurrent streams per address" in exc.message
    inst.run(_close(anon[:1]))
    deadline = time.monotonic() + 1.0  # a closed stream's place is free again within a second
    while True:
        try:
            again = inst.run(_open(client, game.game_id, None, 1))
            break
        except GameServiceError as exc:
            assert exc.code == grpc.StatusCode.RESOURCE_EXHAUSTED and time.monotonic() < deadline, exc
            time.sleep(0.02)
    inst.run(_close(seat + anon[1:] + again))
    inst.run(client.close())


def test_a_watcher_that_falls_behind_catches_up_in_order_with_only_its_own_secrets(make_instance, make_client,
                                                                                   monkeypatch):
    monkeypatch.setattr(stream_fanout, "QUEUE_READS", 2)  # a slow watcher's queue overflows after two reads
    inst = make_instance(watch_block_ms=50)
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=84, options={"rounds": 4})
    service = inst.running.service

    async def open_stream():
        stream = await service.watcher.watch(game.game_id, game.token(1), None)
        return stream, await stream.__anext__()  # version 0; then nobody reads for a while

    async def rest(stream) -> list:
        return [item async for item in stream if item.kind != "heartbeat"]

    stream, first = inst.run(open_stream())
    played = play_random([client], game, 2, random.Random(6))
    time.sleep(0.3)  # more reads than the queue holds arrive meanwhile
    (sub,) = service.fanout.hubs.subscribers_of(game.game_id)
    assert sub.behind and sub.queue.qsize() <= 2, "the queue stays bounded: the reads beyond it were dropped"
    items = [first, *inst.run(rest(stream))]
    final = client.get_game(game.game_id)
    assert [i.version for i in items] == list(range(final.version + 1)), "caught up from Redis, no gap or repeat"
    for item in items[1:]:
        actor, events = played.submitted[item.version]
        expected = events if actor == 1 else [e for e in events if "visible_to" not in e or 1 in e["visible_to"]]
        assert item.events == expected
