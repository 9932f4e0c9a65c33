"""The fitted win model (`ai.learned`) and its fitting tool (`research.train.fit_win`)."""

from __future__ import annotations

import json
import math
import random

import pytest

import engine
from ai.heuristics import for_game
from ai.learned import WinModel, load_model
from engine.playout import random_step
from research.train.fit_win import Sample, fit, log_loss


def test_win_chances_are_a_softmax_of_strengths_and_ignore_what_all_seats_share():
    model = WinModel("g", ("a", "b"), (2.0, -1.0))
    rows = [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    chances = model.win_chances(rows)
    assert sum(chances) == pytest.approx(1.0)
    strengths = model.strengths(rows)
    assert strengths == [2.0, 0.0, 1.0]
    expected = [math.exp(s) for s in strengths]
    assert chances == pytest.approx([e / sum(expected) for e in expected])
    shifted = [[a + 5.0, b + 3.0] for a, b in rows]
    assert model.win_chances(shifted) == pytest.approx(chances)
    rewards = model.rewards(rows)
    assert all(0.0 <= r <= 1.0 for r in rewards)
    assert rewards.index(max(rewards)) == 0 and rewards.index(min(rewards)) == 1


def test_fit_recovers_the_weights_that_generated_the_winners():
    """Winners drawn from a known conditional logit: the fit finds its weights again."""
    truth = WinModel("g", ("a", "b", "c"), (1.5, -0.8, 0.0))
    rng = random.Random(4)
    samples = []
    for _ in range(4000):
        players = rng.choice((2, 3, 4))
        rows = [[rng.gauss(0, 1), rng.gauss(0, 2), rng.gauss(3, 1)] for _ in range(players)]
        chances = truth.win_chances(rows)
        winner = rng.choices(range(players), weights=chances)[0]
        samples.append(Sample(rows, chances, [1.0 if s == winner else 0.0 for s in range(players)]))
    weights = fit(samples)
    assert weights == pytest.approx([1.5, -0.8, 0.0], abs=0.15)
    fitted = WinModel("g", truth.features, tuple(weights))
    outcomes = [s.outcome for s in samples]
    uniform = [[1 / len(s.outcome)] * len(s.outcome) for s in samples]
    assert log_loss([fitted.win_chances(s.features) for s in samples], outcomes) < log_loss(uniform, outcomes)


def test_a_model_fitted_to_other_features_is_not_used(tmp_path, monkeypatch):
    import ai.learned as learned

    monkeypatch.setattr(learned, "FITTED_DIR", tmp_path)
    monkeypatch.setattr(learned, "_MODELS", {})
    (tmp_path / "g.json").write_text(json.dumps({"game": "g", "features": ["a", "b"], "weights": [1, 2]}))
    assert learned.load_model("g", ("a", "c")) is None
    monkeypatch.setattr(learned, "_MODELS", {})
    assert learned.load_model("g", ("a", "b")).weights == (1.0, 2.0)
    monkeypatch.setattr(learned, "_MODELS", {})
    assert learned.load_model("missing", ("a",)) is None


@pytest.mark.parametrize("name", [g for g in engine.games() if for_game(g).FEATURES])
def test_features_give_one_row_per_seat_of_the_declared_length_along_a_game(name):
    game = engine.get(name)
    heuristic = for_game(name)
    for players in (game.min_players, game.max_players):
        state = game.new(players, 3)
        rng = random.Random(3)
        while not state.is_over():
            rows = heuristic.features(state)
            assert len(rows) == players
            assert all(len(row) == len(heuristic.FEATURES) and all(math.isfinite(x) for x in row) for row in rows)
            random_step(state, rng)


@pytest.mark.parametrize("name", [g for g in engine.games() if for_game(g).FEATURES])
def test_the_committed_fit_matches_the_heuristic_and_beat_the_hand_projection_on_held_out_games(name):
    """A stored model is used only if its features are the heuristic's; it must have predicted winners
    of games it never saw better than the hand projection did (else MCTS should not use it)."""
    from ai.learned import model_path

    path = model_path(name)
    assert path.exists(), f"{name} declares FEATURES but has no fitted model: python -m research.train.fit_win --write"
    raw = json.loads(path.read_text())
    assert load_model(name, for_game(name).FEATURES) is not None
    scores = raw["fit"]["holdout_log_loss"]
    assert scores["fitted"] < scores["hand_projection"] and scores["fitted"] < scores["uniform"]


@pytest.mark.slow  # fits on three whole games, over half a minute: `make test-slow`; the fit below stays
def test_the_fitting_tool_reports_held_out_scores_and_writes_only_when_asked(tmp_path, monkeypatch):
    import ai.learned as learned
    from research.train.fit_win import main

    name = next(g for g in engine.games() if for_game(g).FEATURES)
    monkeypatch.setattr(learned, "FITTED_DIR", tmp_path)
    report = main(["--game", name, "--games", "3", "--workers", "1", "--holdout", "0.34"])
    assert report["positions"]["train"] > 0 and report["positions"]["holdout"] > 0
    assert {"fitted", "hand_projection", "uniform"} <= set(report["holdout_log_loss"])  # + stored_model if any
    assert not list(tmp_path.iterdir())


def test_fit_can_be_restricted_to_one_player_count_and_scores_the_stored_model_on_its_holdout():
    from research.train.fit_win import main

    report = main(["--game", "opensky", "--players", "2", "--games", "10", "--workers", "1"])
    assert report["players"] == [2]
    losses = report["holdout_log_loss"]
    assert set(losses) == {"fitted", "hand_projection", "uniform", "stored_model"}
    assert losses["uniform"] == pytest.approx(math.log(2), abs=1e-4)  # two seats, one winner or a shared win
    with pytest.raises(SystemExit):
        main(["--game", "opensky", "--players", "5", "--games", "2"])
