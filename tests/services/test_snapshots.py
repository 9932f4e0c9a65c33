"""Snapshots every SNAPSHOT_EVERY actions (default 16) and at the end: a cold instance replays the log tail."""

from __future__ import annotations

import random

from services.common.settings import Settings
from services.gamestate.keys import Keys


def test_default_snapshot_interval_is_above_one_and_a_cold_instance_replays_the_tail(
    make_instance, make_client, rdb, prefix
):
    assert Settings.model_fields["snapshot_every"].default == 16
    a = make_client(make_instance())
    game = a.create_game("toybids", 3, seed=21, options={"rounds": 4})
    rng = random.Random(2)
    view = a.get_game(game.game_id, game.token(0))  # a seat's view: it carries the digest
    for _ in range(5):
        seat = rng.choice(view.to_act)
        a.submit(game.game_id, game.token(seat), rng.choice(a.legal_actions(game.game_id, game.token(seat)).actions),
                 view.version)
        view = a.get_game(game.game_id, game.token(0))
    assert view.status == "active" and view.version == 5
    assert rdb.hget(Keys(prefix).snap(game.game_id), "version") == "0"  # no snapshot since creation
    b = make_client(make_instance())  # empty cache: snapshot 0 + five log entries
    cold = b.get_game(game.game_id, game.token(0))
    assert (cold.version, cold.digest) == (5, view.digest)
    assert cold.view == a.get_game(game.game_id, game.token(0)).view
    seat = view.to_act[0]
    assert b.legal_actions(game.game_id, game.token(seat)).actions == a.legal_actions(
        game.game_id, game.token(seat)).actions
