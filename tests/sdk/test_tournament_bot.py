"""The example bots that enter a Swiss tournament (clients/python/examples/swiss_bot.py, clients/typescript/examples/
swiss_bot.ts) as a newcomer runs them: four copies (two of each SDK; three bot accounts and one person's) enter an
event by its id, the real director pairs its rounds, and each copy plays the games its account stream announces
until the event's feed says it ended. The games have no clock, so every one of them ends by the copies' own moves;
the standings equal a recomputation from the games' places."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from skyboard_client import Client

from services.tournaments.scoring import default_points
from tests.gateway.conftest import Gateway, ServiceInstance
from tests.gateway.test_tournaments import DirectorThread

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
BOTS = {"python": [sys.executable, str(ROOT / "clients/python/examples/swiss_bot.py")],
        "typescript": ["node", str(TS / "dist/examples/swiss_bot.js")]}


def test_the_python_example_swiss_bot_is_short_and_the_tournaments_page_shows_both() -> None:
    assert len((ROOT / "clients/python/examples/swiss_bot.py").read_text().splitlines()) <= 60
    page = (ROOT / "docs" / "tournaments.md").read_text()
    for path in ("clients/python/examples/swiss_bot.py", "clients/typescript/examples/swiss_bot.ts"):
        assert f"<!-- skyboard:file {path} -->" in page, path


@pytest.mark.slow
def test_example_bots_enter_a_swiss_event_and_play_it_to_its_end(sdk_gateway: Gateway,
                                                                 sdk_service: ServiceInstance) -> None:
    subprocess.run(["npx", "--no-install", "tsc", "-p", "tsconfig.json"], cwd=TS, check=True, timeout=300)
    with Client(sdk_gateway.url) as sky:
        accounts = [sky.create_player(f"swiss-{i}", kind="human" if i == 0 else "bot") for i in range(4)]
    with Client(sdk_gateway.url, accounts[0].api_key) as organiser:
        tid = organiser.create_tournament("Example bots' Swiss", "opensky", 2, 2, int(time.time() * 1000),
                                          bots_allowed=True, rated=False).tournament_id
    env = {**os.environ, "SKYBOARD_URL": sdk_gateway.url, "TOURNAMENT_ID": tid}
    langs = ["python", "typescript", "python", "typescript"]
    procs = [subprocess.Popen(BOTS[lang], env={**env, "SKYBOARD_API_KEY": a.api_key}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for lang, a in zip(langs, accounts)]
    director = None
    outputs: list[str] = []
    try:
        with Client(sdk_gateway.url) as sky:  # every copy entered by itself; then the director starts round 1
            deadline = time.monotonic() + 120
            while sky.tournament(tid).entrants < 4:
                assert time.monotonic() < deadline, "the bots did not enter"
                assert all(p.poll() is None for p in procs), [p.communicate()[0] for p in procs if p.poll()]
                time.sleep(0.2)
        director = DirectorThread(sdk_gateway.settings, sdk_service.settings.key_prefix, sdk_service.addr,
                                  f"tournaments-{uuid.uuid4().hex[:6]}")
        for p in procs:
            try:
                out, _ = p.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                raise AssertionError(f"a bot did not see the end: {out}") from None
            outputs.append(out)
            assert p.returncode == 0, out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)
        if director is not None:
            director.stop()

    with Client(sdk_gateway.url) as sky:
        final = sky.standings(tid)
        assert final.status == "finished" and [r.round for r in final.rounds] == [1, 2]
        points: Counter[str] = Counter()
        for rnd in final.rounds:
            assert not rnd.byes and len(rnd.tables) == 2                           # 4 entrants, tables of 2
            for table in rnd.tables:
                assert table.game_id and table.places
                game = sky.game(table.game_id)
                assert game.status == "finished"                                    # no clock: by their moves
                seat_of = {s.player_id: s.seat for s in game.seats}
                assert [game.places[seat_of[p]] for p in table.players if p] == table.places
                for p, place in zip(table.players, table.places):
                    assert p is not None
                    tied = table.places.count(place)
                    points[p] += sum(default_points(2)[place - 1:place - 1 + tied]) / tied
        assert {s.player_id: s.points for s in final.standings} == pytest.approx(dict(points))
    for account, out in zip(accounts, outputs):
        assert "entered" in out.splitlines()[0], out
        assert out.count("game over") == 2 and "round 1 table" in out and "round 2 table" in out, out
        assert "final [[" in out.replace("(", "[") and account.player_id in out.splitlines()[-1], out
