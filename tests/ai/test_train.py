"""research.train: the labelling ledger resumes without duplicates, the numpy model scores as trained, the policy level
is deterministic, honest (its decision never depends on what its seat cannot see) and fast."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import engine
from ai.heuristics import for_game
from ai.policy.bot import PolicyBot
from ai.policy.features import action_features, feature_names, feature_version, view_seed
from ai.policy.model import PolicyModel
from research.lab.selfplay import greedy_positions
from research.lab.tournament import game_seed
from research.train.label import TRAIN_DEAL_BASE, play_labelled_game, run_job
from research.train.ledger import Ledger, read_positions, snapshot

ROOT = Path(__file__).resolve().parents[2]

CAP = 30  # teacher iterations in these tests: the pipeline, not the teacher's strength


def random_model(hidden: int = 16, seed: int = 3) -> PolicyModel:
    gen = np.random.default_rng(seed)
    f = len(feature_names("blueskies"))
    layers = [(gen.normal(size=(hidden, f)), gen.normal(size=hidden)), (gen.normal(size=(1, hidden)),
                                                                         gen.normal(size=1))]
    return PolicyModel(gen.normal(size=f), np.abs(gen.normal(size=f)) + 0.5, layers, {"feature_version": "bs-after-1"})


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_ledger_resumes_after_a_kill_without_duplicates(tmp_path):
    out = tmp_path / "run"
    run_job("bs2-distill", out, positions=10**6, games=1, iterations=CAP)
    first = lines(out / "ledger.jsonl")
    assert first[-1]["kind"] == "game" and first[-1]["game_index"] == 0
    # a kill in the middle of game 1: some of its positions written, then a torn line
    partial, _ = play_labelled_game("bs2-distill", 1, "x", "run", CAP)
    with open(out / "ledger.jsonl", "a") as handle:
        handle.write("".join(json.dumps(p) + "\n" for p in partial[:5]) + '{"kind": "posi')
    run_job("bs2-distill", out, positions=10**6, games=2, iterations=CAP)
    after = lines(out / "ledger.jsonl")
    assert after[: len(first)] == first  # what was complete is untouched
    keys = [(p["game_index"], p["index"]) for p in after if p["kind"] == "position"]
    assert len(keys) == len(set(keys))
    assert [g["game_index"] for g in after if g["kind"] == "game"] == [0, 1]
    assert all(p["deal"] == TRAIN_DEAL_BASE + p["game_index"] for p in after)
    assert Ledger(out / "ledger.jsonl").positions == len(keys) == len(list(read_positions(out / "ledger.jsonl")))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["games"] == 2 and manifest["positions"] == len(keys) and manifest["teacher_iterations"] == CAP
    assert not (out / "pid").exists()
    with open(out / "ledger.jsonl", "a") as handle:  # a game under way: not in the snapshot
        handle.write(json.dumps(partial[0]) + "\n")
    snap = snapshot(out)
    assert snap.name == "ledger-2g.jsonl.gz"
    assert list(read_positions(snap)) == list(read_positions(out / "ledger.jsonl"))
    with pytest.raises(ValueError):
        Ledger(out / "ledger.jsonl").commit_game([], {"game_index": 1})


@pytest.mark.parametrize("plan", ["bs2-distill", "ap3-distill"])
def test_labels_are_deterministic_from_the_deal_and_well_formed(plan):
    from research.train.label import PLANS

    a, game_a = play_labelled_game(plan, 7, "x", "r", CAP)
    b, game_b = play_labelled_game(plan, 7, "x", "r", CAP)
    assert a == b and game_a["actions"] == game_b["actions"]
    game, players = PLANS[plan]["game"], PLANS[plan]["players"]
    for record in a:
        assert len(record["features"]) == len(record["legal"]) == len(record["visits"]) >= 2
        assert all(len(row) == len(feature_names(game)) for row in record["features"])
        assert record["feature_version"] == feature_version(game)
        assert record["visits"][record["chosen"]] == max(record["visits"])
    # the game replays from its deal and the recorded actions
    state = engine.get(game).new(players, game_a["deal"])
    for seat, action in game_a["actions"]:
        state.apply(seat, state.game.action_from_json(action))
    assert state.is_over() and state.scores() == game_a["scores"]


def test_training_deals_are_never_evaluation_deals():
    assert all(game_seed(seed, i) < TRAIN_DEAL_BASE for seed in (1, 35, 10**9) for i in (0, 10**6))


def test_numpy_model_round_trips_and_scores_as_its_formula(tmp_path):
    model = random_model()
    model.save(tmp_path / "m.npz")
    loaded = PolicyModel.load(tmp_path / "m.npz")
    x = np.random.default_rng(1).normal(size=(7, len(feature_names("blueskies"))))
    (w0, b0), (w1, b1) = model.layers
    expected = (np.tanh(((x - model.mean) / model.std) @ w0.T + b0) @ w1.T + b1)[:, 0]
    assert np.allclose(loaded.scores(x), expected) and loaded.meta == model.meta
    assert np.isclose(loaded.policy(x).sum(), 1.0)


def test_numpy_inference_matches_the_trained_network(tmp_path):
    pytest.importorskip("torch")
    from research.train.fit import fit

    out = tmp_path / "run"
    run_job("bs2-distill", out, positions=10**6, games=3, iterations=CAP)
    card = fit([out / "ledger.jsonl"], tmp_path / "m.npz", hidden=8, epochs=30, holdout=3)
    assert card["data"]["games"] == 3 and card["metrics"]["test_positions"] > 0
    model = PolicyModel.load(tmp_path / "m.npz")
    check = model.meta["check"]  # the trained torch network's own scores of a held-out position
    assert len(check["torch_scores"]) >= 2
    assert np.allclose(model.scores(check["features"]), check["torch_scores"], atol=1e-4)
    assert not np.allclose(model.scores(check["features"]), np.mean(check["torch_scores"]), atol=1e-4)


def _positions(seed: int, every: int = 3):
    for state, seat, legal, _ in greedy_positions("blueskies", 2, seed, every):
        yield state.clone(), seat, legal


def test_policy_decision_is_the_same_under_every_determinization_of_what_it_cannot_see():
    bot = PolicyBot(random_model())
    hidden_differs = 0
    checked = 0
    for state, seat, legal in _positions(11):
        choice = bot.choose(state, seat, random.Random(0))
        for k in range(3):
            truth = state.determinize(seat, random.Random(1000 + k))  # another truth the seat cannot tell apart
            assert truth.view(seat) == state.view(seat)
            assert truth.legal_actions(seat) == legal
            hidden_differs += truth.holdings() != state.holdings()
            assert action_features(truth, seat, legal) == action_features(state, seat, legal)
            assert bot.choose(truth, seat, random.Random(99 + k)) == choice
        checked += 1
    assert checked >= 10 and hidden_differs >= checked  # the truths really differed in hidden cards


@pytest.mark.parametrize("game,players", [("opensky", 2), ("aeroplanes", 3)])
def test_features_are_the_same_under_every_determinization(game, players):
    checked = hidden_differs = 0
    for state, seat, legal, _ in greedy_positions(game, players, 21, 5 if game == "opensky" else 2):
        rows = action_features(state, seat, legal)
        for k in range(2):
            truth = state.determinize(seat, random.Random(k))
            assert truth.view(seat) == state.view(seat)
            hidden_differs += truth.to_json() != state.to_json()
            assert action_features(truth, seat, legal) == rows
        checked += 1
        if checked == 12:
            break
    assert checked == 12 and hidden_differs > 0


def test_policy_is_deterministic_and_ignores_its_rng():
    a, b = PolicyBot(random_model()), PolicyBot(random_model())
    for state, seat, _legal in _positions(12):
        assert a.choose(state, seat, random.Random(1)) == b.choose(state, seat, random.Random(2))


def test_policy_decides_within_20_ms_cpu_p99():
    bot = PolicyBot(random_model(hidden=64))
    spent = []
    for state, seat, _legal in _positions(13, every=1):
        start = time.thread_time()
        bot.choose(state, seat, random.Random(0))
        spent.append(time.thread_time() - start)
    assert len(spent) >= 30
    assert np.percentile(spent, 99) < 0.020


def test_the_job_queue_runs_the_next_plan_in_the_same_process(tmp_path):
    from research.train.__main__ import main

    first, second = tmp_path / "a", tmp_path / "b"
    main(["label", "--plan", "bs2-distill", "--out", str(first), "--games", "1", "--positions", "1000000",
          "--iterations", str(CAP), "--then", f"bs2-distill:{second}:1"])
    assert Ledger(first / "ledger.jsonl").done == {0} and Ledger(second / "ledger.jsonl").done == {0}


def test_blue_skies_features_replay_as_labelled():
    positions, game = play_labelled_game("bs2-distill", 3, "x", "r", CAP)
    state = engine.get("blueskies").new(2, game["deal"])
    wanted = {p["index"]: p for p in positions}
    for step, (seat, action) in enumerate(game["actions"]):
        if step in wanted:
            legal = state.legal_actions(seat)
            rows = [[round(x, 4) for x in row] for row in action_features(state, seat, legal)]
            assert rows == wanted[step]["features"]
        state.apply(seat, state.game.action_from_json(action))


def test_opensky_plan_a_labels_pair_the_rule_with_its_rivals():
    from research.train.rollouts import halving_labels

    found = 0
    for state, seat, legal, _ in greedy_positions("opensky", 2, TRAIN_DEAL_BASE + 1, 7):
        if legal[-1].TYPE == "bid":
            continue
        labels = halving_labels(state.clone(), seat, legal, random.Random(5), top=3, extra=1, rounds=2, stages=2)
        again = halving_labels(state.clone(), seat, legal, random.Random(5), top=3, extra=1, rounds=2, stages=2)
        assert labels == again  # deterministic from the rng
        assert labels[0]["gain"] == 0.0 and labels[0]["rounds"] == 6  # the rule's choice: the baseline, every round
        assert len({c["action"] for c in labels}) == len(labels) == min(4, len(legal))
        assert all(c["rounds"] in (2, 6) for c in labels)
        found += 1
        if found == 2:
            break
    assert found == 2
    rows = action_features(state, seat, legal)
    assert len(rows) == len(legal) and len(rows[0]) == len(feature_names("opensky"))


def test_paired_evaluation_reads_its_ledger_and_reports_latency(tmp_path, monkeypatch):
    import research.train.evaluate as evaluation

    model = tmp_path / "m.npz"
    random_model().save(model)
    ledger = tmp_path / "eval.jsonl"
    first = evaluation.evaluate(str(model), "random", deals=2, seed=7, ledger=str(ledger))
    assert first["games"] == 4 and len(ledger.read_text().splitlines()) == 4
    assert first["fair"] == 0.5 and 0 <= first["wilson95"][0] <= first["share"] <= first["wilson95"][1] <= 1
    assert first["decisions"] > 0 and 0 < first["cpu_p50_ms"] <= first["cpu_p99_ms"]
    lineups = [json.loads(line)["key"]["lineup"] for line in ledger.read_text().splitlines()]
    assert lineups.count(["learned-policy", "random"]) == lineups.count(["random", "learned-policy"]) == 2
    monkeypatch.setattr(evaluation, "_play", lambda job: (_ for _ in ()).throw(AssertionError("played")))
    assert evaluation.evaluate(str(model), "random", deals=2, seed=7, ledger=str(ledger)) == first
    monkeypatch.setattr(evaluation, "train_code", lambda: "other")  # a report reads games of other code too
    reported = evaluation.evaluate(str(model), "random", deals=3, seed=7, ledger=str(ledger), report=True)
    assert reported["games"] == 4 and reported["other_code"] == 4 and reported["share"] == first["share"]



def test_a_paired_difference_pairs_the_same_games_of_two_models(tmp_path):
    """`--baseline`: model A minus model B in the games both played (same deal, line-up, opponent, cap); a model
    against itself differs by nothing, and a game only one of them played is left out."""
    import research.train.evaluate as evaluation

    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    random_model(seed=3).save(a)
    random_model(seed=4).save(b)
    ledger_a, ledger_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    evaluation.evaluate(str(b), "greedy", deals=2, seed=7, ledger=str(ledger_b))
    mine = evaluation.evaluate(str(a), "greedy", deals=3, seed=7, ledger=str(ledger_a), baseline=str(ledger_b))
    theirs = evaluation.evaluate(str(b), "greedy", deals=2, seed=7, ledger=str(ledger_b))
    paired = mine["versus_baseline"]
    assert paired["games"] == 4  # the third deal's two games are A's alone
    rows_a = [json.loads(line) for line in ledger_a.read_text().splitlines()][:4]
    credit_a = sum(1 / len(r["result"]["winners"]) for r in rows_a
                   for seat in r["result"]["winners"] if r["result"]["levels"][seat] == "learned-policy")
    assert paired["credit_difference"] == pytest.approx((credit_a - theirs["credit"]) / 4)
    itself = evaluation.evaluate(str(b), "greedy", deals=2, seed=7, ledger=str(ledger_b), baseline=str(ledger_b))
    assert itself["versus_baseline"]["credit_difference"] == itself["versus_baseline"]["margin_difference"] == 0


def test_an_evaluation_against_the_greedy_prior_search_keys_its_own_cap():
    """`mcts-normal:greedy-prior` (Blue Skies' mcts-normal before 3 December) is its own opponent in the ledger's
    keys, at its own cap, never confused with today's guided mcts-normal."""
    from research.train.evaluate import opponent_cap

    assert opponent_cap("mcts-normal:greedy-prior", "blueskies") == 5300
    assert opponent_cap("mcts-normal", "blueskies") == 1000 and opponent_cap("greedy", "blueskies") is None
    with pytest.raises(ValueError):
        opponent_cap("mcts-normal:deeper", "blueskies")


# -- OpenSky plan A: gain labels, the fit on them, the rule corrected by the model (docs/decisions/learned-bots.md)
# -------------------

def _gain_ledger(tmp_path, games: int = 3):
    """A small plan A ledger (few playouts: the pipeline, not the labels' precision)."""
    from research.train.rollouts import OS_DEAL_OFFSET, play_rollout_labelled_game

    ledger = Ledger(tmp_path / "os.jsonl")
    for index in range(games):
        records, game = play_rollout_labelled_game(TRAIN_DEAL_BASE + OS_DEAL_OFFSET + index, index, "x", "r",
                                                   every=10, rounds=1, stages=2)
        ledger.commit_game(records, game)
    return tmp_path / "os.jsonl"


def test_corrected_choice_keeps_the_rule_unless_a_top_candidate_clears_the_margin():
    from ai.policy.bot import corrected_choice

    scores = np.array([0.0, 0.5, 0.02, 0.9, 0.04])
    cands = np.array([2, 4, 0, 3])  # the rule's choice (legal 2) first, then its ranking
    assert corrected_choice(scores, cands, top=3, margin=0.01) == 1  # legal 4 beats the rule by 0.02
    assert corrected_choice(scores, cands, top=3, margin=0.03) == 0  # not by more than 0.03: the rule's
    assert corrected_choice(scores, cands, top=4, margin=0.03) == 3  # legal 3 is within the top 4 only
    assert corrected_choice(scores, cands, top=1, margin=-1.0) == 0  # top 1: the rule alone


@pytest.mark.parametrize("loss", ["regress", "listwise"])
def test_fit_on_gain_labels_picks_the_opensky_features_and_plays_the_rule_corrected(tmp_path, loss):
    pytest.importorskip("torch")
    from research.train.fit import MARGINS, fit

    ledger = _gain_ledger(tmp_path)
    card = fit([ledger], tmp_path / "m.npz", hidden=8, epochs=40, holdout=3, loss=loss)
    assert card["game"] == "opensky" and card["labels"] == "gains" and card["feature_version"] == "os-after-1"
    assert card["feature_names"] == feature_names("opensky") and card["data"]["games"] == 3
    table = card["metrics"]["test_gain_by_margin"]
    assert set(table) == {str(m) for m in MARGINS} and all(0 <= row["overrides"] <= 1 for row in table.values())
    assert card["play"]["mode"] == "rule-corrected" and card["play"]["margin_label_units"] in MARGINS
    model = PolicyModel.load(tmp_path / "m.npz")
    check = model.meta["check"]
    assert np.allclose(model.scores(check["features"]), check["torch_scores"], atol=1e-4)
    # it plays only among the rule's top candidates, or the rule's own choice
    bot, heuristic = PolicyBot(model), for_game("opensky")
    played = 0
    for state, seat, legal, _ in greedy_positions("opensky", 2, 31, 3):
        if legal[-1].TYPE in heuristic.rule_kinds:
            continue
        seed = view_seed(state, seat)
        ranked = heuristic.ranked(state.determinize(seat, random.Random(seed)), seat, legal, random.Random(seed))
        assert bot.choose(state, seat, random.Random(1)) in ranked[: card["play"]["top"]]
        played += 1
        if played == 8:
            break
    assert played == 8


def opensky_model(margin: float = -1.0, seed: int = 4) -> PolicyModel:
    """A random OpenSky model playing the rule corrected; margin -1: it overrides the rule wherever it can."""
    gen = np.random.default_rng(seed)
    f = len(feature_names("opensky"))
    layers = [(gen.normal(size=(8, f)), gen.normal(size=8)), (gen.normal(size=(1, 8)), gen.normal(size=1))]
    return PolicyModel(np.zeros(f), np.ones(f), layers,
                       {"game": "opensky", "feature_version": "os-after-1",
                        "play": {"mode": "rule-corrected", "top": 6, "margin": margin}})


def test_opensky_corrected_policy_is_honest_and_ignores_its_rng_off_the_sealed_bids():
    """Plan A's bot: the rule's ranking and the features come from the seat's view alone, so other truths the
    seat cannot tell apart (the engine's own determinizations) and another rng give the same decision."""
    bot = PolicyBot(opensky_model())
    overrides = checked = 0
    for state, seat, legal, _ in greedy_positions("opensky", 2, 23, 3):
        if legal[-1].TYPE == "bid":
            continue
        choice = bot.choose(state, seat, random.Random(0))
        for k in range(2):
            truth = state.determinize(seat, random.Random(500 + k))
            assert truth.view(seat) == state.view(seat)
            assert bot.choose(truth, seat, random.Random(77 + k)) == choice
        overrides += choice != PolicyBot(opensky_model(margin=1e9)).choose(state, seat, random.Random(0))
        checked += 1
        if checked == 10:
            break
    assert checked == 10 and overrides >= 1  # the model really changed some decisions


def test_features_of_some_actions_are_the_rows_of_the_full_list():
    """The corrected policy scores only the rule's top candidates (`only`): the rows must be those the model was
    trained on, `margin_vs_best` still against every legal action."""
    checked = 0
    for state, seat, legal, _ in greedy_positions("opensky", 2, 24, 3):
        if len(legal) < 8:
            continue
        full = action_features(state, seat, legal)
        pick = [len(legal) - 1, 0, 3]
        assert action_features(state, seat, legal, only=pick) == [full[i] for i in pick]
        checked += 1
        if checked == 5:
            break
    assert checked == 5


# -- the learned prior inside the search (docs/decisions/learned-bots.md, "guided search level")
# -------------------------------------

def test_search_with_a_learned_root_prior_is_honest_and_falls_back_to_the_greedy_prior():
    """`SearchConfig.policy_prior`: the root's PUCT prior is the model's softmax from the seat's view, so other
    truths the seat cannot tell apart give the same prior and, with the same seed, the same decision; a model of
    another game, or one that corrects the rule (gain labels), leaves the greedy prior in place."""
    import dataclasses

    from ai.bot import Budget
    from ai.ismcts import ISMCTSBot
    from ai.levels import SEARCH

    guided = ISMCTSBot("guided", dataclasses.replace(SEARCH["mcts-normal"], policy_prior="bs2-r3.npz"))
    checked = 0
    for state, seat, legal in _positions(14, every=5):
        choice = guided.choose(state, seat, random.Random(3), Budget(iterations=60))
        prior = guided._root_policy
        assert prior is not None and set(prior) == set(legal) and abs(sum(prior.values()) - 1) < 1e-9
        truth = state.determinize(seat, random.Random(800))
        assert guided.choose(truth, seat, random.Random(3), Budget(iterations=60)) == choice
        assert guided._root_policy == prior
        checked += 1
        if checked == 4:
            break
    assert checked == 4
    for model in (str(ROOT / "research/2026-12-03-opensky-plan-a/models/os2-r1.npz"),):  # OpenSky's corrects the
        # rule: not a prior over every legal action
        bot = ISMCTSBot("guided", dataclasses.replace(SEARCH["mcts-normal"], policy_prior=model))
        for state, seat, _legal, _ in greedy_positions("opensky", 2, 15, 9):
            if _legal[-1].TYPE != "bid":
                bot.choose(state.clone(), seat, random.Random(1), Budget(iterations=20))
                assert bot._root_policy is None
                break
    blue = ISMCTSBot("guided", dataclasses.replace(SEARCH["mcts-normal"], policy_prior="bs2-r3.npz"))
    for state, seat, _legal, _ in greedy_positions("opensky", 2, 16, 9):  # a Blue Skies model in OpenSky
        if _legal[-1].TYPE != "bid":
            blue.choose(state.clone(), seat, random.Random(1), Budget(iterations=20))
            assert blue._root_policy is None
            break


def _guided_levels() -> list[tuple[str, str]]:
    from ai.games import profiles

    return [(level, game) for game, entry in profiles().items() for level, config in entry.search.items()
            if config.policy_prior]


@pytest.mark.parametrize("level,game", _guided_levels())
def test_every_guided_level_decides_from_its_seats_view_only(level, game):
    """The honesty rule for every level a game plays as a guided search (its profile's `search`, `ai.games`): the
    level's own bot, made as a worker makes it, sees its game's model prior at the root, and with the same seed
    decides the same under another truth the seat cannot tell apart (the others' hands, the draw piles)."""
    import ai
    from ai.bot import Budget

    def decide(state) -> tuple:
        bot = ai.make_bot(level, game)  # a fresh bot: no tree kept from another call
        return bot.choose(state, seat, random.Random(5), Budget(iterations=40)), bot._root_policy

    players = engine.get(game).min_players
    checked = 0
    for state, seat, legal, _ in greedy_positions(game, players, 17, 4):
        state = state.clone()
        choice, prior = decide(state)
        if prior is None:  # a decision the game's rule takes (its `rule_kinds`), or a playout search
            continue
        assert set(prior) == set(legal) and abs(sum(prior.values()) - 1) < 1e-9
        for k in range(2):
            assert decide(state.determinize(seat, random.Random(900 + k))) == (choice, prior)
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_solo_evaluation_seats_the_model_once_against_the_rest_from_every_seat(tmp_path):
    """The learned bots' many-player target is one model against three greedy bots (fair share 1/4): each deal is played
    with the model in each seat once, the others all the opponent."""
    import research.train.evaluate as evaluation

    assert evaluation.solo_lineups("m", "g", 3) == [["m", "g", "g"], ["g", "m", "g"], ["g", "g", "m"]]
    model = tmp_path / "m.npz"
    random_model().save(model)
    ledger = tmp_path / "eval.jsonl"
    report = evaluation.evaluate(str(model), "random", players=3, deals=1, seed=7, ledger=str(ledger), solo=True)
    assert report["games"] == 3 and report["fair"] == pytest.approx(1 / 3) and report["solo"] is True
    seated = [json.loads(line)["key"]["lineup"].count("learned-policy") for line in ledger.read_text().splitlines()]
    assert seated == [1, 1, 1]


def test_plan_a_labels_a_four_player_table_under_its_own_plan():
    """`os4-rule-plus`: plan A at OpenSky's 4-player table (the learned bots' 4-player target); its records say so."""
    from research.train.label import PLANS
    from research.train.rollouts import OS_DEAL_OFFSET, play_rollout_labelled_game

    assert PLANS["os4-rule-plus"] == {"game": "opensky", "players": 4, "teacher": "paired greedy playouts"}
    records, game = play_rollout_labelled_game(TRAIN_DEAL_BASE + OS_DEAL_OFFSET, 0, "x", "r", 4, every=12, rounds=1,
                                               stages=1, plan="os4-rule-plus")
    assert records and game["plan"] == "os4-rule-plus" and len(game["scores"]) == 4
    assert all(r["plan"] == "os4-rule-plus" and len(r["players"]) == 4 for r in records)
    assert {r["seat"] for r in records} <= {0, 1, 2, 3} and all(r["candidates"][0]["gain"] == 0.0 for r in records)


@pytest.mark.skipif(not os.path.exists("/proc/self/autogroup"), reason="Linux autogroups only")
def test_a_niced_job_nices_its_own_scheduling_group_so_it_yields_the_cpu():
    """`setsid nice -n 19 ... label` runs in an autogroup of its own, where nice alone weighs nothing against the
    tests and benchmarks beside it: the job gives its autogroup its niceness (seen: 98% of a core before)."""
    probe = ("import os; from pathlib import Path; from research.lab.background import yield_cpu_to_others; "
             "yield_cpu_to_others(); print(Path('/proc/self/autogroup').read_text())")
    out = subprocess.run(["setsid", "nice", "-n", "19", sys.executable, "-c", probe], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip().endswith("nice 19"), out


@pytest.mark.parametrize("tool", ["research.lab.search_variants", "research.lab.rule_variants", "research.lab.ladder",
                                  "research.train.__main__"])
def test_every_long_research_tool_yields_the_cpu_when_niced(tool, monkeypatch):
    """The paired runs and the pipeline run for hours beside tests and benchmarks: each one's entry point nices its
    autogroup before anything else (`research.lab.background`), as the labelling job does."""
    import importlib

    from research.lab import background

    called = []
    monkeypatch.setattr(background, "yield_cpu_to_others", lambda: called.append(tool))
    with pytest.raises(SystemExit):
        importlib.import_module(tool).main(["--help"])
    assert called == [tool]


def test_teachers_search_as_their_plan_says():
    """bs2-distill's teacher stays the greedy-prior search it labelled with (5,300 iterations, no policy prior);
    bs2-exit's is the guided search Blue Skies' mcts-normal plays, at the plan's 2,000 iterations; bs2-exit2's the
    same search with its own prior. Aeroplanes' likewise: ap3-distill's the greedy-prior search at its 5,200,
    ap3-exit's the guided search with ap3-r3's prior at 2,000."""
    from research.train.label import teacher_bot, teacher_search

    distill, exit_ = teacher_search("bs2-distill"), teacher_search("bs2-exit")
    assert distill["policy_prior"] is None and distill["iterations"] == 5300
    assert exit_["policy_prior"] == "bs2-r3.npz" and exit_["iterations"] == 2000
    assert teacher_bot("bs2-exit", 40).budget.iterations == 40 and teacher_bot("bs2-exit").bot.record_root
    assert teacher_search("bs2-exit2")["policy_prior"] == "bs2-r5.npz"  # round 2: round 1's model as the prior
    ap_distill, ap_exit = teacher_search("ap3-distill"), teacher_search("ap3-exit")
    assert ap_distill["policy_prior"] is None and ap_distill["iterations"] == 5200
    assert ap_exit["policy_prior"] == "ap3-r3.npz" and ap_exit["iterations"] == 2000


def test_shards_label_disjoint_games_on_the_plans_own_deals(tmp_path):
    from research.train.__main__ import main
    from research.train.label import PLANS

    for k in (0, 1):
        main(["label", "--plan", "bs2-exit", "--out", str(tmp_path / f"s{k}"), "--games", "2",
              "--positions", "1000000", "--iterations", str(CAP), "--shard", f"{k}/2"])
    assert Ledger(tmp_path / "s0" / "ledger.jsonl").done == {0, 2}
    assert Ledger(tmp_path / "s1" / "ledger.jsonl").done == {1, 3}
    deals = {p["deal"] for k in (0, 1) for p in read_positions(tmp_path / f"s{k}" / "ledger.jsonl")}
    assert deals == {TRAIN_DEAL_BASE + PLANS["bs2-exit"]["deal_offset"] + i for i in range(4)}
    assert json.loads((tmp_path / "s1" / "manifest.json").read_text())["shard"] == "1/2"
    with pytest.raises(SystemExit):
        main(["label", "--plan", "bs2-exit", "--out", str(tmp_path / "bad"), "--shard", "2/2"])
