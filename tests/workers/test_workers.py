"""Real Celery worker processes on the real Redis play the bot seats of games created through the
game-state service; duplicated tasks and a worker killed holding a decision leave every game correct."""

from __future__ import annotations

import json
import random
import time

import pytest
from prometheus_client import CollectorRegistry, multiprocess

import ai
import engine
from services.common.bot_policy import background_list, human_lists
from services.common.celery_app import make_celery
from services.gamestate.bots import BOT_MOVE_TASK
from services.gamestate.client_sync import GameClient
from services.gamestate.keys import Keys
from services.workers.move import Mover, idempotency_key
from tests.redis_required import test_redis as run_redis

LINEUPS = {
    "opensky": ["random", "mcts-easy"],
    "blueskies": ["random", "fast"],  # the learned model (ai/policy), loaded by the worker
    "aeroplanes": ["random", "random", "fast"],  # a 100-iteration guided search (ai/games/aeroplanes.py)
}


def _wait_finished(client: GameClient, game_id: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.get_game(game_id).status == "finished":
            return
        time.sleep(0.1)
    state = client.get_game(game_id)
    raise AssertionError(f"{game_id} not finished after {timeout}s (version {state.version}, to_act {state.to_act})")


def _assert_log_replays(client: GameClient, game_id: str) -> None:
    """The recorded game is correct: one entry per version, every action legal, same final digest."""
    log = client.get_log(game_id)
    game = engine.get(log.game)
    state = game.new(log.players, log.seed, log.options)
    assert len(log.entries) == log.version
    for entry in log.entries:
        state.apply(entry["seat"], game.action_from_json(entry["action"]))
    assert state.is_over()
    assert state.digest() == log.final_digest


def _moves(prom_dir) -> dict[str, float]:
    reg = CollectorRegistry()
    multiprocess.MultiProcessCollector(reg, path=str(prom_dir))
    out: dict[str, float] = {}
    for metric in reg.collect():
        for sample in metric.samples:
            if sample.name == "skyboard_bot_moves_total":
                out[sample.labels["outcome"]] = out.get(sample.labels["outcome"], 0) + sample.value
    return out


@pytest.mark.parametrize("name", engine.games())
def test_a_real_worker_plays_every_bot_seat_of_a_full_game(name, make_instance, make_client, start_worker):
    inst = make_instance()
    client = make_client(inst)
    lineup = LINEUPS.get(name, ["random"] * engine.get(name).min_players)
    created = client.create_game(name, len(lineup), seed=7, bots=dict(enumerate(lineup)))
    start_worker(inst.admin_target)
    _wait_finished(client, created.game_id, timeout=150)
    _assert_log_replays(client, created.game_id)


def test_duplicated_tasks_are_harmless(make_instance, make_client, start_worker, settings, prom_dir):
    """Every decision of the first moves is queued twice more; the game still plays each once."""
    inst = make_instance()
    client = make_client(inst)
    created = client.create_game("opensky", 2, seed=11, bots={0: "random", 1: "random"})
    gid = created.game_id
    app = make_celery(settings)
    for _ in range(2):
        app.send_task(BOT_MOVE_TASK, args=[gid, 0, 0], queue=settings.bot_queue)
    start_worker(inst.admin_target)
    _wait_finished(client, gid, timeout=120)
    _assert_log_replays(client, gid)
    version = client.get_game(gid).version
    # the worker counts a move when the service's reply reaches it, a moment after the game's last commit is
    # visible: wait for the count to settle (it must reach the version exactly, and never pass it)
    deadline = time.monotonic() + 15
    moves = _moves(prom_dir)
    while moves.get("submitted", 0) < version and time.monotonic() < deadline:
        time.sleep(0.1)
        moves = _moves(prom_dir)
    assert moves.get("stale", 0) >= 2, moves
    assert moves.get("submitted", 0) == version, moves


def test_a_redelivery_racing_the_first_delivery_replays_its_outcome(make_instance, make_client, settings, rdb):
    """Two deliveries load the same version; the second submits after the first: same key, same
    action (seeded by game, seat and version), so the service replays the first outcome."""
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    created = client.create_game("opensky", 2, seed=5, bots={0: "mcts-easy", 1: "random"})
    gid = created.game_id
    sync = run_redis(settings.redis_url, decode_responses=True)
    budget = ai.Budget(iterations=30)
    first = Mover(sync, settings.key_prefix, client.admin(settings.service_secret), budget=budget)
    second_client = GameClient(inst.admin_target)
    second = Mover(sync, settings.key_prefix, second_client.admin(settings.service_secret), budget=budget)
    results = {}
    real_submit = second.admin.submit_bot

    def submit_after_the_other(*args, **kwargs):
        results["first"] = first.play(gid, 0, 0)
        return real_submit(*args, **kwargs)

    second.admin.submit_bot = submit_after_the_other
    results["second"] = second.play(gid, 0, 0)
    assert results["first"].outcome == "submitted"
    assert results["second"].outcome == "duplicate"
    assert results["first"].action == results["second"].action
    assert client.get_game(gid).version == 1
    assert first.play(gid, 0, 0).outcome == "stale"
    assert rdb.exists(Keys(settings.key_prefix).idem(gid, 0, idempotency_key(gid, 0, 0)))
    second_client.close()
    sync.close()


def test_a_worker_killed_holding_a_decision_does_not_stall_the_game(make_instance, make_client, start_worker, settings,
                                                                    rdb, broker):
    """A worker dies holding a bot's decision: frozen (SIGSTOP) before the decision is queued, so it may take the
    message (its pending pop) but can never move, then SIGKILLed. The message is then gone from the broker, as when
    a worker took it (kombu's Redis transport restores an unacknowledged message only after its visibility timeout,
    an hour). The game-state service re-queues the decision after the level's budget (1 s) plus BOT_REDISPATCH_S,
    and the next worker plays it. (No level's decision is slow enough any more to kill a worker in the middle
    of one reliably: the longest search, 1,000 guided iterations, takes a tenth of a second.)"""
    inst = make_instance(bot_redispatch_s=0.5)
    client = make_client(inst)
    created = client.create_game("blueskies", 2, seed=3, bots={1: "mcts-normal"})
    gid = created.game_id
    human = created.token(0)
    rng = random.Random(3)
    doomed = start_worker(inst.admin_target)
    doomed.freeze()
    while 1 not in client.get_game(gid).to_act:
        legal = client.legal_actions(gid, human)
        client.submit(gid, human, rng.choice(legal.actions), legal.version)
    pending = client.get_game(gid).version
    time.sleep(0.5)  # the decision is queued (or already in the frozen worker's hands)
    doomed.kill()
    queues = [settings.bot_queue, *human_lists(settings.bot_queue), background_list(settings.bot_queue)]
    broker.delete(*queues)  # whatever the dead worker had not popped is lost with it too
    assert "succeeded" not in doomed.text(), "the frozen worker cannot have moved"
    assert client.get_game(gid).version == pending, "the killed worker must not have moved"
    start_worker(inst.admin_target)
    deadline = time.monotonic() + 30
    while client.get_game(gid).version == pending and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.get_game(gid).version > pending, "the decision was re-queued and played"
    moves = [json.loads(entry) for entry in rdb.lrange(Keys(settings.key_prefix).log(gid), pending, -1)]
    assert moves and all(m["seat"] == 1 and m["kind"] == "move" for m in moves)  # the bot's turn (its setup buys)


def test_a_task_that_has_nothing_to_do_exits_without_submitting(make_instance, make_client, settings):
    """Unknown game, a human seat, a bot seat that need not act, a stale version: no submission."""
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    created = client.create_game("opensky", 2, seed=13, bots={1: "random"})
    gid = created.game_id
    sync = run_redis(settings.redis_url, decode_responses=True)
    mover = Mover(sync, settings.key_prefix, client.admin(settings.service_secret))
    assert client.get_game(gid).to_act == [0]
    assert mover.play("no-such-game", 1, 0).outcome == "unknown_game"
    assert mover.play(gid, 0, 0).outcome == "not_a_bot"
    assert mover.play(gid, 1, 0).outcome == "not_to_act"
    assert mover.play(gid, 1, 5).outcome == "stale"
    assert client.get_game(gid).version == 0
    sync.close()
