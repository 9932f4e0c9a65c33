"""Worker logs carry no hidden information: a bot move is logged by its kind and version, never its content
(an OpenSky sealed bid before the reveal, a Blue Skies discard)."""

from __future__ import annotations

import json
import logging

import pytest

from services.gamestate.keys import Keys
from services.workers import tasks
from services.workers.move import Mover
from tests.redis_required import test_redis as run_redis


@pytest.mark.parametrize("game, players", [("opensky", 2), ("blueskies", 2)])
def test_bot_move_logs_name_the_kind_not_the_content(make_instance, make_client, settings, caplog, monkeypatch,
                                                      game, players):
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    created = client.create_game(game, players, seed=5, bots={s: "greedy" for s in range(players)})
    gid = created.game_id
    sync = run_redis(settings.redis_url, decode_responses=True)
    monkeypatch.setattr(tasks, "_MOVER", Mover(sync, settings.key_prefix, client.admin(settings.service_secret)))
    caplog.set_level(logging.INFO)
    for _ in range(40):
        view = client.get_game(gid)
        if view.status != "active":
            break
        for seat in view.to_act:
            tasks.bot_move.run(gid, seat, view.version)
    entries = [json.loads(e) for e in sync.lrange(Keys(settings.key_prefix).log(gid), 0, -1)]
    sync.close()
    assert len(entries) >= 10
    logged = "\n".join(r.getMessage() for r in caplog.records)
    kinds = {e["action"]["type"] for e in entries}
    assert any(kind in logged for kind in kinds), "the kind of each move is logged"
    for entry in entries:
        for key, value in entry["action"].items():
            if key != "type":
                assert f"'{key}'" not in logged and f'"{key}"' not in logged, (key, value)
    assert "{" not in logged, "no action object in any log line"
