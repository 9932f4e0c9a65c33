"""Bot seats: a skyboard.bot_move task is queued by name whenever a bot seat must act; a worker
loads the state straight from Redis and acts through the internal GameAdmin service (service credential)
with an idempotency key."""

from __future__ import annotations

import base64
import json
import time

import grpc
import pytest

from services.common.bot_policy import background_list, human_lists
from services.gamestate.keys import Keys
from services.workers.loader import load_game_sync
from tests.redis_required import test_redis as run_redis
from tests.services.helpers import expect_error


def _queued(broker, queue: str) -> list[tuple[str, list]]:
    """(task name, args) of the Celery messages waiting in `queue`, oldest first."""
    out = []
    for raw in reversed(broker.lrange(queue, 0, -1)):  # kombu LPUSHes, workers BRPOP
        message = json.loads(raw)
        body = json.loads(base64.b64decode(message["body"]))
        out.append((message["headers"]["task"], body[0]))
    return out


def _follow_ups(broker, settings) -> list[tuple[str, list]]:
    """The queued follow-ups (priority 0: a human waits, queued by a bot's or the platform's commit)."""
    return _queued(broker, human_lists(settings.bot_queue)[0])


def _firsts(broker, settings) -> list[tuple[str, list]]:
    """The queued first decisions (priority 3: a human waits, queued by a human's move, a creation, a re-dispatch)."""
    return _queued(broker, human_lists(settings.bot_queue)[1])


def test_bot_seat_tasks_are_queued_and_the_worker_path_acts(make_instance, make_client, rdb, settings, registry,
                                                             broker):
    client = make_client(make_instance())
    game = client.create_game("toybids", 3, seed=51, bots={1: "random", 2: "mcts-normal"})
    assert [s.bot for s in game.seats] == [None, "random", "mcts-normal"]
    assert game.seats[0].token and game.seats[1].token is None and game.seats[2].token is None
    gid = game.game_id
    assert _firsts(broker, settings) == [("skyboard.bot_move", [gid, 1, 0]), ("skyboard.bot_move", [gid, 2, 0])]

    hand0 = client.get_game(gid, game.token(0)).view["hand"]
    client.submit(gid, game.token(0), {"type": "bid", "card": hand0[0]}, 0)
    assert _firsts(broker, settings)[2:] == [
        ("skyboard.bot_move", [gid, 1, 1]),
        ("skyboard.bot_move", [gid, 2, 1]),
    ]

    # what a worker does for (gid, 1, 1): load from Redis without gRPC, decide, submit idempotently
    sync = run_redis(settings.redis_url, decode_responses=True)
    loaded = load_game_sync(sync, settings.key_prefix, gid, registry.get)
    sync.close()
    assert loaded.version == 1 and loaded.state.digest() == client.get_game(gid, game.token(0)).digest
    assert loaded.meta.bots == {1: "random", 2: "mcts-normal"}
    action = loaded.state.legal_actions(1)[0].to_json()
    admin = client.admin(settings.service_secret)
    first = admin.submit_bot(gid, 1, action, loaded.version, idempotency_key=f"{gid}:1:1")
    duplicate = admin.submit_bot(gid, 1, action, loaded.version, idempotency_key=f"{gid}:1:1")
    assert first.version == 2 and duplicate.replayed and duplicate.version == 2
    assert client.get_game(gid).version == 2
    # a bot's move leaves the other bot to act while the human waits: a follow-up, ahead of first decisions
    assert _follow_ups(broker, settings) == [("skyboard.bot_move", [gid, 2, 2])] and len(_firsts(broker, settings)) == 4

    # the internal call acts only for bot seats, and only with the service credential
    expect_error(grpc.StatusCode.FAILED_PRECONDITION, admin.submit_bot, gid, 1, action, 2)  # already bid
    expect_error(grpc.StatusCode.PERMISSION_DENIED, admin.submit_bot, gid, 0, action, 2)  # a human seat
    wrong = client.admin("another-secret-of-thirty-two-characters!")
    expect_error(grpc.StatusCode.UNAUTHENTICATED, wrong.submit_bot, gid, 2, action, 2)


def test_load_game_sync_replays_the_log_tail_after_the_snapshot(make_instance, make_client, settings, registry):
    client = make_client(make_instance(snapshot_every=4))
    game = client.create_game("toybids", 2, seed=52, options={"rounds": 4})
    for version in range(3):  # versions 1-3: the snapshot stays at 0
        seat = client.get_game(game.game_id).to_act[0]
        action = client.legal_actions(game.game_id, game.token(seat)).actions[-1]
        client.submit(game.game_id, game.token(seat), action, version)
    sync = run_redis(settings.redis_url, decode_responses=True)
    assert sync.hget(Keys(settings.key_prefix).snap(game.game_id), "version") == "0"
    loaded = load_game_sync(sync, settings.key_prefix, game.game_id, registry.get)
    sync.close()
    assert loaded.version == 3 and loaded.state.digest() == client.get_game(game.game_id, game.token(0)).digest


def test_a_game_waiting_on_a_bot_is_requeued_once_per_period_across_instances(make_instance, make_client, rdb,
                                                                               settings, broker):
    a = make_client(make_instance(bot_redispatch_s=0.4))
    make_instance(bot_redispatch_s=0.4)  # a second sweeper racing for the same due entries
    game = a.create_game("toybids", 2, seed=53, bots={1: "random"})
    hand0 = a.get_game(game.game_id, game.token(0)).view["hand"]
    start = time.monotonic()
    a.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 0)  # now only the bot must act
    time.sleep(1.0)
    queued = _firsts(broker, settings)  # the creation's, the human's move's, then the re-dispatches (first decisions)
    assert _follow_ups(broker, settings) == []
    elapsed = time.monotonic() - start
    assert queued[:2] == [("skyboard.bot_move", [game.game_id, 1, 0]), ("skyboard.bot_move", [game.game_id, 1, 1])]
    assert set(map(str, queued[2:])) == {str(("skyboard.bot_move", [game.game_id, 1, 1]))}
    # re-dispatches come at least one period apart whatever the number of instances
    assert 1 <= len(queued) - 2 <= elapsed // 0.4


def test_the_redispatch_wait_is_the_waiting_level_budget_plus_the_margin(make_instance, make_client, rdb, settings):
    """A slow level is not re-queued while it may still be thinking: due = its budget + BOT_REDISPATCH_S."""
    from services.gamestate.bots import level_budget_seconds
    from services.gamestate.keys import Keys, bucket_of

    assert level_budget_seconds("random") == 0.0 and level_budget_seconds("mcts-normal") == 1.0
    assert level_budget_seconds("no-such-level") == 0.0
    client = make_client(make_instance(bot_redispatch_s=7.0))
    before = time.time() * 1000
    fast = client.create_game("toybids", 2, seed=54, bots={1: "random"}).game_id
    slow = client.create_game("toybids", 2, seed=55, bots={1: "mcts-normal"}).game_id
    after = time.time() * 1000
    keys = Keys(settings.key_prefix)
    due = {g: rdb.zscore(keys.bot_wait(bucket_of(g)), g) for g in (fast, slow)}
    assert before + 7_000 <= due[fast] <= after + 7_000
    assert before + 8_000 <= due[slow] <= after + 8_000


def test_a_service_killed_between_commit_and_queueing_still_leaves_the_bot_a_timer(make_instance, make_client, rdb,
                                                                                   settings, broker):
    """The creation and every commit arm the re-dispatch timer in the same atomic write as the new state.
    Instance `a` stands for a service SIGKILLed right after each commit: its post-commit work (queueing the
    bot move, arming the timer) never runs. Another instance's sweeper must still queue the bot's move."""
    a = make_instance(bot_redispatch_s=0.4, sweeper=False)

    async def killed_after_commit(*args, **kwargs) -> None:
        return None

    a.running.service.pipeline.settle = killed_after_commit
    client = make_client(a)
    game = client.create_game("toybids", 2, seed=56, bots={1: "random"})
    assert _firsts(broker, settings) == []  # the "killed" instance queued nothing
    make_instance(bot_redispatch_s=0.4)  # a surviving instance, whose sweeper finds the armed timer
    deadline = time.monotonic() + 10
    while not _firsts(broker, settings) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _firsts(broker, settings)[:1] == [("skyboard.bot_move", [game.game_id, 1, 0])]

    hand0 = client.get_game(game.game_id, game.token(0)).view["hand"]
    client.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 0)  # only the bot acts now
    target = ("skyboard.bot_move", [game.game_id, 1, 1])
    while target not in _firsts(broker, settings) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert target in _firsts(broker, settings)


def test_claiming_a_due_bot_wait_moves_it_on_rather_than_removing_it(make_instance, rdb, settings):
    """An instance killed right after its claim must not take the timer with it: the claim re-arms it one
    period on, and only a release with that same due time (nothing re-armed it since) drops it."""
    from services.gamestate.keys import Keys, bucket_of

    inst = make_instance(sweeper=False)
    store = inst.running.service.store
    key = Keys(settings.key_prefix).bot_wait(bucket_of("g-claim"))
    inst.run(store.arm_bot_wait("g-claim", 1_000))
    assert inst.run(store.claim_bot_wait("g-claim", 2_000, 5_000)) is True
    assert rdb.zscore(key, "g-claim") == 5_000
    assert inst.run(store.claim_bot_wait("g-claim", 2_000, 9_000)) is False  # not due again before 5,000
    inst.run(store.release_bot_wait("g-claim", 4_000))  # someone re-armed it: a stale release keeps it
    assert rdb.zscore(key, "g-claim") == 5_000
    inst.run(store.release_bot_wait("g-claim", 5_000))
    assert rdb.zscore(key, "g-claim") is None


def test_decisions_a_human_waits_on_are_queued_before_bot_only_games(make_instance, make_client, rdb, settings, broker):
    """Celery priority 3 (kombu's priority-3 list, which workers pop before the priority-9 one) for a human-waiting
    game's first decisions, 9 (the priority-9 list) in a game of bots only; every task carries the time it was
    queued."""
    from services.common.bot_policy import SENT_AT

    client = make_client(make_instance())
    before = time.time()
    bots_only = client.create_game("toybids", 2, seed=57, bots={0: "random", 1: "random"}).game_id
    with_human = client.create_game("toybids", 3, seed=58, bots={1: "random", 2: "random"})
    after = time.time()
    assert _firsts(broker, settings) == [("skyboard.bot_move", [with_human.game_id, 1, 0]),
                                      ("skyboard.bot_move", [with_human.game_id, 2, 0])]
    assert _queued(broker, background_list(settings.bot_queue)) == [
        ("skyboard.bot_move", [bots_only, 0, 0]), ("skyboard.bot_move", [bots_only, 1, 0])]
    follow_ups, firsts = human_lists(settings.bot_queue)
    for raw in broker.lrange(firsts, 0, -1) + broker.lrange(background_list(settings.bot_queue), 0, -1):
        assert before <= json.loads(raw)["headers"][SENT_AT] <= after
    assert broker.llen(follow_ups) == 0
    # a human who resigns to a bot leaves a game of bots only (3 players: it is played out,
    # services/common/standings.py):
    # its decisions go to the back
    client.resign(with_human.game_id, with_human.token(0), bot_level="random")
    assert ("skyboard.bot_move", [with_human.game_id, 0, 1]) in _queued(broker, background_list(settings.bot_queue))


def test_the_tier_lists_are_kombus_priority_lists():
    """The list names the policy reads are the ones kombu's Redis transport writes (its default priority steps and
    separator, from the installed kombu), and the three tiers are distinct steps in consuming order."""
    from types import SimpleNamespace

    from kombu.transport import redis as kombu_redis

    from services.common import bot_policy

    assert tuple(kombu_redis.PRIORITY_STEPS) == bot_policy.KOMBU_PRIORITY_STEPS
    assert kombu_redis.Channel.sep == bot_policy.KOMBU_PRIORITY_SEP
    channel = SimpleNamespace(priority_steps=kombu_redis.PRIORITY_STEPS, sep=kombu_redis.Channel.sep)
    channel.priority = lambda n: kombu_redis.Channel.priority(channel, n)
    tiers = (bot_policy.FOLLOW_UP_PRIORITY, bot_policy.FIRST_PRIORITY, bot_policy.BACKGROUND_PRIORITY)
    kombu_lists = [kombu_redis.Channel._q_for_pri(channel, "bots", p) for p in tiers]
    assert kombu_lists == [*bot_policy.human_lists("bots"), bot_policy.background_list("bots")]
    assert kombu_lists == ["bots", "bots\x06\x163", "bots\x06\x169"]
    assert [channel.priority(p) for p in tiers] == sorted(set(tiers)) == list(tiers)  # each its own step, in order
    assert bot_policy.priority(True, True) == 0 and bot_policy.priority(True, False) == 3
    assert bot_policy.priority(True, True, follow_ups_first=False) == 3 and bot_policy.priority(False, True) == 9


@pytest.mark.parametrize("follow_ups_first", [True, False])
def test_a_bots_move_queues_a_follow_up_and_a_humans_a_first_decision(follow_ups_first, make_instance, make_client,
                                                                       rdb, settings, registry, broker):
    """Who made the commit decides the tier: a human's move (or the creation) queues the bots it leaves to act as
    first decisions, a bot's move (SubmitBotAction) as follow-ups while a human still plays the game, nothing
    queues at priority 0 in a game of bots only. BOT_FOLLOW_UPS_FIRST=false queues follow-ups as first decisions
    (the order before the tier existed: one FIFO list for every human-waiting decision)."""
    client = make_client(make_instance(bot_follow_ups_first=follow_ups_first))
    admin = client.admin(settings.service_secret)
    game = client.create_game("toybids", 3, seed=59, bots={1: "random", 2: "random"})
    gid = game.game_id
    task = lambda seat, version: ("skyboard.bot_move", [gid, seat, version])  # noqa: E731
    hand0 = client.get_game(gid, game.token(0)).view["hand"]
    client.submit(gid, game.token(0), {"type": "bid", "card": hand0[0]}, 0)  # a human's move: v1
    assert _firsts(broker, settings) == [task(1, 0), task(2, 0), task(1, 1), task(2, 1)]
    sync = run_redis(settings.redis_url, decode_responses=True)
    action = load_game_sync(sync, settings.key_prefix, gid, registry.get).state.legal_actions(1)[0].to_json()
    admin.submit_bot(gid, 1, action, 1, idempotency_key=f"bot:{gid}:1:1")  # a bot's move: v2, seat 2 still to act
    if follow_ups_first:
        assert _follow_ups(broker, settings) == [task(2, 2)] and _firsts(broker, settings)[4:] == []
    else:
        assert _follow_ups(broker, settings) == [] and _firsts(broker, settings)[4:] == [task(2, 2)]
    bots_only = client.create_game("toybids", 2, seed=60, bots={0: "random", 1: "random"}).game_id
    state = load_game_sync(sync, settings.key_prefix, bots_only, registry.get).state
    sync.close()
    admin.submit_bot(bots_only, 0, state.legal_actions(0)[0].to_json(), 0, idempotency_key=f"bot:{bots_only}:0:0")
    assert _queued(broker, background_list(settings.bot_queue))[-1] == ("skyboard.bot_move", [bots_only, 1, 1])
    assert len(_follow_ups(broker, settings)) == (1 if follow_ups_first else 0)  # no human waits: not a follow-up


def test_the_auto_play_of_a_handed_over_seat_queues_follow_ups(make_instance, make_client, rdb, settings, broker):
    """A resigned seat no bot plays (ZOMBIE_BOT_LEVEL="", the fixture's) is auto-played by the platform: the bot
    decision that commit leaves is a follow-up, like one after a bot's move."""
    client = make_client(make_instance())
    game = client.create_game("toybids", 3, seed=61, bots={2: "random"})
    gid = game.game_id
    assert _firsts(broker, settings) == [("skyboard.bot_move", [gid, 2, 0])]
    client.resign(gid, game.token(1))  # v1 the resignation, v2 seat 1's bid auto-played
    assert client.get_game(gid).version == 2
    assert _follow_ups(broker, settings) == [("skyboard.bot_move", [gid, 2, 2])]


def test_a_turn_clock_default_queues_by_whose_seat_timed_out(make_instance, make_client, rdb, settings, registry,
                                                             broker):
    """The turn clock deciding for a human's seat is that human's move (first decisions follow); deciding for a
    bot's seat is the platform deciding for a bot (follow-ups follow)."""
    inst = make_instance(sweeper=False)
    client = make_client(inst)
    game = client.create_game("toybids", 3, seed=62, options={"rounds": 4}, bots={1: "random", 2: "random"},
                              turn_seconds=0.05)
    gid = game.game_id

    def sweep_after_deadlines() -> None:
        due = max(client.get_game(gid).deadlines.values())
        while time.time() * 1000 <= due:
            time.sleep(0.01)
        assert inst.run(inst.running.service.clock.sweep_once()) >= 1

    hand0 = client.get_game(gid, game.token(0)).view["hand"]
    client.submit(gid, game.token(0), {"type": "bid", "card": hand0[0]}, 0)  # v1: both bots to act
    sweep_after_deadlines()  # both bots time out (v2, v3): the round ends, everyone bids again
    view = client.get_game(gid)
    assert view.version == 3 and view.to_act == [0, 1, 2]
    assert _follow_ups(broker, settings) == [("skyboard.bot_move", [gid, 1, 3]), ("skyboard.bot_move", [gid, 2, 3])]
    firsts = len(_firsts(broker, settings))
    sync = run_redis(settings.redis_url, decode_responses=True)
    state = load_game_sync(sync, settings.key_prefix, gid, registry.get).state
    sync.close()
    admin = client.admin(settings.service_secret)
    for seat, version in ((1, 3), (2, 4)):  # both bots bid: now only the human must act
        admin.submit_bot(gid, seat, state.legal_actions(seat)[0].to_json(), version)
    sweep_after_deadlines()  # the human's seat times out (v6): the next round's bot decisions are first decisions
    assert client.get_game(gid).version == 6
    assert _firsts(broker, settings)[firsts:] == [("skyboard.bot_move", [gid, 1, 6]),
                                                  ("skyboard.bot_move", [gid, 2, 6])]
