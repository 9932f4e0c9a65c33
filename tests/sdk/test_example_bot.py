"""The example bot (clients/python/examples/random_bot.py) as a newcomer would run it: two copies, one with an
API key from the environment and one registering its own bot account, meet through the real matchmaker,
play a rated OpenSky game to the end over the account stream, and both ratings settle."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from skyboard_client import Client

BOT = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "random_bot.py"


def test_example_bot_is_short() -> None:
    assert len(BOT.read_text().splitlines()) <= 40


def test_two_example_bots_play_a_rated_matchmade_game_and_ratings_settle(sdk_gateway, matchmaker) -> None:
    with Client(sdk_gateway.url) as sky:
        keyed = sky.create_player("keyed-bot", kind="bot")
    env = {**os.environ, "SKYBOARD_URL": sdk_gateway.url, "GAME": "opensky", "PLAYERS": "2", "GAMES": "1"}
    env.pop("SKYBOARD_API_KEY", None)
    started = time.monotonic()
    procs = [
        subprocess.Popen([sys.executable, str(BOT)], env={**env, "SKYBOARD_API_KEY": keyed.api_key},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
        subprocess.Popen([sys.executable, str(BOT)], env={**env, "BOT_NAME": "fresh-bot"},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
    ]
    outputs = []
    try:
        for p in procs:
            try:
                out, _ = p.communicate(timeout=40)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                raise AssertionError(out) from None
            outputs.append(out)
            assert p.returncode == 0, out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert time.monotonic() - started < 60
    games = {re.search(r"matched (\S+) seat", out).group(1) for out in outputs}
    assert len(games) == 1, outputs
    assert all("game over: scores" in out for out in outputs), outputs
    fresh = re.search(r"registered bot (\w+)", outputs[1]).group(1)
    with Client(sdk_gateway.url) as sky:
        (game_id,) = games
        final = sky.game(game_id)
        assert final.status == "finished" and final.winners is not None
        for player_id in (keyed.player_id, fresh):
            rating = sky.player(player_id).ratings["opensky"]
            assert rating.games == 1 and rating.sigma < 25 / 3
        assert {s.player_id for s in final.seats} == {keyed.player_id, fresh}
