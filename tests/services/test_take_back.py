"""TakeBack over real gRPC and Redis (services/gamestate/moves.py): only the mover, only while the engine allows,
a new version of kind "take_back" whose state and views are the earlier version's, keyed and version-checked like
a move, the clock restored with it, and a log that replays to the same digest."""

from __future__ import annotations

import json
import random

import grpc
import pytest

import engine
from services.gamestate.keys import Keys
from services.gamestate.replay import replay_entries
from services.webclient.replays import replay_events, replay_step
from services.workers.loader import load_game_sync
from tests.conformance.test_take_back import REVEALS
from tests.redis_required import test_redis as run_redis
from tests.services.helpers import expect_error
from tests.services.test_bots import _firsts


class Table:
    """One game driven through the public API, with its stored log read from Redis to rebuild earlier versions."""

    def __init__(self, client, rdb, prefix, name, players, seed, **kw):
        self.client, self.rdb, self.keys = client, rdb, Keys(prefix)
        self.name, self.players, self.seed = name, players, seed
        self.game = client.create_game(name, players, seed=seed, **kw)
        self.id = self.game.game_id

    def view(self, seat=None):
        return self.client.get_game(self.id, None if seat is None else self.game.token(seat))

    def decide(self, rng, seat=None):
        """A random legal decision of `seat` (or of a seat to act); (seat, submit result, events)."""
        now = self.view()
        seat = now.to_act[rng.randrange(len(now.to_act))] if seat is None else seat
        action = rng.choice(self.client.legal_actions(self.id, self.game.token(seat)).actions)
        result = self.client.submit(self.id, self.game.token(seat), action, now.version)
        return seat, result

    def take_back(self, seat, version, **kw):
        return self.client.take_back(self.id, self.game.token(seat), version, **kw)

    def log(self):
        return [json.loads(e) for e in self.rdb.lrange(self.keys.log(self.id), 0, -1)]

    def state_at(self, version):
        """The engine's state at `version`, replayed from the stored log."""
        g = engine.get(self.name)
        return replay_entries(g.new(self.players, self.seed), g, self.log()[:version])


def _until_undoable(table, rng, limit=400):
    """Random decisions until the mover's view offers a take-back: (seat, version before, version after)."""
    for _ in range(limit):
        before = table.view().version
        seat, result = table.decide(rng)
        if table.view(seat).take_back:
            return seat, before, result.version
    raise AssertionError("no decision could be taken back")


def _update(client, game_id, version):
    """The stream entry of `version`, as a spectator's WatchGame sends it."""
    stream = client.watch(game_id, after_version=version - 1)
    try:
        return next(iter(stream))
    finally:
        stream.close()


def test_only_the_mover_takes_back_to_exactly_the_earlier_version_and_every_watcher_sees_it(client, rdb, prefix):
    table = Table(client, rdb, prefix, "aeroplanes", 3, 5)
    seat, before, after = _until_undoable(table, random.Random(5))
    earlier = table.state_at(before)
    others = [s for s in range(3) if s != seat]
    assert not any(table.view(s).take_back for s in others) and not table.view().take_back
    refused = expect_error(grpc.StatusCode.FAILED_PRECONDITION, table.take_back, others[0], after)
    assert refused.reason == "take_back_not_allowed"
    expect_error(grpc.StatusCode.ABORTED, table.take_back, seat, after - 1)  # compare-and-set as for moves

    done = table.take_back(seat, after, idempotency_key="undo-1")
    assert done.version == after + 1 and not done.replayed and done.to_act == [seat]
    assert done.events == [{"type": "taken_back", "seat": seat, "restores": before}]
    for s in (None, *range(3)):
        now = table.view(s)
        assert now.version == after + 1 and now.digest in ("", earlier.digest())  # a spectator sees no digest
        assert now.view == json.loads(json.dumps(earlier.view(s)))
    assert table.view(seat).digest == earlier.digest()
    update = _update(client, table.id, after + 1)
    assert (update.kind, update.actor, update.events) == ("take_back", seat, done.events)
    assert table.log()[-1] == {**table.log()[-1], "kind": "take_back", "seat": seat, "action": None,
                               "restores": before}

    again = table.take_back(seat, after, idempotency_key="undo-1")  # a retry: the first outcome
    assert (again.version, again.replayed) == (after + 1, True)
    mismatch = expect_error(grpc.StatusCode.INVALID_ARGUMENT, table.take_back, seat, after + 1,
                            idempotency_key="undo-1")
    assert mismatch.reason == "idempotency_mismatch"


def test_a_turn_goes_back_decision_by_decision_and_stops_at_its_start(client, rdb, prefix):
    """Blue Skies: purchases until "done" (BS-5.8); the take-back before the first purchase is refused."""
    table = Table(client, rdb, prefix, "blueskies", 3, 11, options={"first_player": 0})
    seat = table.view().to_act[0]
    start = table.view().version
    digests = [table.view(seat).digest]
    for _ in range(2):
        buy = next(a for a in client.legal_actions(table.id, table.game.token(seat)).actions if a["type"] == "buy_gate")
        client.submit(table.id, table.game.token(seat), buy, table.view().version)
        digests.append(table.view(seat).digest)
    version = table.view().version
    for expected in (digests[1], digests[0]):
        result = table.take_back(seat, version)
        version = result.version
        assert table.view(seat).digest == expected
    assert not table.view(seat).take_back
    refused = expect_error(grpc.StatusCode.FAILED_PRECONDITION, table.take_back, seat, version)
    assert refused.reason == "take_back_not_allowed"
    assert [e["restores"] for e in table.log()[-2:]] == [start + 1, start]


@pytest.mark.parametrize(("name", "players", "seed"), [("aeroplanes", 3, 21), ("opensky", 2, 22),
                                                       ("blueskies", 2, 23)])
def test_nothing_hidden_can_be_rerolled_a_decision_that_revealed_is_final(client, rdb, prefix, name, players, seed):
    """A seeded game of each title: every decision that resolved chance or showed something hidden (a die, a card,
    the sealed bids) leaves no take-back, and asking for one changes nothing."""
    table = Table(client, rdb, prefix, name, players, seed)
    rng = random.Random(seed)
    finals = 0
    while finals < 3:
        seat, result = table.decide(rng)
        types = {e["type"] for e in result.events}
        if not types & REVEALS[name]:
            continue
        finals += 1
        assert not table.view(seat).take_back
        digest = table.view(seat).digest
        refused = expect_error(grpc.StatusCode.FAILED_PRECONDITION, table.take_back, seat, result.version)
        assert refused.reason == "take_back_not_allowed"
        assert (table.view(seat).version, table.view(seat).digest) == (result.version, digest)


def test_the_clock_goes_back_with_the_decision(client, rdb, prefix):
    """A take-back restores the seat's deadline and reserve from before its decision: taking back buys no time."""
    table = Table(client, rdb, prefix, "blueskies", 2, 31, options={"first_player": 0},
                  time_control={"kind": "realtime", "seconds_per_decision": 600.0, "reserve_seconds": 60.0})
    seat = table.view().to_act[0]
    start = table.view()
    buy = next(a for a in client.legal_actions(table.id, table.game.token(seat)).actions if a["type"] == "buy_gate")
    client.submit(table.id, table.game.token(seat), buy, start.version)
    moved = table.view()
    assert moved.deadlines[seat] > start.deadlines[seat]  # a new decision's clock
    table.take_back(seat, moved.version)
    back = table.view()
    assert back.deadlines[seat] == start.deadlines[seat] and back.deadline_ms == start.deadline_ms
    assert back.reserves.get(seat) == start.reserves.get(seat)


def test_a_whole_game_with_take_backs_replays_from_its_published_log(client, rdb, prefix):
    """OpenSky with take-backs mixed into a whole game: the finished game's published log replays to its final
    digest, and its public replay (the web client's) shows each take-back and the restored state at its step."""
    table = Table(client, rdb, prefix, "opensky", 2, 41, options={"callsigns": "random"})
    rng = random.Random(41)
    taken = 0
    while table.view().status == "active":
        seat, result = table.decide(rng)
        if table.view(seat).take_back and rng.random() < 0.5:
            table.take_back(seat, result.version)
            taken += 1
    assert taken >= 1
    log = client.get_log(table.id)
    g = engine.get("opensky")
    final = replay_entries(g.new(2, log.seed, log.options), g, log.entries)
    assert final.digest() == log.final_digest == table.view().digest  # public once ended
    published = {"game_id": table.id, "game": "opensky", "players": 2, "seed": log.seed, "options": log.options,
                 "actions": log.entries, "version": log.version, "scores": log.scores, "winners": log.winners}
    events = replay_events(published)["events"]
    backs = [e for e in events if e["type"] == "taken_back"]
    assert len(backs) == taken
    step = next(i + 1 for i, e in enumerate(log.entries) if e["kind"] == "take_back")
    shown = replay_step(published, step)
    restored = log.entries[step - 1]["restores"]
    assert shown["view"] == json.loads(json.dumps(replay_step(published, restored)["view"]))


def test_a_bot_plays_on_after_a_take_back_and_its_stale_move_is_refused(make_instance, make_client, settings, broker,
                                                                         registry):
    """OpenSky's sealed bids with a bot seat: the human's bid may be taken back while the bot has not bid (OS-10.1);
    the bot's task for the old version is stale, a new one is queued, and the worker's path (the state loaded
    straight from Redis) acts on the restored state."""
    client = make_client(make_instance())
    admin = client.admin(settings.service_secret)
    game = client.create_game("opensky", 2, seed=61, options={"callsigns": "random"}, bots={1: "random"})
    gid, rng = game.game_id, random.Random(61)
    sync = run_redis(settings.redis_url, decode_responses=True)
    try:
        while True:
            view = client.get_game(gid, game.token(0))
            if view.view["phase"] == "bid" and view.to_act == [0, 1]:
                break
            assert view.status == "active"
            if 1 in view.to_act:  # what a worker does: load from Redis, decide, submit through GameAdmin
                loaded = load_game_sync(sync, settings.key_prefix, gid, registry.get)
                actions = [a.to_json() for a in loaded.state.legal_actions(1)]
                admin.submit_bot(gid, 1, _connecting(actions, view.view, rng), loaded.version)
            else:
                actions = client.legal_actions(gid, game.token(0)).actions
                client.submit(gid, game.token(0), _connecting(actions, view.view, rng), view.version)
        bid = next(a for a in client.legal_actions(gid, game.token(0)).actions if a["type"] == "bid")
        placed = client.submit(gid, game.token(0), bid, view.version)
        assert client.get_game(gid, game.token(0)).take_back and placed.to_act == [1]
        stale = load_game_sync(sync, settings.key_prefix, gid, registry.get)
        back = client.take_back(gid, game.token(0), placed.version)
        assert back.to_act == [0, 1]
        assert ("skyboard.bot_move", [gid, 1, back.version]) in _firsts(broker, settings)
        bot_action = stale.state.legal_actions(1)[0].to_json()
        refused = expect_error(grpc.StatusCode.ABORTED, admin.submit_bot, gid, 1, bot_action, stale.version)
        assert refused.reason == "stale_version"
        fresh = load_game_sync(sync, settings.key_prefix, gid, registry.get)
        assert fresh.version == back.version
        assert fresh.state.digest() == client.get_game(gid, game.token(0)).digest
        moved = admin.submit_bot(gid, 1, fresh.state.legal_actions(1)[0].to_json(), fresh.version)
        assert moved.version == back.version + 1 and moved.to_act == [0]
        assert not client.get_game(gid, game.token(0)).take_back  # another seat acted since
    finally:
        sync.close()


def _connecting(actions, view, rng):
    """A random decision, but aircraft go on routes between two callsign airports: every market is then flown
    nonstop by someone, so both seats bid (OS-9.6)."""
    callsigns = set(view["callsigns"].values())
    flown = [a for a in actions if a["type"] == "place_aircraft" and set(a["route"].split("-")) <= callsigns]
    return rng.choice(flown or actions)
