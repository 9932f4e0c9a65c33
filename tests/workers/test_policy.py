"""The bot queue's policy (services/common/bot_policy.py) with a real Celery worker, Redis and service: a game's
follow-up decisions are taken before other games' first decisions, and those before bot-only games', even when
queued later (in FIFO order among human-waiting ones with BOT_FOLLOW_UPS_FIRST off); levels think less once the
oldest human-waiting task (of both human lists) is older than BOT_DEGRADE_AFTER_S, never below mcts-easy's
budget."""

from __future__ import annotations

import asyncio
import gc
import json
import re
import time

import pytest

import ai
from ai.levels import floor_budget
from services.common.bot_policy import QueueAge, background_list, budget_scale, human_lists
from services.common.celery_app import make_celery
from services.gamestate.bots import CeleryDispatcher
from services.workers.move import Mover


def test_budget_scale_and_its_floor():
    assert budget_scale(0.0, 3.0) == budget_scale(3.0, 3.0) == 1.0
    assert budget_scale(6.0, 3.0) == 0.5 and budget_scale(100.0, 0.0) == 1.0
    # mcts-hard plays as mcts-normal in every game that searches (ai.games): its shrunk budget is that one's
    assert ai.scaled_budget("mcts-hard", "blueskies", 0.5) == ai.Budget(seconds=0.5, iterations=500)
    # Blue Skies and Aeroplanes play mcts-normal as the guided search, capped at 1,000 iterations (its profile's search)
    assert ai.scaled_budget("mcts-normal", "blueskies", 0.5) == ai.Budget(seconds=0.5, iterations=500)
    assert ai.scaled_budget("mcts-normal", "aeroplanes", 0.5) == ai.Budget(seconds=0.5, iterations=500)
    assert ai.scaled_budget("mcts-normal", "opensky", 0.5) is None  # plays the fast level there: nothing to shrink
    easy = floor_budget("blueskies")  # mcts-easy's search, though mcts-easy plays greedy in Blue Skies
    assert easy == ai.Budget(seconds=0.1, iterations=200)
    assert ai.game_budget("mcts-easy", "blueskies") is None
    for level in ("mcts-normal", "mcts-hard"):
        shrunk = ai.scaled_budget(level, "blueskies", 0.001)
        assert shrunk.seconds >= easy.seconds and shrunk.iterations >= easy.iterations
    assert ai.scaled_budget("greedy", "opensky", 0.1) is None


@pytest.mark.parametrize("follow_ups_first", [True, False])
def test_human_waiting_decisions_are_taken_first(follow_ups_first, settings, start_worker, make_instance, broker):
    """Three bot-only decisions queued, then two first decisions a human waits on, then a follow-up: a real worker
    takes the follow-up, then the first decisions in their order, then the bot-only games'. With the follow-up
    tier off the follow-up is an ordinary human-waiting decision: after the two queued before it."""
    inst = make_instance(dispatch_bots=False)
    dispatcher = CeleryDispatcher(make_celery(settings), settings.bot_queue, follow_ups_first=follow_ups_first)

    async def queue_all() -> None:
        for i in range(3):
            await dispatcher.dispatch(f"bg{i}", 0, 0, human=False)
        for i in range(2):
            await dispatcher.dispatch(f"first{i}", 1, 0, human=True)
        await dispatcher.dispatch("followup", 1, 0, human=True, follow_up=True)

    asyncio.run(queue_all())
    follow_ups, firsts = human_lists(settings.bot_queue)  # the queues live on the Celery broker
    if follow_ups_first:
        assert (broker.llen(follow_ups), broker.llen(firsts)) == (1, 2)
    else:
        assert (broker.llen(follow_ups), broker.llen(firsts)) == (0, 3)
    assert broker.llen(background_list(settings.bot_queue)) == 3
    worker = start_worker(inst.admin_target)
    worker.wait_for("bot move bg2 ", timeout=60)
    order = re.findall(r"bot move (\w+) seat", worker.text())
    humans = ["followup", "first0", "first1"] if follow_ups_first else ["first0", "first1", "followup"]
    assert order[:3] == humans and sorted(order[3:]) == ["bg0", "bg1", "bg2"], order
    priorities = dict(re.findall(r"bot move (\w+) seat .*, priority (\S+)\)", worker.text()))  # logged per task
    assert priorities == {"followup": "0" if follow_ups_first else "3", "first0": "3", "first1": "3",
                          "bg0": "9", "bg1": "9", "bg2": "9"}


def _play_until_follow_up(client, admin, redis, prefix: str) -> tuple[str, int]:
    """An OpenSky game of a human (seat 0) against a `random` bot (seat 1), played as a worker would but by hand,
    until a bot's move leaves the bot to act again: (game id, the version of that follow-up decision)."""
    from engine import get as get_game
    from services.workers.loader import load_game_sync

    for seed in range(1, 20):
        game = client.create_game("opensky", 2, seed=seed, bots={1: "random"})
        gid = game.game_id
        while True:
            view = client.get_game(gid)
            if view.status != "active":
                break
            seat = view.to_act[0]
            if seat == 0:
                legal = client.legal_actions(gid, game.token(0))
                client.submit(gid, game.token(0), legal.actions[0], legal.version)
                continue
            state = load_game_sync(redis, prefix, gid, get_game).state
            reply = admin.submit_bot(gid, 1, state.legal_actions(1)[0].to_json(), view.version)
            if reply.to_act == [1]:
                return gid, reply.version
    raise AssertionError("no OpenSky game gave its bot two decisions in a row")


@pytest.mark.parametrize("follow_ups_first", [True, False])
def test_a_bots_commit_is_served_before_other_games_first_decisions(follow_ups_first, settings, start_worker,
                                                                     make_instance, make_client, rdb):
    """End to end: real games on a real service, a real worker. Three games' first decisions (their bot moves
    first) and a bot-only game are queued; then, in another game, a bot's move leaves the bot to act again (its
    follow-up). The worker starts on that follow-up before the three earlier first decisions, and on those before
    the bot-only game's; with BOT_FOLLOW_UPS_FIRST off it starts on the three first."""
    inst = make_instance(bot_follow_ups_first=follow_ups_first)
    client = make_client(inst)
    admin = client.admin(settings.service_secret)
    firsts = [client.create_game("opensky", 2, seed=40 + i, bots={0: "random"}).game_id for i in range(3)]
    bots_only = client.create_game("opensky", 2, seed=50, bots={0: "random", 1: "random"}).game_id
    gid, version = _play_until_follow_up(client, admin, rdb, settings.key_prefix)  # games: the run's Redis
    worker = start_worker(inst.admin_target)
    worker.wait_for(f"bot move {bots_only} seat 0 version 0:", timeout=60)
    started = re.findall(r"bot move (\S+) seat (\d+) version (\d+): (\w+)", worker.text())
    position = {(g, int(v)): i for i, (g, _seat, v, _outcome) in reversed(list(enumerate(started)))}
    follow_up, first = position[(gid, version)], [position[(g, 0)] for g in firsts]
    assert first == sorted(first) and max(first) < position[(bots_only, 0)], started  # FIFO, before bot-only
    if follow_ups_first:
        assert follow_up == 0 and follow_up < min(first), started
    else:
        assert follow_up > max(first), started


def test_queue_age_is_the_oldest_of_both_human_lists(settings, broker):
    """The degradation policy's age reads the follow-ups' and the first decisions' lists (not the bot-only one)."""
    sync = broker  # the queues live on the Celery broker (a standalone Redis beside a cluster)
    follow_ups, firsts = human_lists(settings.bot_queue)
    now = time.time()

    def message(sent: float) -> str:
        return json.dumps({"headers": {"id": "x", "sent_at": sent}})

    def age() -> float:
        return QueueAge(sync, settings.bot_queue, clock=lambda: now).age()

    assert age() == 0.0
    sync.lpush(background_list(settings.bot_queue), message(now - 100))  # bot-only games never count
    assert age() == 0.0
    sync.lpush(follow_ups, message(now - 2))
    assert age() == pytest.approx(2)
    sync.lpush(firsts, message(now - 9), message(now - 1))  # the oldest of a list is its last element
    assert age() == pytest.approx(9)
    sync.rpop(firsts)
    sync.lpush(follow_ups, message(now))
    assert age() == pytest.approx(2)  # the follow-ups' oldest (2 s) is now older than the first list's (1 s)
    for key in (follow_ups, firsts, background_list(settings.bot_queue)):
        sync.delete(key)


@pytest.mark.parametrize("level", ["mcts-normal", "mcts-hard"])
def test_levels_think_less_when_the_human_queue_is_old(level, make_instance, make_client, settings, rdb, broker):
    """Games are read from the run's Redis (a cluster under `make test-cluster`), the queue's age from the Celery
    broker, as services/workers/tasks.py does (docs/decisions/redis-cluster.md)."""
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    admin = client.admin(settings.service_secret)

    def decide(queued_s: float | None):
        broker.delete(settings.bot_queue)
        game = client.create_game("blueskies", 2, seed=3, bots={0: level, 1: level})  # OpenSky's levels don't search
        seat = client.get_game(game.game_id).to_act[0]
        mover = Mover(rdb, settings.key_prefix, admin, queue_age=QueueAge(broker, settings.bot_queue),
                      degrade_after_s=3.0)
        # a full collection of this long test process's heap (0.6 s once, late in `make test`) must not fall inside
        # the timed decision: the budget is what is checked, not the test runner's garbage collector
        gc.collect()
        # the task is queued last, right before the decision reads its age, so that a slow game creation on a
        # loaded machine does not age it past `queued_s` (it read 13.6 s for 12 at load 10)
        if queued_s is not None:  # a human-waiting task queued `queued_s` ago heads the queue
            broker.lpush(settings.bot_queue, json.dumps({"headers": {"id": "x", "sent_at": time.time() - queued_s}}))
        return mover.play(game.game_id, seat, 0)

    calm = decide(None)
    assert calm.outcome == "submitted" and calm.scale == 1.0
    old = decide(12.0)  # 4x the 3 s threshold: a quarter of the budget (its seconds and its iteration cap)
    assert old.outcome == "submitted" and old.scale == pytest.approx(0.25, abs=0.02)
    budget = ai.game_budget(level, "blueskies")
    assert old.iterations <= budget.iterations * 0.25 + 10
    # the search stops at a quarter of its seconds; what the clock adds around it (the model, the prior, a pause of
    # a busy 2-core machine: 0.42 s once in CI) stays well under the full budget
    assert old.seconds <= budget.seconds * 0.25 + 0.5 < budget.seconds
    very_old = decide(600.0)  # down to mcts-easy's budget (0.1 s, 200 iterations), never below
    floor = floor_budget("blueskies")
    assert very_old.scale < 0.01 and very_old.seconds <= floor.seconds + 0.15
    assert very_old.iterations <= max(floor.iterations, budget.iterations * very_old.scale) + 10
    broker.delete(settings.bot_queue)
