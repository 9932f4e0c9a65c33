"""Bot seats: a skyboard.bot_move task is queued by name whenever a bot seat must act; a worker
loads the state straight from Redis and acts through the internal GameAdmin service (service credential)
with an idempotency key."""

from __future__ import annotations

import base64
import json
import time

import grpc
import redis as redis_sync

from services.gamestate.store import load_game_sync
from tests.services.helpers import expect_error


def _queued(rdb, queue: str) -> list[tuple[str, list]]:
    """(task name, args) of the Celery messages waiting in `queue`, oldest first."""
    out = []
    for raw in reversed(rdb.lrange(queue, 0, -1)):  # kombu LPUSHes, workers BRPOP
        message = json.loads(raw)
        body = json.loads(base64.b64decode(message["body"]))
        out.append((message["headers"]["task"], body[0]))
    return out


def test_bot_seat_tasks_are_queued_and_the_worker_path_acts(make_instance, make_client, rdb, settings, registry):
    client = make_client(make_instance())
    game = client.create_game("toybids", 3, seed=51, bots={1: "random", 2: "mcts-normal"})
    assert [s.bot for s in game.seats] == [None, "random", "mcts-normal"]
    assert game.seats[0].token and game.seats[1].token is None and game.seats[2].token is None
    gid = game.game_id
    assert _queued(rdb, settings.bot_queue) == [("skyboard.bot_move", [gid, 1, 0]), ("skyboard.bot_move", [gid, 2, 0])]

    hand0 = client.get_game(gid, game.token(0)).view["hand"]
    client.submit(gid, game.token(0), {"type": "bid", "card": hand0[0]}, 0)
    assert _queued(rdb, settings.bot_queue)[2:] == [
        ("skyboard.bot_move", [gid, 1, 1]),
        ("skyboard.bot_move", [gid, 2, 1]),
    ]

    # what a worker does for (gid, 1, 1): load from Redis without gRPC, decide, submit idempotently
    sync = redis_sync.Redis.from_url(settings.redis_url, decode_responses=True)
    loaded = load_game_sync(sync, settings.key_prefix, gid, registry.get)
    sync.close()
    assert loaded.version == 1 and loaded.state.digest() == client.get_game(gid).digest
    assert loaded.meta.bots == {1: "random", 2: "mcts-normal"}
    action = loaded.state.legal_actions(1)[0].to_json()
    admin = client.admin(settings.service_secret)
    first = admin.submit_bot(gid, 1, action, loaded.version, idempotency_key=f"{gid}:1:1")
    duplicate = admin.submit_bot(gid, 1, action, loaded.version, idempotency_key=f"{gid}:1:1")
    assert first.version == 2 and duplicate.replayed and duplicate.version == 2
    assert client.get_game(gid).version == 2
    assert _queued(rdb, settings.bot_queue)[4:] == [("skyboard.bot_move", [gid, 2, 2])]

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
    sync = redis_sync.Redis.from_url(settings.redis_url, decode_responses=True)
    assert sync.hget(f"{settings.key_prefix}game:{{{game.game_id}}}:snap", "version") == "0"
    loaded = load_game_sync(sync, settings.key_prefix, game.game_id, registry.get)
    sync.close()
    assert loaded.version == 3 and loaded.state.digest() == client.get_game(game.game_id).digest


def test_a_game_waiting_on_a_bot_is_requeued_once_per_period_across_instances(make_instance, make_client, rdb,
                                                                               settings):
    a = make_client(make_instance(bot_redispatch_s=0.4))
    make_instance(bot_redispatch_s=0.4)  # a second sweeper racing for the same due entries
    game = a.create_game("toybids", 2, seed=53, bots={1: "random"})
    hand0 = a.get_game(game.game_id, game.token(0)).view["hand"]
    start = time.monotonic()
    a.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 0)  # now only the bot must act
    time.sleep(1.0)
    queued = _queued(rdb, settings.bot_queue)
    elapsed = time.monotonic() - start
    assert queued[:2] == [("skyboard.bot_move", [game.game_id, 1, 0]), ("skyboard.bot_move", [game.game_id, 1, 1])]
    assert set(map(str, queued[2:])) == {str(("skyboard.bot_move", [game.game_id, 1, 1]))}
    # re-dispatches come at least one period apart whatever the number of instances
    assert 1 <= len(queued) - 2 <= elapsed // 0.4


def test_the_redispatch_wait_is_the_waiting_level_budget_plus_the_margin(make_instance, make_client, rdb, settings):
    """A slow level is not re-queued while it may still be thinking: due = its budget + BOT_REDISPATCH_S."""
    from services.gamestate.bots import level_budget_seconds
    from services.gamestate.keys import Keys

    assert level_budget_seconds("random") == 0.0 and level_budget_seconds("mcts-normal") == 1.0
    assert level_budget_seconds("no-such-level") == 0.0
    client = make_client(make_instance(bot_redispatch_s=7.0))
    before = time.time() * 1000
    fast = client.create_game("toybids", 2, seed=54, bots={1: "random"}).game_id
    slow = client.create_game("toybids", 2, seed=55, bots={1: "mcts-normal"}).game_id
    after = time.time() * 1000
    due = dict(rdb.zrange(Keys(settings.key_prefix).bot_wait, 0, -1, withscores=True))
    assert before + 7_000 <= due[fast] <= after + 7_000
    assert before + 8_000 <= due[slow] <= after + 8_000


def test_a_service_killed_between_commit_and_queueing_still_leaves_the_bot_a_timer(make_instance, make_client, rdb,
                                                                                   settings):
    """The creation and every commit arm the re-dispatch timer in the same atomic write as the new state.
    Instance `a` stands for a service SIGKILLed right after each commit: its post-commit work (queueing the
    bot move, arming the timer) never runs. Another instance's sweeper must still queue the bot's move."""
    a = make_instance(bot_redispatch_s=0.4, sweeper=False)

    async def killed_after_commit(*args, **kwargs) -> None:
        return None

    a.running.service._after_commit = killed_after_commit
    client = make_client(a)
    game = client.create_game("toybids", 2, seed=56, bots={1: "random"})
    assert _queued(rdb, settings.bot_queue) == []  # the "killed" instance queued nothing
    make_instance(bot_redispatch_s=0.4)  # a surviving instance, whose sweeper finds the armed timer
    deadline = time.monotonic() + 10
    while not _queued(rdb, settings.bot_queue) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _queued(rdb, settings.bot_queue)[:1] == [("skyboard.bot_move", [game.game_id, 1, 0])]

    hand0 = client.get_game(game.game_id, game.token(0)).view["hand"]
    client.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 0)  # only the bot acts now
    target = ("skyboard.bot_move", [game.game_id, 1, 1])
    while target not in _queued(rdb, settings.bot_queue) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert target in _queued(rdb, settings.bot_queue)


def test_claiming_a_due_bot_wait_moves_it_on_rather_than_removing_it(make_instance, rdb, settings):
    """An instance killed right after its claim must not take the timer with it: the claim re-arms it one
    period on, and only a release with that same due time (nothing re-armed it since) drops it."""
    from services.gamestate.keys import Keys

    inst = make_instance(sweeper=False)
    store = inst.running.service.store
    key = Keys(settings.key_prefix).bot_wait
    inst.run(store.arm_bot_wait("g-claim", 1_000))
    assert inst.run(store.claim_bot_wait("g-claim", 2_000, 5_000)) is True
    assert rdb.zscore(key, "g-claim") == 5_000
    assert inst.run(store.claim_bot_wait("g-claim", 2_000, 9_000)) is False  # not due again before 5,000
    inst.run(store.release_bot_wait("g-claim", 4_000))  # someone re-armed it: a stale release keeps it
    assert rdb.zscore(key, "g-claim") == 5_000
    inst.run(store.release_bot_wait("g-claim", 5_000))
    assert rdb.zscore(key, "g-claim") is None


def test_decisions_a_human_waits_on_are_queued_before_bot_only_games(make_instance, make_client, rdb, settings):
    """Celery priority 0 (the BOT_QUEUE list, which workers pop first) when a human seat still plays, 9 (kombu's
    priority list beside it) in a game of bots only; every task carries the time it was queued."""
    from services.bot_policy import SENT_AT, background_list

    client = make_client(make_instance())
    before = time.time()
    bots_only = client.create_game("toybids", 2, seed=57, bots={0: "random", 1: "random"}).game_id
    with_human = client.create_game("toybids", 2, seed=58, bots={1: "random"})
    after = time.time()
    assert _queued(rdb, settings.bot_queue) == [("skyboard.bot_move", [with_human.game_id, 1, 0])]
    assert _queued(rdb, background_list(settings.bot_queue)) == [
        ("skyboard.bot_move", [bots_only, 0, 0]), ("skyboard.bot_move", [bots_only, 1, 0])]
    for raw in rdb.lrange(settings.bot_queue, 0, -1) + rdb.lrange(background_list(settings.bot_queue), 0, -1):
        assert before <= json.loads(raw)["headers"][SENT_AT] <= after
    # a human who resigns to a bot leaves a game of bots only: its decisions go to the back
    client.resign(with_human.game_id, with_human.token(0), bot_level="random")
    assert ("skyboard.bot_move", [with_human.game_id, 0, 1]) in _queued(rdb, background_list(settings.bot_queue))
