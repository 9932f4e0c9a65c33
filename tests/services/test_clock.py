"""Turn clock: an expired decision gets the game's default (TOY-5: lowest card) exactly once."""

from __future__ import annotations

import json
import time

from engine.core import canonical_json
from services.gamestate.keys import Keys


def _wait_finished(client, game_id, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = client.get_game(game_id)
        if view.status == "finished":
            return view
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not finish by the clock")


def test_turn_clock_applies_the_default_once_with_two_instances(make_instance, make_client, rdb, prefix, registry):
    # both run a sweeper; nobody is abandoned (else the third timeout in a row would end a 2-player game by forfeit)
    a, b = (make_client(make_instance(abandon_after_timeouts=0)) for _ in range(2))
    game = a.create_game("toybids", 2, seed=41, options={"rounds": 3}, turn_seconds=0.3)
    start = a.get_game(game.game_id)
    assert start.deadline_ms > 0 and start.turn_seconds == 0.3
    final = _wait_finished(b, game.game_id)  # nobody plays: every decision is left to the clock
    entries = [json.loads(e) for e in rdb.lrange(Keys(prefix).log(game.game_id), 0, -1)]
    # 3 rounds x 2 seats = 6 decisions, each taken once by the clock, never twice
    assert final.version == 6 == len(entries)
    assert [e["kind"] for e in entries] == ["timeout"] * 6
    assert [e["v"] for e in entries] == list(range(1, 7))
    assert [sorted(e["seat"] for e in entries[i : i + 2]) for i in (0, 2, 4)] == [[0, 1]] * 3
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
    assert len(timeouts) == 6
    assert all(u.events[0] == {"type": "timeout", "seat": u.actor} for u in timeouts)
    assert canonical_json(final.winners) == canonical_json(updates[-1].winners)


def test_no_clock_means_no_timeouts(make_instance, make_client):
    client = make_client(make_instance())
    game = client.create_game("toybids", 2, seed=42)
    assert client.get_game(game.game_id).deadline_ms == 0
    time.sleep(0.3)
    assert client.get_game(game.game_id).version == 0


def test_a_sealed_choice_clock_runs_on_while_others_answer(make_instance, make_client, rdb, prefix):
    """Seat 1's clock for the round's sealed bid is not restarted by seat 0's bid; seat 0's own is."""
    client = make_client(make_instance())
    client.catalog()  # connect first: the clock starts at creation
    game = client.create_game("toybids", 2, seed=43, turn_seconds=1.0)
    first = client.get_game(game.game_id, game.token(0))
    assert set(first.deadlines) == {0, 1} and first.deadline_ms == min(first.deadlines.values())
    time.sleep(0.1)
    client.submit(game.game_id, game.token(0), {"type": "bid", "card": first.view["hand"][0]}, 0)
    after = client.get_game(game.game_id)
    assert after.deadlines == {1: first.deadlines[1]}  # runs on, not restarted
    for _ in range(100):  # the clock takes seat 1's bid once its own deadline passed
        if client.get_game(game.game_id).version >= 2:
            break
        time.sleep(0.05)
    entry = json.loads(rdb.lindex(Keys(prefix).log(game.game_id), 1))
    assert entry["kind"] == "timeout" and entry["seat"] == 1 and entry["at_ms"] >= first.deadlines[1]
    fresh = client.get_game(game.game_id)  # a new round: both seats get a fresh clock
    assert set(fresh.deadlines) == {0, 1} and min(fresh.deadlines.values()) >= entry["at_ms"] + 1000
