"""Turn clock: an expired decision gets the game's default (TOY-5: lowest card) exactly once."""

from __future__ import annotations

import json
import time

from engine.core import canonical_json


def _wait_finished(client, game_id, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = client.get_game(game_id)
        if view.status == "finished":
            return view
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not finish by the clock")


def test_turn_clock_applies_the_default_once_with_two_instances(make_instance, make_client, rdb, prefix, registry):
    a, b = make_client(make_instance()), make_client(make_instance())  # both run a sweeper
    game = a.create_game("toybids", 2, seed=41, options={"rounds": 3}, turn_seconds=0.4)
    start = a.get_game(game.game_id, game.token(0))
    assert start.deadline_ms > 0 and start.turn_seconds == 0.4
    hand0 = start.view["hand"]
    a.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[-1]}, 0)  # seat 0 plays in time
    final = _wait_finished(b, game.game_id)  # every other decision is left to the clock
    entries = [json.loads(e) for e in rdb.lrange(f"{prefix}game:{{{game.game_id}}}:log", 0, -1)]
    # 3 rounds x 2 seats = 6 decisions: one by seat 0, five by the clock, none twice
    assert final.version == 6 == len(entries)
    assert [e["kind"] for e in entries] == ["move"] + ["timeout"] * 5
    assert [e["v"] for e in entries] == list(range(1, 7))
    # each default was the lowest card of that seat's hand at that moment (replay to check)
    toy = registry.get("toybids")
    state = toy.new(2, 41, {"rounds": 3})
    for entry in entries:
        if entry["kind"] == "timeout":
            assert entry["action"] == state.default_action(entry["seat"]).to_json()
        state.apply(entry["seat"], toy.action_from_json(entry["action"]))
    assert state.digest() == final.digest
    # watchers are told: a public "timeout" event per expiry
    updates = list(a.watch(game.game_id))
    timeouts = [u for u in updates if u.kind == "timeout"]
    assert len(timeouts) == 5
    assert all(u.events[0] == {"type": "timeout", "seat": u.actor} for u in timeouts)
    assert canonical_json(final.winners) == canonical_json(updates[-1].winners)


def test_no_clock_means_no_timeouts(make_instance, make_client):
    client = make_client(make_instance())
    game = client.create_game("toybids", 2, seed=42)
    assert client.get_game(game.game_id).deadline_ms == 0
    time.sleep(0.3)
    assert client.get_game(game.game_id).version == 0
