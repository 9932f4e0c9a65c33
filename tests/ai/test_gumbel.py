"""The Gumbel / sequential-halving root (`ai.gumbel`): its schedule, common random numbers, the choice rule, honesty
and determinism, on real Blue Skies positions with the shipped policy."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

import ai.gumbel as gumbel
from ai.bot import Budget
from ai.gumbel import GumbelBot, GumbelConfig, halving_schedule, sigma
from ai.heuristics import for_game
from ai.learned import load_model
from ai.outcome import WIN_WEIGHT
from research.lab.selfplay import greedy_positions


def _positions(count: int, seed: int = 11, players: int = 2):
    """Blue Skies positions with at least three legal actions (BS rules: purchases, plays and discards)."""
    out = []
    for state, seat, legal, _ in greedy_positions("blueskies", players, seed, 3):
        if len(legal) >= 3:
            out.append((state.clone(), seat))
            if len(out) == count:
                break
    assert len(out) == count
    return out


@pytest.mark.parametrize(("candidates", "simulations", "expected"), [
    (8, 150, [(8, 6), (4, 12), (2, 27)]),
    (8, 200, [(8, 8), (4, 16), (2, 36)]),
    (4, 150, [(4, 18), (2, 39)]),
    (2, 150, [(2, 75)]),
    (5, 10, [(5, 1), (3, 1), (2, 1)]),
    (1, 150, [(1, 150)]),
    (0, 150, []),
])
def test_sequential_halving_spends_the_budget_in_equal_rounds_halving_down_to_two(candidates, simulations, expected):
    schedule = halving_schedule(candidates, simulations)
    assert schedule == expected
    if candidates >= 2 and simulations >= 3 * candidates:
        assert sum(count * each for count, each in schedule) <= simulations


def test_every_surviving_candidate_is_simulated_on_the_same_seeds_each_round(monkeypatch):
    """Common random numbers: within a round every survivor plays the same determinizations and chance (one seed
    per simulation), and a later round's survivors were all in the earlier rounds, so their means are over the
    same seeds."""
    calls: list[tuple[object, int]] = []
    real = gumbel.simulate

    def spy(truth, seat, action, seed, *rest):
        calls.append((action, seed))
        return real(truth, seat, action, seed, *rest)

    monkeypatch.setattr(gumbel, "simulate", spy)
    state, seat = next((s, seat) for s, seat in _positions(6) if len(s.legal_actions(seat)) >= 8)
    bot = GumbelBot("g", GumbelConfig(simulations=150, considered=8))
    bot.choose(state, seat, random.Random(3))
    seeds = defaultdict(list)
    for action, seed in calls:
        seeds[action].append(seed)
    counts = sorted(len(v) for v in seeds.values())
    assert counts == [6] * 4 + [18] * 2 + [45] * 2  # 8 x 6, then 4 x 12 more, then 2 x 27 more
    for a in seeds:
        for b in seeds:
            shared = min(len(seeds[a]), len(seeds[b]))
            assert seeds[a][:shared] == seeds[b][:shared]
    assert bot.stats.iterations == len(calls) == 48 + 48 + 54


def test_the_choice_is_logit_plus_sigma_of_the_mean_result():
    """With the policy's logits alone (c_scale 0) the root plays the most probable candidate; with the results
    weighted in, the survivor whose logit + sigma(mean simulated result) is largest, recomputed here from the same
    seeds by `simulate`."""
    heuristic = for_game("blueskies")
    model = load_model("blueskies", heuristic.FEATURES)
    for state, seat in _positions(4, seed=12):
        actions = state.legal_actions(seat)
        logits = [0.0] * len(actions)
        logits[len(actions) - 1] = 5.0
        policy_only = GumbelBot("g", GumbelConfig(considered=4, gumbel_scale=0.0, c_scale=0.0))
        choice, _ = policy_only.search(state, seat, actions, logits, random.Random(1), 40, heuristic)
        assert choice == len(actions) - 1

        flat = [0.0] * len(actions)  # equal logits, no noise: the first four in legal order are the candidates
        bot = GumbelBot("g", GumbelConfig(considered=2, gumbel_scale=0.0))
        choice, played = bot.search(state, seat, actions, flat, random.Random(9), 40, heuristic)
        rng = random.Random(9)
        seeds = [rng.getrandbits(64) for _ in range(20)]
        means = [sum(gumbel.simulate(state, seat, actions[i], s, heuristic, model, 8, WIN_WEIGHT) for s in seeds)
                 / 20 for i in (0, 1)]
        assert played == 40
        assert choice == max((0, 1), key=lambda i: (flat[i] + sigma(means[i], 20, 50.0, 1.0), -i))


def test_the_root_is_deterministic_from_its_rng_and_honest():
    """The same rng gives the same action, and so does any other truth the seat cannot tell apart (the rivals'
    hands and the deck resampled by the engine's own determinization): the root reads only the seat's view."""
    for state, seat in _positions(3, seed=13):
        def decide(truth, seat=seat) -> object:
            return GumbelBot("g", GumbelConfig(simulations=60)).choose(truth, seat, random.Random(21))

        choice = decide(state)
        assert decide(state) == choice
        for k in range(2):
            other = state.determinize(seat, random.Random(700 + k))
            assert other.view(seat) == state.view(seat)
            assert decide(other) == choice


def test_a_budgets_iteration_cap_is_the_number_of_simulations():
    state, seat = _positions(1, seed=14)[0]
    bot = GumbelBot("g", GumbelConfig(simulations=150))
    bot.choose(state, seat, random.Random(2), Budget(iterations=24))
    assert 0 < bot.stats.iterations <= 24


def test_in_a_game_its_policy_was_not_fitted_for_it_plays_the_greedy_rule():
    from ai.greedy import GreedyBot

    state, seat, _legal, _ = next(p for p in greedy_positions("opensky", 2, 5, 3) if len(p[2]) > 1)
    bot = GumbelBot("g", GumbelConfig())
    assert bot.choose(state, seat, random.Random(4)) == GreedyBot().choose(state, seat, random.Random(4))
