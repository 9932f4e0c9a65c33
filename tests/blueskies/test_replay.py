"""Seed + action log replay the same game in another process (different PYTHONHASHSEED)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from engine.playout import random_step
from tests.blueskies.helpers import GAME

ROOT = Path(__file__).resolve().parents[2]

REPLAY = """
import json, sys
import engine
game = engine.get("blueskies")
data = json.load(sys.stdin)
state = game.new(data["players"], data["seed"])
for seat, action in data["log"]:
    state.apply(seat, game.action_from_json(action))
print(json.dumps({"digest": state.digest(), "scores": state.scores(), "over": state.is_over()}))
"""


def test_BS_0_seed_and_action_log_replay_identically_in_another_process():
    for players, seed in ((2, 41), (5, 42)):
        state = GAME.new(players, seed)
        rng = random.Random(seed)
        log = []
        while not state.is_over():
            seat, action, _ = random_step(state, rng)
            log.append([seat, action.to_json()])
        payload = json.dumps({"players": players, "seed": seed, "log": log})
        env = {**os.environ, "PYTHONHASHSEED": str(seed + 1000)}
        out = subprocess.run(
            [sys.executable, "-c", REPLAY], input=payload, capture_output=True, text=True, cwd=ROOT, env=env,
            timeout=60, check=True,
        )
        result = json.loads(out.stdout)
        assert result == {"digest": state.digest(), "scores": state.scores(), "over": True}
