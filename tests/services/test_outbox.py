"""The outbox (services/gamestate/outbox.py): every version a game's creation or commit writes is appended to its
bucket's `changes` stream by the same script, whatever made it (a move, a resignation, the turn clock, a take-back,
an abort), with the result once the game ends, and nothing is appended for a refused commit."""

from __future__ import annotations

import random
import time

import grpc
import redis

from services.gamestate.client_sync import GameClient
from services.gamestate.keys import Keys, bucket_of
from services.gamestate.outbox import Change
from tests.services.helpers import expect_error
from tests.services.test_endings import _bid, _expire


def _changes(rdb: redis.Redis, prefix: str, game_id: str) -> list[Change]:
    """The outbox entries of `game_id`, oldest first."""
    raw = rdb.xrange(Keys(prefix).changes(bucket_of(game_id)))
    return [c for c in (Change.parse(i, f) for i, f in raw) if c.game_id == game_id]


def test_every_version_is_in_the_outbox_once_in_order_with_the_result_at_the_end(
        make_instance, make_client, rdb, prefix):
    inst = make_instance(sweeper=False)
    client: GameClient = make_client(inst)
    game = client.create_game("toybids", 2, seed=7, options={"rounds": 2}, turn_seconds=0.05)
    gid = game.game_id
    _bid(client, game, 0)
    stale = client.get_game(gid).version - 1
    before = len(_changes(rdb, prefix, gid))
    expect_error(grpc.StatusCode.ABORTED, client.submit, gid, game.token(1), {"type": "bid", "card": "card-000000"},
                 stale)  # a refused (stale) commit appends nothing
    assert len(_changes(rdb, prefix, gid)) == before
    _bid(client, game, 1)
    _bid(client, game, 1)
    _expire(inst, client, gid, 0)  # the turn clock decides for seat 0 (TOY-5), which ends the game
    final = client.get_game(gid)
    assert final.status == "finished"
    changes = _changes(rdb, prefix, gid)
    assert [c.version for c in changes] == list(range(final.version + 1))
    assert changes[0].kind == "created" and changes[0].status == "active" and sorted(changes[0].to_act) == [0, 1]
    assert changes[1].kind == "move" and changes[1].actor == 0 and changes[1].before == [0, 1]
    assert changes[1].to_act == [1]
    end = changes[-1]
    assert end.kind == "timeout" and end.actor == 0 and end.before == [0]
    assert end.ended and end.status == "finished" and end.to_act == []
    assert end.scores == final.scores and end.winners == final.winners and end.places == final.places
    assert all(c.places == [] for c in changes[:-1])
    # each entry carries the deadlines its commit left (every seat to act is on the clock), not the ones before it
    assert all(sorted(c.deadlines) == sorted(c.to_act) for c in changes)
    assert end.game == "toybids" and not end.rated
    assert all(abs(c.at_ms - time.time() * 1000) < 600_000 for c in changes)


def test_resignation_auto_play_and_abort_each_append_their_version(make_instance, make_client, rdb, prefix):
    inst = make_instance(sweeper=False)
    client = make_client(inst)
    game = client.create_game("toybids", 3, seed=3, options={"rounds": 3})
    gid = game.game_id
    client.resign(gid, game.token(2))
    aborted = client.create_game("toybids", 2, seed=4, options={"rounds": 2})
    client.abort(aborted.game_id, aborted.token(0))
    kinds = [(c.version, c.kind, c.status) for c in _changes(rdb, prefix, gid)]
    # the resigned seat's sealed bid is played at once by the default decision (zombie_bot_level ""): a version too
    assert kinds == [(0, "created", "active"), (1, "resign", "active"), (2, "auto", "active")]
    ended = _changes(rdb, prefix, aborted.game_id)
    assert [(c.version, c.status) for c in ended] == [(0, "active"), (1, "aborted")]
    assert ended[-1].scores == [] and ended[-1].places == [] and ended[-1].winners == []


def test_a_take_back_appends_its_version_with_the_mover_to_act_again(client, rdb, prefix):
    from tests.services.test_take_back import Table, _until_undoable

    table = Table(client, rdb, prefix, "aeroplanes", 3, 5)
    seat, _before, after = _until_undoable(table, random.Random(5))
    table.take_back(seat, after)
    changes = _changes(rdb, prefix, table.id)
    assert [c.version for c in changes] == list(range(after + 2))
    last = changes[-1]
    assert (last.kind, last.actor, last.status, last.to_act) == ("take_back", seat, "active", [seat])
