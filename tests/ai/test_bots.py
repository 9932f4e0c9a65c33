"""Bots: the level registry, legality of every decision, and honesty."""

from __future__ import annotations

import json
import random

import pytest

import ai
from engine.core import State, canonical_json
from engine.playout import random_step
from research.lab.match import play_match
from tests.ai.conftest import GAME_IDS, GAMES

TINY = ai.Budget(iterations=4)


def test_levels_have_exactly_the_rest_contract_names():
    assert ai.levels() == ["random", "greedy", "mcts-easy", "fast", "mcts-normal", "mcts-hard"]
    for level in ai.levels():
        assert ai.make_bot(level).level == level
    for bad in ("mcts", "", None, 3):
        with pytest.raises(ValueError, match="unknown bot level"):
            ai.make_bot(bad)


def test_normal_level_thinks_at_most_one_second():
    budget = ai.default_budget("mcts-normal")
    assert budget is not None and budget.seconds is not None and budget.seconds <= 1.0
    assert ai.default_budget("random") is None


def test_budget_rejects_nonsense():
    with pytest.raises(ValueError):
        ai.Budget(seconds=0)
    with pytest.raises(ValueError):
        ai.Budget(iterations=0)


def _positions(game, players: int, seed: int, every: int, limit: int = 12) -> list[State]:
    """Positions along one random game, every `every` decisions, thinned evenly to at most `limit`."""
    state = game.new(players, seed)
    rng = random.Random(seed)
    out = []
    step = 0
    while not state.is_over():
        if step % every == 0:
            out.append(state.clone())
        random_step(state, rng)
        step += 1
    return out


#: Every level over whole Aeroplanes games, and at many of its positions, is most of what is left of this file's time:
#: those two cases run in `make test-slow`; the other titles stay, and Aeroplanes keeps its search-variant cases (make
#: test's ten-minute budget)
AEROPLANES_SLOW = [pytest.param(game, id=game_id, marks=[pytest.mark.slow] if game_id == "aeroplanes" else [])
                   for game, game_id in zip(GAMES, GAME_IDS, strict=True)]


@pytest.mark.parametrize("game", AEROPLANES_SLOW)
def test_every_level_plays_only_legal_actions_over_whole_games(game):
    """play_match applies every decision, so an illegal one raises; a mix of levels covers each."""
    levels = ai.levels()
    for seed in range(2):
        for players in (game.min_players, game.max_players):
            seats = [levels[(seed + i) % len(levels)] for i in range(players)]
            result = play_match(game, seats, seed, budget=TINY)
            assert result.winners and set(result.winners) <= set(range(players))


@pytest.mark.parametrize("game", AEROPLANES_SLOW)
def test_every_level_chooses_a_legal_action_at_many_positions(game):
    bots = {level: ai.make_bot(level) for level in ai.levels()}
    for seed in range(2):
        players = game.min_players + seed % (game.max_players - game.min_players + 1)
        for state in _positions(game, players, seed, every=7, limit=8):
            before = state.digest()
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                for level, bot in bots.items():
                    action = bot.choose(state, seat, random.Random(seed), TINY)
                    assert action in legal, f"{level} chose an illegal action"
            assert state.digest() == before, "a bot changed the state it was given"


def test_bot_refuses_a_seat_that_need_not_act():
    from tests.ai.toygame import TOY

    state = TOY.new(2, 1)
    state.apply(0, state.legal_actions(0)[0])
    with pytest.raises(ValueError, match="nothing to decide"):
        ai.make_bot("random").choose(state, 0, random.Random(1))


def _honesty_positions(game, players: int, seed: int) -> list[State]:
    """Positions along one game played by greedy bots: every 9th decision, plus every position
    where a simultaneous decision is half made (another seat's sealed choice is pending)."""
    state = game.new(players, seed)
    bot = ai.make_bot("greedy")
    rng = random.Random(seed)
    out = []
    step = 0
    before: list[int] = []
    while not state.is_over() and len(out) < 20:
        now = state.to_act()
        if step % 9 == 0 or (len(before) > 1 and set(now) < set(before)):
            out.append(state.clone())
        seat = now[0]
        state.apply(seat, bot.choose(state, seat, rng))
        before = now
        step += 1
    return out


def _without_rng(state: State) -> str:
    return canonical_json({k: v for k, v in state.to_json().items() if k != "rng"})


@pytest.mark.parametrize("game", GAMES, ids=GAME_IDS)
def test_same_view_same_seed_different_hidden_truth_gives_the_same_action(game):
    """Honesty: a bot's choice depends only on what its seat can see (and its own rng).

    The second state is a determinization of the first for the deciding seat:
    the same view, other seats' hidden cards and pending sealed choices (and the
    RNG) resampled. Every level must choose identically in both.
    """
    budget = ai.Budget(iterations=12)
    differing = 0
    for seed in range(2):
        players = game.max_players if seed else game.min_players
        for truth in _honesty_positions(game, players, seed):
            for seat in truth.to_act():
                other = truth.determinize(seat, random.Random(1000 + seed))
                assert canonical_json(other.view(seat)) == canonical_json(truth.view(seat))
                if _without_rng(other) != _without_rng(truth):
                    differing += 1
                for level in ai.levels():  # fresh bots: a search may keep a subtree between decisions
                    a = ai.make_bot(level).choose(truth, seat, random.Random(seed), budget)
                    b = ai.make_bot(level).choose(other, seat, random.Random(seed), budget)
                    assert json.dumps(a.to_json()) == json.dumps(b.to_json()), (
                        f"{level} decided differently on a different hidden truth"
                    )
    if game.has_hidden_information:
        assert differing > 0, "no position had hidden information to vary"


def test_the_honesty_check_catches_a_bot_that_peeks():
    """The check above has teeth: a bot reading other seats' true hands fails it."""
    from ai.bot import Bot
    from tests.ai.toygame import TOY

    class Peeker(Bot):
        def _choose(self, state, seat, actions, rng, budget):
            hidden = sum(sum(h) for s, h in enumerate(state.hands) if s != seat)
            return actions[hidden % len(actions)]

    caught = False
    for truth in _positions(TOY, 3, 4, every=1):
        for seat in truth.to_act():
            other = truth.determinize(seat, random.Random(7))
            if Peeker().choose(truth, seat, random.Random(1)) != Peeker().choose(other, seat, random.Random(1)):
                caught = True
    assert caught


SEARCH_VARIANTS = {
    "opponent model": {"prior_plies": 8, "deep_prior_weight": 1.0},
    "prior rollouts": {"rollout_policy": "prior", "policy_rollout_depth": 4, "rollout_epsilon": 0.2},
    "turn rollouts": {"rollout_policy": "turn", "policy_rollout_depth": 4},
    "learned evaluation": {"evaluation": "learned"},
    "greedy rule for some kinds": {"rule_kinds": frozenset({"bid", "done", "play_card"})},
    "playout search for some kinds": {
        "playout_kinds": frozenset({"bid", "lease", "place_aircraft", "buy_gate", "play_card", "choose_action"}),
        "rule_kinds": frozenset(),
    },
    "win share only": {"win_weight": 1.0},
    "tree reuse": {"reuse_tree": True},
}


#: Playout search on Aeroplanes' kinds plays out whole turns in every iteration: over a minute, most of this file's
#: time, so that one pair runs in `make test-slow`; every other pair, and that variant on the other games, stay (make
#: test's ten-minute budget)
SLOW_VARIANTS = {("aeroplanes", "playout search for some kinds")}
SEARCH_CASES = [
    pytest.param(game, variant, id=f"{game_id}-{variant}",
                 marks=[pytest.mark.slow] if (game_id, variant) in SLOW_VARIANTS else [])
    for game, game_id in zip(GAMES, GAME_IDS, strict=True) for variant in SEARCH_VARIANTS
]


@pytest.mark.parametrize(("game", "variant"), SEARCH_CASES)
def test_search_options_stay_legal_and_honest(game, variant):
    """The opponent model, prior rollouts and playout searches read only determinizations: same view ->
    same action."""
    import dataclasses

    from ai.ismcts import ISMCTSBot
    from ai.levels import SEARCH

    config = dataclasses.replace(SEARCH["mcts-easy"], **SEARCH_VARIANTS[variant])
    budget = ai.Budget(iterations=10)
    for truth in _honesty_positions(game, game.min_players, 3)[:6]:
        before = truth.digest()
        for seat in truth.to_act():
            other = truth.determinize(seat, random.Random(7))
            a = ISMCTSBot("mcts-easy", config).choose(truth, seat, random.Random(3), budget)
            b = ISMCTSBot("mcts-easy", config).choose(other, seat, random.Random(3), budget)
            assert a in truth.legal_actions(seat)
            assert json.dumps(a.to_json()) == json.dumps(b.to_json())
        assert truth.digest() == before


# Two 300-iteration Aeroplanes searches per decision are two minutes under load, a third of this file: that game's
# case runs in `make test-slow` (AEROPLANES_SLOW); the toy, OpenSky and Blue Skies cases stay in `make test` (make
# test's ten-minute budget)
@pytest.mark.parametrize("game", AEROPLANES_SLOW)
def test_early_stop_under_an_iteration_cap_chooses_what_the_full_search_chooses(game):
    """`early_stop` ends a search only once the rest of the budget could not change the choice."""
    import dataclasses

    from ai.ismcts import ISMCTSBot
    from ai.levels import SEARCH

    config = dataclasses.replace(SEARCH["mcts-easy"], reuse_tree=False)  # each decision on its own
    assert config.early_stop
    stopping = ISMCTSBot("mcts-easy", config)
    full = ISMCTSBot("mcts-easy", dataclasses.replace(config, early_stop=False))
    budget = ai.Budget(iterations=300)
    stopped = 0
    for truth in _positions(game, game.min_players, 5, every=3, limit=8):
        for seat in truth.to_act():
            if len(truth.legal_actions(seat)) < 2:
                continue
            a = stopping.choose(truth, seat, random.Random(11), budget)
            b = full.choose(truth, seat, random.Random(11), budget)
            assert json.dumps(a.to_json()) == json.dumps(b.to_json())
            assert full.stats.iterations == 300 and stopping.stats.iterations <= 300
            stopped += stopping.stats.iterations < 300
    assert stopped, "no decision was clear enough to stop early: the check never ran"


def test_rule_kinds_leave_those_decisions_to_the_greedy_rule_without_a_search():
    """OS-10/11: OpenSky leaves sealed bids to its greedy rule: the level's bid is that rule's, made without
    iterations; `rule_kinds=frozenset()` makes the search decide them again."""
    import dataclasses

    import engine
    from ai.heuristics import for_game
    from ai.ismcts import ISMCTSBot
    from ai.levels import SEARCH

    assert "bid" in for_game("opensky").rule_kinds
    bot = ISMCTSBot("mcts-easy", SEARCH["mcts-easy"])
    searching = ISMCTSBot(
        "mcts-easy", dataclasses.replace(SEARCH["mcts-easy"], rule_kinds=frozenset(), early_stop=False)
    )
    state = engine.get("opensky").new(2, 4)
    rng = random.Random(4)
    bids = 0
    while not state.is_over() and bids < 2:
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        if legal[-1].TYPE == "bid" and len(legal) > 1:
            chosen = bot.choose(state, seat, random.Random(9), ai.Budget(iterations=50))
            rule = for_game("opensky").choose(state.determinize(seat, random.Random(9)), seat, legal, random.Random(9))
            assert chosen == rule and bot.stats.iterations == 0
            searching.choose(state, seat, random.Random(9), ai.Budget(iterations=50))
            assert searching.stats.iterations == 50
            bids += 1
        random_step(state, rng)
    assert bids == 2


def _bid_edges_per_node(bot_config, state, seat: int) -> list[int]:
    """Searches one decision and returns, for every (node, seat) of the tree that holds sealed-bid edges,
    how many different bids it tried."""
    from ai.ismcts import ISMCTSBot

    bot = ISMCTSBot("mcts-easy", bot_config)
    bot.record_root = True
    bot.choose(state, seat, random.Random(3), ai.Budget(iterations=400))
    counts, stack = [], [bot.last_root]
    while stack:
        node = stack.pop()
        stack.extend(node.children.values())
        for edges in node.edges.values():
            bids = [a for a in edges if a.TYPE == "bid"]
            if bids:
                counts.append(len(bids))
    return counts


def test_rule_in_tree_plays_every_seats_sealed_bids_by_the_rule_inside_the_search():
    """OS-10/11: with `rule_in_tree` (the default) the tree does not branch on sealed bids: each seat makes
    one bid per node, its rule's; without it the search tries several."""
    import dataclasses

    import engine
    from ai.levels import SEARCH

    state = engine.get("opensky").new(2, 5)
    rng = random.Random(5)
    greedy = ai.make_bot("greedy")
    while state.legal_actions(state.to_act()[0])[-1].TYPE != "choose_market":  # greedy networks: markets get bids
        seat = state.to_act()[0]
        state.apply(seat, greedy.choose(state, seat, rng))
    seat = state.to_act()[0]
    config = dataclasses.replace(SEARCH["mcts-easy"], early_stop=False)
    assert config.rule_in_tree
    ruled = _bid_edges_per_node(config, state, seat)
    searched = _bid_edges_per_node(dataclasses.replace(config, rule_in_tree=False), state, seat)
    assert ruled and set(ruled) == {1}
    assert max(searched) > 1


def test_a_games_search_cap_lowers_only_the_levels_default_budget():
    """OpenSky caps its search levels at `max_search_iterations` (a longer search measured weaker there);
    a game without a cap keeps the level's budget, and an explicit budget is never capped."""
    from ai.heuristics import for_game
    from ai.ismcts import ISMCTSBot
    from ai.levels import SEARCH

    bot = ISMCTSBot("mcts-normal", SEARCH["mcts-normal"])
    cap = for_game("opensky").max_search_iterations
    assert cap is not None and cap < SEARCH["mcts-normal"].budget.iterations
    capped = bot._level_budget(for_game("opensky"))
    assert capped == ai.Budget(seconds=SEARCH["mcts-normal"].budget.seconds, iterations=cap)
    assert bot._level_budget(for_game("blueskies")) == SEARCH["mcts-normal"].budget
    easy = ISMCTSBot("mcts-easy", SEARCH["mcts-easy"])
    assert easy._level_budget(for_game("opensky")) == SEARCH["mcts-easy"].budget  # already below the cap

    import dataclasses

    import engine

    state = engine.get("opensky").new(2, 5)
    seat = state.to_act()[0]
    bot.choose(state, seat, random.Random(1))
    assert 0 < bot.stats.iterations <= cap
    full = ISMCTSBot("probe", dataclasses.replace(SEARCH["mcts-normal"], early_stop=False))
    full.choose(state, seat, random.Random(1), ai.Budget(iterations=cap + 100))
    assert full.stats.iterations == cap + 100


def test_a_level_plays_each_game_with_that_games_search_settings():
    """In Blue Skies and Aeroplanes `mcts-normal` is the guided search (the games' profiles, `ai.games`: a learned
    policy as the root prior, 1,000 iterations); the same bot object (a worker makes it before it knows the game)
    searches every other game with the level's own settings, and its budgets, free-core cap and shrunk budgets
    follow the game."""
    import engine
    from ai.games import profile
    from ai.levels import SEARCH, free_core_iterations, scaled_budget, search_config

    guided = profile("blueskies").search["mcts-normal"]
    guided_ap = profile("aeroplanes").search["mcts-normal"]
    for config, prior in ((guided, "bs2-r3.npz"), (guided_ap, "ap3-r3.npz")):
        assert config.policy_prior == prior and config.budget.iterations == 1000
    assert search_config("mcts-normal", "blueskies") is guided
    assert search_config("mcts-normal", "aeroplanes") is guided_ap
    assert search_config("mcts-normal", "opensky") is SEARCH["mcts-normal"]
    assert search_config("mcts-hard", "aeroplanes") is SEARCH["mcts-hard"]  # its own search, offered as mcts-normal
    assert search_config("mcts-normal") is SEARCH["mcts-normal"] and search_config("greedy", "blueskies") is None
    for game in ("blueskies", "aeroplanes"):
        assert ai.game_budget("mcts-normal", game) == ai.Budget(seconds=1.0, iterations=1000)
        assert ai.game_budget("mcts-hard", game) == ai.Budget(seconds=1.0, iterations=1000)  # plays as mcts-normal
        assert free_core_iterations("mcts-normal", game) == 1000
        assert free_core_iterations("mcts-normal", game, as_built=True) == 1000
        assert scaled_budget("mcts-normal", game, 0.5) == ai.Budget(seconds=0.5, iterations=500)
    assert free_core_iterations("mcts-hard", "aeroplanes", as_built=True) == 15_600

    bot = ai.make_bot("mcts-normal")
    for name, expected in (("blueskies", guided), ("opensky", SEARCH["mcts-normal"]), ("aeroplanes", guided_ap)):
        state = engine.get(name).new(3 if name == "aeroplanes" else 2, 5)
        seat = state.to_act()[0]
        bot.choose(state, seat, random.Random(1), ai.Budget(iterations=30))
        assert bot.config is expected, name
        assert (bot._root_policy is None) == (name == "opensky"), name  # the model's prior at a guided root
