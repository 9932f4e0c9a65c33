"""The blocking client is generated from the async one (services/gamestate/unasync.py), never edited apart."""

from __future__ import annotations

import inspect

from services.gamestate import client, client_sync, unasync


def test_the_checked_in_blocking_client_is_what_the_generator_writes() -> None:
    assert unasync.TARGET.read_text() == unasync.generate(unasync.SOURCE.read_text()), (
        "client_sync.py is stale: run `python -m services.gamestate.unasync`"
    )


def test_the_blocking_clients_have_every_call_of_the_async_ones_and_none_awaits() -> None:
    for sync_cls, async_cls in ((client_sync.GameClient, client.AsyncGameClient),
                                (client_sync.AdminClient, client.AsyncAdminClient)):
        async_calls = {n for n, f in inspect.getmembers(async_cls, inspect.iscoroutinefunction)}
        assert async_calls, async_cls
        for name in async_calls:
            method = getattr(sync_cls, dict(unasync.WORDS).get(name, name))  # __aenter__ -> __enter__
            assert not inspect.iscoroutinefunction(method) and not inspect.isasyncgenfunction(method), name
