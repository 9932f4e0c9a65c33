"""The `fast` level (docs/decisions/learned-bots.md): it plays the shipped learned model where one is shipped and the
greedy rule elsewhere; every shipped model comes with its card (data manifest, training command, a check of the numpy
side against the trained network) and its evaluation ledgers on deals never used for training; its decisions are
honest (the same under every truth its seat cannot tell apart) and do not depend on the rng."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

import ai
import engine
from ai.games import fast_rule_params, fast_search_iterations, profile, profiles, shipped_model
from ai.games import replace as replace_profile
from ai.greedy import GreedyBot
from ai.policy import MODELS_DIR
from ai.policy.bot import FastBot, PolicyBot
from ai.policy.model import PolicyModel, file_digest
from research.lab.selfplay import greedy_positions
from research.lab.tournament import code_fingerprint
from research.train.label import TRAIN_DEAL_BASE

ROOT = Path(__file__).resolve().parents[2]
#: Games whose `fast` level plays a shipped model, a short search, measured rule parameters.
SHIPPED = sorted(g for g, p in profiles().items() if p.fast_model)
SEARCHED = sorted(g for g, p in profiles().items() if p.fast_search)
RULE_PARAMS = {g: p.rule_params for g, p in profiles().items() if p.rule_params}


def test_the_fast_level_is_offered_in_every_game():
    assert "fast" in ai.levels()
    assert ai.played_as("fast", "blueskies") == "fast"
    assert ai.played_as("fast", "opensky") == "fast" and ai.played_as("mcts-normal", "opensky") == "fast"
    assert ai.played_as("fast", "aeroplanes") == "fast"  # a short guided search (its profile's fast_search)
    assert "aeroplanes" not in SHIPPED and isinstance(ai.make_bot("fast", "aeroplanes"), FastBot)
    assert ai.default_budget("fast") is None  # nothing to shrink under load: its cost is fixed by what it plays


@pytest.mark.parametrize("game", SHIPPED)
def test_every_shipped_model_has_its_card_data_manifest_and_evaluation_ledgers(game):
    name, players = profile(game).fast_model.file, profile(game).fast_model.players
    path = MODELS_DIR / name
    model = PolicyModel.load(path)
    card = json.loads(path.with_suffix(".card.json").read_text(encoding="utf-8"))
    assert card["game"] == model.meta["game"] == game and card["model_sha256"] == file_digest(path)
    assert card["command"].startswith("python -m research.train fit ")
    assert f"--out ai/policy/models/{name}" in card["command"]
    for ledger, digest in card["data"]["ledger_sha256"].items():  # the training data is committed, as the card says
        assert hashlib.sha256((ROOT / ledger).read_bytes()).hexdigest()[:16] == digest
    check = card["check"]  # the trained network's own scores of a held-out position, reproduced by numpy
    assert np.allclose(model.scores(check["features"]), check["torch_scores"], atol=1e-4)
    evaluations = sorted(ROOT.glob(f"research/*/models/{path.stem}.eval-*.jsonl"))
    assert evaluations, "a shipped model's evaluation ledgers are kept with the research that made it"
    for ledger in evaluations:
        deals = {json.loads(line)["key"]["deal"] for line in ledger.read_text(encoding="utf-8").splitlines()}
        assert deals and max(deals) < TRAIN_DEAL_BASE  # evaluated on deals never used for training
    assert set(players) <= {p for p in range(2, 6)}


def _positions(game: str, players: int, seed: int):
    for state, seat, legal, _ in greedy_positions(game, players, seed, 4):
        yield state.clone(), seat, legal


@pytest.mark.parametrize("game", SHIPPED)
def test_the_fast_level_plays_the_shipped_model_honestly_and_ignores_its_rng(game):
    players = profile(game).fast_model.players[0]
    fast = ai.make_bot("fast", game)
    policy = PolicyBot(shipped_model(game, players), rule_params=fast_rule_params(game, players))
    checked = differs_from_rule = 0
    for state, seat, legal in _positions(game, players, 41):
        choice = fast.choose(state, seat, random.Random(0))
        assert choice == policy.choose(state, seat, random.Random(5))
        differs_from_rule += choice != GreedyBot().choose(state.clone(), seat, random.Random(0))
        for k in range(2):
            truth = state.determinize(seat, random.Random(500 + k))  # another truth the seat cannot tell apart
            assert truth.view(seat) == state.view(seat) and truth.legal_actions(seat) == legal
            assert fast.choose(truth, seat, random.Random(7 + k)) == choice
        checked += 1
    assert checked >= 10 and differs_from_rule >= 1  # it is the model playing, not the rule


@pytest.mark.parametrize(("game", "players"), [(g, n) for g in SEARCHED for n in profile(g).fast_search.players])
def test_where_the_fast_level_searches_it_plays_the_games_guided_search_at_its_short_cap_honestly(game, players):
    """The profile's `fast_search`: the game's guided `mcts-normal` held to a few iterations and no time limit, so the
    same decision from the same rng on any machine, the same under every truth the seat cannot tell apart, never
    more iterations than its cap whatever budget it is handed, and not always the rule's choice."""
    from ai.ismcts import ISMCTSBot

    iterations = fast_search_iterations(game, players)
    assert iterations is not None and iterations <= 200  # a short search: its p99 is the 20 ms (RESULTS)
    guided = profile(game).search["mcts-normal"]
    reference = ISMCTSBot("reference", dataclasses.replace(guided, budget=ai.Budget(iterations=iterations)))
    fast = ai.make_bot("fast", game)
    checked = differs_from_rule = 0
    for state, seat, legal in itertools.chain(_positions(game, players, 44), _positions(game, players, 45)):
        choice = fast.choose(state, seat, random.Random(9))
        assert 1 <= fast.stats.iterations <= iterations
        assert choice == reference.choose(state, seat, random.Random(9))
        assert fast.choose(state, seat, random.Random(9), ai.Budget(seconds=5.0, iterations=5000)) == choice
        assert fast.stats.iterations <= iterations  # a budget handed to it changes nothing
        truth = state.determinize(seat, random.Random(600))  # another truth the seat cannot tell apart
        assert truth.view(seat) == state.view(seat) and truth.legal_actions(seat) == legal
        assert fast.choose(truth, seat, random.Random(9)) == choice
        differs_from_rule += choice != GreedyBot().choose(state.clone(), seat, random.Random(9))
        checked += 1
        if checked == 12:
            break
    assert checked == 12 and differs_from_rule >= 1  # the search playing, not the rule


def test_the_fast_level_plays_the_rule_at_a_player_count_without_a_model(monkeypatch):
    game = SHIPPED[0]
    model = dataclasses.replace(profile(game).fast_model, players=(2,))
    monkeypatch.setitem(profiles(), game, replace_profile(game, fast_model=model))
    assert shipped_model(game, 3) is None and shipped_model(game, 2) is not None
    checked = 0
    for state, seat, _legal in _positions(game, 3, 42):
        assert ai.make_bot("fast").choose(state, seat, random.Random(3)) == GreedyBot().choose(state, seat,
                                                                                       random.Random(3))
        checked += 1
    assert checked >= 10


def test_a_shipped_model_counts_in_its_own_games_fingerprint_only(tmp_path, monkeypatch):
    """A ladder ledger is keyed by the code that plays: a new model file changes its game's fingerprint, not the
    others' (research.lab.tournament.code_fingerprint)."""
    game = SHIPPED[0]
    other = next(g for g in engine.games() if g not in SHIPPED)
    before = {g: code_fingerprint(g) for g in (game, other)}
    model = dataclasses.replace(profile(game).fast_model, file="bs2-r1.npz")
    monkeypatch.setitem(profiles(), game, replace_profile(game, fast_model=model))
    assert code_fingerprint(game) != before[game] and code_fingerprint(other) == before[other]


def test_a_search_levels_prior_counts_in_its_games_fingerprint(monkeypatch):
    """A guided search plays its prior's file (its profile's `search`): the fingerprint covers that file too, not
    only the `fast` level's, so a ledger of the guided level does not outlive a change of its prior."""
    from research.lab.tournament import played_models

    entry = profile("blueskies")
    guided = entry.search["mcts-normal"]
    assert played_models("blueskies") == {entry.fast_model.file, guided.policy_prior}
    before = code_fingerprint("blueskies")
    search = {**entry.search, "mcts-normal": dataclasses.replace(guided, policy_prior="bs2-r1.npz")}
    monkeypatch.setitem(profiles(), "blueskies", replace_profile("blueskies", search=search))
    assert played_models("blueskies") == {entry.fast_model.file, "bs2-r1.npz"}
    assert code_fingerprint("blueskies") != before
    assert played_models("opensky") == set()


def test_where_no_model_is_shipped_the_fast_level_plays_its_measured_rule_and_greedy_keeps_the_games_rule():
    """The profile's `rule_params`: the fast level plays the rule's variant measured stronger at that table (OpenSky
    2-4p: leasing from four months left, paid with the dearest cards at 2 and 4, and more), honestly (the same
    decision under every truth its seat cannot tell apart, for the same rng); the greedy level, the baseline of every
    figure, keeps the game's own rule, and a table without measured parameters plays it too."""
    from ai.heuristics import for_game, with_params

    for game, tables in RULE_PARAMS.items():
        for players, params in tables.items():
            tuned = with_params(game, params)
            assert fast_rule_params(game, players) == params and tuned is not for_game(game)
            assert all(getattr(tuned.params, k) == v for k, v in params.items())
            assert for_game(game).params != tuned.params
    assert fast_rule_params("opensky", 5) == {} and fast_rule_params("blueskies", 2) == {}
    assert with_params("opensky", {}) is for_game("opensky")
    with pytest.raises(TypeError):
        with_params("opensky", {"no_such_field": 1})
    for game, players in (("opensky", 2), ("opensky", 3), ("opensky", 4)):
        assert shipped_model(game, players) is None
        fast = ai.make_bot("fast", game)
        tuned_rule = GreedyBot(with_params(game, RULE_PARAMS[game][players]))
        checked = differs = 0
        for state, seat, _legal in _positions(game, players, 43):
            choice = fast.choose(state, seat, random.Random(0))
            assert choice == tuned_rule.choose(state, seat, random.Random(0))
            differs += choice != GreedyBot().choose(state, seat, random.Random(0))
            for k in range(2):
                truth = state.determinize(seat, random.Random(500 + k))
                assert fast.choose(truth, seat, random.Random(0)) == choice
            checked += 1
        assert checked >= 10 and differs >= 1, game  # the measured rule, not the game's own


def test_a_bot_worker_runs_one_blas_thread_unless_told_otherwise():
    """`ai.policy.one_blas_thread`: the worker package sets it before any task imports numpy (a pool's spinning
    threads were charged to the Blue Skies model's decisions); a value the operator set is kept."""
    import subprocess
    import sys

    from ai.policy import BLAS_THREAD_VARIABLES

    probe = "import os, sys, services.workers; print([os.environ[v] for v in sys.argv[1:]], 'numpy' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    out = subprocess.run([sys.executable, "-c", probe, *BLAS_THREAD_VARIABLES], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "['1', '1', '1'] False"
    env["OPENBLAS_NUM_THREADS"] = "4"
    out = subprocess.run([sys.executable, "-c", probe, *BLAS_THREAD_VARIABLES], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "['1', '4', '1'] False"
