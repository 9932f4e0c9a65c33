"""Many open watch streams do not starve the other calls of Redis connections.

Regression: redis-py 8 caps an asyncio pool at 100 connections by default and every open WatchGame holds
one in a blocking XREAD, so with ~100 watchers every other call failed (MaxConnectionsError, then INTERNAL
or UNAVAILABLE); the load bench hit it at 200 concurrent games."""

from __future__ import annotations

import threading
import time

from services.gamestate.client import GameServiceError
from services.gamestate.client_sync import GameClient

WATCHERS = 130


def test_more_watchers_than_the_default_pool_size(make_instance, make_client, settings):
    inst = make_instance(dispatch_bots=False, watch_block_ms=5000)
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=21)
    started = threading.Barrier(WATCHERS + 1)
    stop = threading.Event()

    def watch() -> None:
        with GameClient(inst.target) as own:
            stream = own.watch(game.game_id)
            next(stream)  # the creation
            started.wait(30)
            try:
                for update in stream:
                    if update.status == "finished" or stop.is_set():
                        break
            except GameServiceError:
                if not stop.is_set():  # streams end UNAVAILABLE when the instance stops after the test
                    raise

    threads = [threading.Thread(target=watch, daemon=True) for _ in range(WATCHERS)]
    for t in threads:
        t.start()
    started.wait(60)
    time.sleep(0.5)  # every watcher is now following the game (through its one shared reader)
    try:
        for seat in (0, 1):
            assert client.get_game(game.game_id, game.token(seat)).version == seat
            action = client.legal_actions(game.game_id, game.token(seat)).actions[0]
            assert client.submit(game.game_id, game.token(seat), action, seat).version == seat + 1
        assert client.create_game("toybids", 2, seed=22).game_id
    finally:
        stop.set()
