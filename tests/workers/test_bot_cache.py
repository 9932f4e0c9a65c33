"""The worker's bot cache: the same bot object makes a seat's consecutive decisions (tree reuse), bounded,
never shared by two deliveries at once; and a Mover's search starts from the kept subtree when it can."""

from __future__ import annotations

import ai
from ai.ismcts import ISMCTSBot
from services.workers.bot_cache import BotCache
from services.workers.move import Mover
from tests.redis_required import test_redis as run_redis


def test_a_seats_bot_comes_back_for_its_next_decision():
    cache = BotCache(size=4)
    bot = cache.take("g1", 0, "mcts-easy")
    assert isinstance(bot, ISMCTSBot)
    cache.put("g1", 0, "mcts-easy", bot)
    assert cache.take("g1", 0, "mcts-easy") is bot


def test_a_taken_bot_is_not_handed_out_twice():
    cache = BotCache()
    bot = cache.take("g1", 0, "mcts-easy")
    cache.put("g1", 0, "mcts-easy", bot)
    first = cache.take("g1", 0, "mcts-easy")
    second = cache.take("g1", 0, "mcts-easy")  # a second delivery while the first thinks
    assert first is bot and second is not bot


def test_other_seats_levels_and_games_get_their_own_bots():
    cache = BotCache()
    bot = cache.take("g1", 0, "mcts-easy")
    cache.put("g1", 0, "mcts-easy", bot)
    assert cache.take("g1", 1, "mcts-easy") is not bot
    assert cache.take("g2", 0, "mcts-easy") is not bot
    assert cache.take("g1", 0, "mcts-normal") is not bot


def test_the_least_recently_used_bot_goes_first():
    cache = BotCache(size=2)
    bots = {g: cache.take(g, 0, "random") for g in ("a", "b", "c")}
    cache.put("a", 0, "random", bots["a"])
    cache.put("b", 0, "random", bots["b"])
    cache.put("a", 0, "random", bots["a"])  # a is now the most recent
    cache.put("c", 0, "random", bots["c"])
    assert len(cache) == 2
    assert cache.take("a", 0, "random") is bots["a"]
    assert cache.take("c", 0, "random") is bots["c"]
    assert cache.take("b", 0, "random") is not bots["b"]


def test_a_movers_search_starts_from_the_subtree_its_last_decision_kept(make_instance, make_client, settings):
    """Blue Skies purchases (BS-5) reveal nothing: the seat's next purchase decision, played by the same
    worker process, reuses the kept subtree."""
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    created = client.create_game("blueskies", 2, seed=4, bots={0: "mcts-normal", 1: "mcts-normal"})
    gid = created.game_id
    sync = run_redis(settings.redis_url, decode_responses=True)
    mover = Mover(sync, settings.key_prefix, client.admin(settings.service_secret),
                  budget=ai.Budget(iterations=200))  # a small search (mcts-easy plays the greedy rule)
    reused = 0
    for _ in range(40):
        game = client.get_game(gid)
        result = mover.play(gid, game.to_act[0], game.version)
        assert result.outcome == "submitted"
        reused += result.reused_visits > 0
        if reused >= 2:
            break
    assert reused >= 2
    sync.close()
