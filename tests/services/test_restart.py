"""An instance killed (SIGKILL) mid-game and restarted serves the game on from the same digest."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from services.dev.launch import start_announcing
from services.gamestate.client_sync import GameClient
from services.gamestate.keys import Keys
from tests.services.helpers import play_random

ROOT = Path(__file__).resolve().parents[2]


def _spawn(settings) -> tuple[subprocess.Popen, str]:
    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url,
        "GRPC_ADDR": "127.0.0.1:0",
        "ADMIN_GRPC_ADDR": "127.0.0.1:0",
        "METRICS_PORT": "0",
        "KEY_PREFIX": settings.key_prefix,
        "DISPATCH_BOTS": "false",
        "SNAPSHOT_EVERY": "3",  # so a restart has to replay a log tail after the snapshot
        "SERVICE_SECRET": settings.service_secret,
        "ALLOW_ANONYMOUS_CREATE": "true",
    }
    try:
        proc, port = start_announcing([sys.executable, "-m", "tests.services.serve_proc"], env, ROOT)
    except RuntimeError as exc:
        pytest.fail(f"service process did not start: {exc}")
    return proc, f"127.0.0.1:{port}"


def test_instance_killed_mid_game_serves_on_from_the_same_digest(settings):
    proc, target = _spawn(settings)
    try:
        with GameClient(target) as client:
            game = client.create_game("toybids", 3, seed=31, options={"rounds": 4})
            rng = random.Random(5)
            for _ in range(4):  # a few moves: version 4, snapshot at 3 + one log entry
                view = client.get_game(game.game_id)
                seat = view.to_act[rng.randrange(len(view.to_act))]
                action = client.legal_actions(game.game_id, game.token(seat)).actions[0]
                client.submit(game.game_id, game.token(seat), action, view.version)
            before = client.get_game(game.game_id, game.token(0))
    finally:
        proc.kill()  # no graceful anything
        proc.wait(10)
    proc, target = _spawn(settings)
    try:
        with GameClient(target) as client:
            after = client.get_game(game.game_id, game.token(0))
            assert (after.version, after.digest, after.view) == (before.version, before.digest, before.view)
            assert after.version == 4
            play_random([client], game, 3, random.Random(6))
            final = client.get_game(game.game_id)
            assert final.status == "finished" and client.get_log(game.game_id).final_digest == final.digest
    finally:
        proc.terminate()
        assert proc.wait(10) == 0  # SIGTERM: graceful stop, clean exit


def test_a_corrupt_snapshot_is_repaired_from_the_log(make_instance, make_client, rdb, prefix, registry):
    """The log is the truth: a snapshot that disagrees with the stored digest is rebuilt from seed + log."""
    a = make_client(make_instance())
    game = a.create_game("toybids", 2, seed=33)
    for version in range(3):
        seat = a.get_game(game.game_id).to_act[0]
        a.submit(game.game_id, game.token(seat), a.legal_actions(game.game_id, game.token(seat)).actions[0], version)
    before = a.get_game(game.game_id, game.token(0))
    snap_key = Keys(prefix).snap(game.game_id)
    wrong = registry.get("toybids").new(2, 999)  # another deal altogether
    rdb.hset(snap_key, mapping={"state": json.dumps(wrong.to_json()), "version": 0})
    b = make_client(make_instance())  # a fresh instance: nothing cached
    after = b.get_game(game.game_id, game.token(0))
    assert (after.version, after.digest, after.view) == (before.version, before.digest, before.view)
