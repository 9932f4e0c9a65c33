"""CreateGames, the batch creation RPC: per-item results in order, per-item errors, the size cap, and games
that are in every way the games CreateGame makes (tokens, digests, indexes, turn clock, bot seats)."""

from __future__ import annotations

import json
import random
from typing import Any

import grpc
import pytest

from engine.core import State
from services.gamestate.client import MAX_BATCH, Created, GameServiceError, NewGame
from services.gamestate.creation import MAX_BATCH as SERVICE_MAX_BATCH
from services.gamestate.keys import Keys
from services.gamestate.pb import pb2
from services.gamestate.service import Registry
from tests.services import toygame
from tests.services.helpers import expect_error, play_random

C = grpc.StatusCode


class BrokenGame(toygame.ToyGame):
    """An engine whose `new` fails with an unexpected exception (a bug, not bad input)."""

    name = "brokenbids"

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> State:
        raise RuntimeError("engine bug")


@pytest.fixture
def registry() -> Registry:
    return Registry({toygame.GAME.name: toygame.GAME, "brokenbids": BrokenGame()})


def test_a_batch_creates_every_game_in_order_with_working_tokens(client, admin):
    specs = [
        NewGame("toybids", 2, seed=11),
        NewGame("toybids", 3, seed=12, options={"rounds": 2}),
        NewGame("toybids", 2, seed=13, bots={1: "random"}),
        NewGame("toybids", 3, seed=14, turn_seconds=30.0),
    ]
    results = admin.create_games(specs)
    assert [type(r) for r in results] == [Created] * 4
    assert len({r.game_id for r in results}) == 4
    for spec, created in zip(specs, results):
        assert [s.seat for s in created.seats] == list(range(spec.players)) and created.version == 0
        bots = spec.bots or {}
        assert {s.seat: s.bot for s in created.seats if s.bot} == bots
        for seat in created.seats:
            if seat.seat in bots:
                assert seat.token is None
                continue
            view = client.get_game(created.game_id, seat.token)
            assert view.seat == seat.seat and view.players == spec.players and view.bots == bots
            legal = client.legal_actions(created.game_id, seat.token)
            assert legal.seat == seat.seat and legal.actions, "a fresh toybids game has every seat bidding"
    assert client.get_game(results[1].game_id).options == {"rounds": 2}
    assert client.get_game(results[3].game_id).deadline_ms > 0, "the turn clock runs from creation"
    assert client.get_game(results[0].game_id).deadline_ms == 0
    assert sorted(g.game_id for g in client.list_games(status="active")) == sorted(r.game_id for r in results)
    play_random([client], results[0], 2, random.Random(3))
    assert client.get_game(results[0].game_id).status == "finished"


def test_a_batch_game_is_the_game_create_game_makes(client, admin):
    """Same seed, same engine state: equal digests and views, and both replay from their logs."""
    single = client.create_game("toybids", 3, seed=99, options={"rounds": 4})
    (batch,) = admin.create_games([NewGame("toybids", 3, seed=99, options={"rounds": 4})])
    a, b = client.get_game(single.game_id), client.get_game(batch.game_id)
    assert a.view == b.view and a.to_act == b.to_act
    digests = {client.get_game(g.game_id, g.token(0)).digest for g in (single, batch)}  # a seat's view has it
    assert len(digests) == 1 and "" not in digests
    for seat in range(3):
        assert client.get_game(single.game_id, single.token(seat)).view == \
            client.get_game(batch.game_id, batch.token(seat)).view


def test_a_refused_item_is_reported_in_place_and_the_others_are_created(client, rdb, prefix, admin):
    specs = [
        NewGame("toybids", 2, seed=1),
        NewGame("no-such-game", 2),
        NewGame("toybids", 9),
        NewGame("toybids", 2, options={"rounds": 7}),
        NewGame("toybids", 2, bots={5: "random"}),
        NewGame("toybids", 2, seed=-5),
        NewGame("brokenbids", 2),
        NewGame("toybids", 3, seed=2),
    ]
    results = admin.create_games(specs)
    assert isinstance(results[0], Created) and isinstance(results[-1], Created)
    errors = results[1:-1]
    assert all(isinstance(e, GameServiceError) for e in errors)
    assert [e.code for e in errors] == [C.INVALID_ARGUMENT] * 5 + [C.INTERNAL]
    for e, needle in zip(errors, ["unknown game", "2-3 players", "rounds", "not a seat", "seed", "internal"]):
        assert needle in e.message, e
    assert [e.reason for e in errors[:5]] == ["unknown_game"] + ["invalid_argument"] * 4
    assert errors[5].reason == "internal"
    created = {r.game_id for r in (results[0], results[-1])}
    assert {g.game_id for g in client.list_games()} == created, "refused items wrote nothing"
    assert len(list(rdb.scan_iter(match=f"{prefix}token:*"))) == 2 + 3, "token index: the created games' seats only"
    # the same errors as the request alone would have raised
    alone = expect_error(C.INVALID_ARGUMENT, client.create_game, "toybids", 9)
    assert (alone.reason, alone.message) == (errors[1].reason, errors[1].message)


def test_malformed_options_json_fails_only_its_item(admin):
    reply = admin.stub.CreateGames(pb2.CreateGamesRequest(games=[
        pb2.OwnedCreateGameRequest(game=pb2.CreateGameRequest(game="toybids", players=2, options_json="[1,")),
        pb2.OwnedCreateGameRequest(game=pb2.CreateGameRequest(game="toybids", players=2, options_json="[1]")),
        pb2.OwnedCreateGameRequest(game=pb2.CreateGameRequest(game="toybids", players=2)),
    ]), metadata=admin.metadata)
    kinds = [r.WhichOneof("result") for r in reply.results]
    assert kinds == ["error", "error", "created"]
    for r in reply.results[:2]:
        assert r.error.code == C.INVALID_ARGUMENT.value[0]
        assert json.loads(r.error.details)["reason"] == "invalid_argument"


def test_the_batch_size_is_capped(client, admin):
    assert MAX_BATCH == SERVICE_MAX_BATCH == 256
    err = expect_error(C.INVALID_ARGUMENT, admin.create_games, [NewGame("toybids", 2)] * (MAX_BATCH + 1))
    assert "at most 256" in err.message
    assert client.list_games() == [], "an oversize batch creates nothing"
    assert admin.create_games([]) == []
    results = admin.create_games([NewGame("toybids", 2, seed=i) for i in range(MAX_BATCH)])
    assert all(isinstance(r, Created) for r in results)
    assert len({r.game_id for r in results}) == MAX_BATCH
    assert len(client.list_games(limit=500)) == MAX_BATCH


def test_each_call_creates_new_games(client, admin):
    """CreateGames carries no idempotency key: a repeated batch is new games (the matchmaker never repeats one;
    its claims are released if a call fails, and the tickets are grouped again)."""
    first = admin.create_games([NewGame("toybids", 2, seed=5)] * 2)
    again = admin.create_games([NewGame("toybids", 2, seed=5)] * 2)
    ids = [r.game_id for r in first + again]
    assert len(set(ids)) == 4
    digests = {client.get_game(r.game_id, r.token(0)).digest for r in first + again}
    assert len(digests) == 1 and "" not in digests, "same seed, same initial state"


async def _async_batch(target: str, secret: str) -> list:
    from services.gamestate.client import AsyncGameClient

    async with AsyncGameClient(target) as aclient:
        return await aclient.admin(secret).create_games([NewGame("toybids", 2, seed=1), NewGame("toybids", 1)])


def test_the_async_client_speaks_the_batch_too(instance, client, settings):
    import asyncio

    ok, bad = asyncio.run(_async_batch(instance.admin_target, settings.service_secret))
    assert isinstance(ok, Created) and isinstance(bad, GameServiceError) and bad.code == C.INVALID_ARGUMENT
    assert client.get_game(ok.game_id, ok.token(1)).seat == 1


def test_the_cached_metadata_of_new_games_is_what_redis_holds(instance, client, rdb, prefix, admin):
    """Creation caches each game's metadata without reading it back: it must equal the parse of the hash."""
    from services.gamestate.records import Meta

    results = admin.create_games([
        NewGame("toybids", 3, seed=1, options={"rounds": 2}, bots={0: "random"}, turn_seconds=20.0),
        NewGame("toybids", 2, seed=2),
    ])
    store = instance.running.service.store
    for r in results:
        parsed = Meta.from_hash(r.game_id, rdb.hgetall(Keys(prefix).meta(r.game_id)))
        assert store._metas[r.game_id] == parsed
    assert store._metas[results[0].game_id].deadlines, "the clocked game has running deadlines"


def test_game_ids_never_begin_with_a_dash_and_are_ids_the_service_reads(monkeypatch):
    """A game id that began with '-' read as an option on the archive's command line (`retry <game id>` refused
    one in CI); ids are drawn again until they do not, and keep the id format every read checks."""
    import secrets

    from services.gamestate import creation
    from services.gamestate.lookup import GAME_ID_RE

    draws = iter(["-3B-s5NA1rdmHhrW", "-x", "Ab3_s5NA1rdmHhrW"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(draws))
    assert creation.new_game_id() == "Ab3_s5NA1rdmHhrW"
    monkeypatch.undo()
    ids = [creation.new_game_id() for _ in range(2000)]
    assert all(not i.startswith("-") and GAME_ID_RE.match(i) and len(i) == 16 for i in ids)
    assert len(set(ids)) == len(ids)
