"""A game whose last move a bot plays (a real Celery worker submitting over gRPC) is settled and announced by the
outcomes consumer alone, within 2 s of that commit, with no gateway reading the game: the consumer reads the commit's
outbox entry, whoever made it (the games ended by the turn clock and by the inactivity sweep: tests/gateway/
test_outcomes.py).

The game: a matched, rated 3-player OpenSky table of one human and two greedy bots (the matchmaker fills at once,
`bots_after_s` 0). The human resigns before anyone decided; its seat is then played by the zombie bot, so every
decision after the resignation, the last one included, is the worker's. Real Redis, gRPC, HTTP, PostgreSQL and Celery.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

from services.accounts.keys import Keys as AccountKeys
from services.accounts.keys import bucket_of
from services.gamestate.keys import Keys as GameKeys
from services.gamestate.keys import bucket_of as game_bucket
from tests.gateway.conftest import Gateway, gateway_settings
from tests.gateway.helpers import auth
from tests.gateway.test_challenges import events
from tests.gateway.test_matchmaking import new_player, poll, run_matcher, ticket
from tests.redis_required import test_redis as run_redis

GAME = "opensky"
#: the issue's bound from a game's end to its settlement and announcement
WITHIN_S = 2.0


def _ms(entry_id: str) -> int:
    return int(entry_id.split("-", 1)[0])


def test_a_game_a_bot_ends_is_settled_and_announced_by_the_consumer_alone(
    make_instance, start_worker, redis_url, settings
) -> None:
    inst = make_instance(zombie_bot_level="greedy")
    worker = start_worker(inst.admin_target)
    gw = Gateway(gateway_settings(redis_url, SimpleNamespace(addr=inst.admin_target), bot_fill_level="greedy"),
                 outbox=settings.key_prefix)
    rdb = run_redis(redis_url, decode_responses=True)
    game_keys = GameKeys(settings.key_prefix)
    try:
        with gw.client() as c:
            player_id, key = new_player(c, "resigns")
            t = ticket(c, key, GAME, 3, bots_after_s=0)
            [game_id] = run_matcher(gw.settings)
            seat = poll(c, key, t)
            assert c.post(f"/v1/games/{game_id}/resign", headers=auth(seat["token"])).status_code == 200
            resigned_at = int(rdb.hget(game_keys.meta(game_id), "version"))
            # from here no gateway reads the game: only the account stream (below) and the player's ratings

            got = events(c, key, lambda es: any(e.event == "game_end" for e in es), timeout=240)
            ends = [e for e in got if e.event == "game_end"]
            assert len(ends) == 1 and ends[0].json()["game_id"] == game_id
            assert ends[0].json()["status"] == "finished" and ends[0].json()["seat"] == seat["seat"]

            meta = rdb.hgetall(game_keys.meta(game_id))
            assert meta["status"] == "finished" and int(meta["version"]) > resigned_at
            [(last_id, last)] = rdb.xrevrange(game_keys.changes(game_bucket(game_id)), count=1)
            assert (last["g"], int(last["v"]), last["status"]) == (game_id, int(meta["version"]), "finished")
            assert last["kind"] == "move", "the game's last version is a bot's move, not a clock or sweep"
            actor = int(last["actor"])
            assert f"bot move {game_id} seat {actor}" in worker.text(), "the worker played the last move"

            delay_ms = _ms(ends[0].id) - _ms(last_id)  # both entry ids are Redis times: the commit, the account event
            print(f"game_end on the account stream {delay_ms} ms after the bot's last commit")
            assert 0 <= delay_ms <= WITHIN_S * 1000

            pending = AccountKeys(gw.settings.key_prefix).rated_pending(bucket_of(game_id))
            deadline = time.monotonic() + 20
            while rdb.sismember(pending, game_id):  # settled before game_end went out: done already
                assert time.monotonic() < deadline, "not settled"
                time.sleep(0.05)
            rating = c.get(f"/v1/players/{player_id}").json()["ratings"][GAME]
            assert rating["games"] == 1
    finally:
        gw.stop()
        rdb.close()
