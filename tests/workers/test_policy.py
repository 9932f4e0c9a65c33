"""The bot queue's degradation policy (services/bot_policy.py) with a real Celery worker, Redis and service:
decisions a human waits on are taken before bot-only games' even when queued later, and levels think less
once the oldest human-waiting task is older than BOT_DEGRADE_AFTER_S, never below mcts-easy's budget."""

from __future__ import annotations

import json
import re
import time

import pytest
import redis as redis_sync

import ai
from ai.levels import floor_budget
from services.bot_policy import QueueAge, background_list, budget_scale
from services.celery_app import make_celery
from services.gamestate.bots import CeleryDispatcher
from services.workers.move import Mover


def test_budget_scale_and_its_floor():
    assert budget_scale(0.0, 3.0) == budget_scale(3.0, 3.0) == 1.0
    assert budget_scale(6.0, 3.0) == 0.5 and budget_scale(100.0, 0.0) == 1.0
    assert ai.scaled_budget("mcts-normal", "blueskies", 0.5) == ai.Budget(seconds=0.5, iterations=10_000)
    assert ai.scaled_budget("mcts-normal", "opensky", 0.5) == ai.Budget(seconds=0.5, iterations=500)  # game cap
    easy = floor_budget("opensky")  # mcts-easy's search, though mcts-easy plays greedy in OpenSky
    assert easy == ai.Budget(seconds=0.1, iterations=200)
    assert ai.game_budget("mcts-easy", "opensky") is None
    for level in ("mcts-normal", "mcts-hard"):
        shrunk = ai.scaled_budget(level, "opensky", 0.001)
        assert shrunk.seconds >= easy.seconds and shrunk.iterations >= easy.iterations
    assert ai.scaled_budget("greedy", "opensky", 0.1) is None


def test_human_waiting_decisions_are_taken_first(settings, start_worker, make_instance):
    """Three bot-only decisions queued, then one a human waits on: a real worker takes the human's first."""
    inst = make_instance(dispatch_bots=False)
    dispatcher = CeleryDispatcher(make_celery(settings), settings.bot_queue)
    import asyncio

    async def queue_all() -> None:
        for i in range(3):
            await dispatcher.dispatch(f"bg{i}", 0, 0, human=False)
        await dispatcher.dispatch("human", 1, 0, human=True)

    asyncio.run(queue_all())
    rdb = redis_sync.Redis.from_url(settings.redis_url)
    assert rdb.llen(settings.bot_queue) == 1 and rdb.llen(background_list(settings.bot_queue)) == 3
    worker = start_worker(inst.target)
    worker.wait_for("bot move bg2 ", timeout=60)
    order = re.findall(r"bot move (\w+) seat", worker.text())
    assert order[0] == "human" and sorted(order[1:]) == ["bg0", "bg1", "bg2"], order


@pytest.mark.parametrize("level", ["mcts-normal", "mcts-hard"])
def test_levels_think_less_when_the_human_queue_is_old(level, make_instance, make_client, settings):
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    sync = redis_sync.Redis.from_url(settings.redis_url, decode_responses=True)
    admin = client.admin(settings.service_secret)

    def decide(queued_s: float | None):
        sync.delete(settings.bot_queue)
        if queued_s is not None:  # a human-waiting task queued `queued_s` ago heads the queue
            sync.lpush(settings.bot_queue, json.dumps({"headers": {"id": "x", "sent_at": time.time() - queued_s}}))
        game = client.create_game("opensky", 2, seed=3, bots={0: level, 1: level})
        seat = client.get_game(game.game_id).to_act[0]
        mover = Mover(sync, settings.key_prefix, admin, queue_age=QueueAge(sync, settings.bot_queue),
                      degrade_after_s=3.0)
        return mover.play(game.game_id, seat, 0)

    calm = decide(None)
    assert calm.outcome == "submitted" and calm.scale == 1.0
    old = decide(12.0)  # 4x the 3 s threshold: a quarter of the budget, 250 of OpenSky's 1,000 iterations
    assert old.outcome == "submitted" and old.scale == pytest.approx(0.25, abs=0.02)
    assert old.iterations <= 260 and old.seconds <= ai.game_budget(level, "opensky").seconds * 0.25 + 0.2
    very_old = decide(600.0)  # never below mcts-easy's budget (0.1 s, 200 iterations)
    assert very_old.scale < 0.01 and very_old.iterations <= 200
    sync.delete(settings.bot_queue)
    sync.close()
