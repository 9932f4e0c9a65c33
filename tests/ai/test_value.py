"""The learned leaf value (`ai.policy.value`, `SearchConfig.value_model`, `research.train.fit_value`),
docs/decisions/learned-bots.md."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest

from ai.bot import Budget
from ai.heuristics import for_game
from ai.ismcts import ISMCTSBot
from ai.levels import SEARCH
from ai.outcome import estimated_rewards
from ai.policy.features import _time_left, action_features, view_seed
from ai.policy.model import PolicyModel
from ai.policy.value import load_value, value_columns, value_feature_names, value_features
from research.lab.selfplay import greedy_positions
from research.train.label import run_job

ROOT = Path(__file__).resolve().parents[2]

CAP = 30  # teacher iterations in these tests: the pipeline, not the teacher's strength


def value_model(path, game: str = "blueskies", players: tuple[int, ...] = (2,), seed: int = 5) -> str:
    """A random value model of `game` written to `path` (as `research.train.fit_value` writes one), its path."""
    gen = np.random.default_rng(seed)
    f = len(value_feature_names(game))
    layers = [(gen.normal(size=(8, f)), gen.normal(size=8)), (gen.normal(size=(1, 8)), gen.normal(size=1))]
    meta = {"game": game, "labels": "value", "players_valued": list(players),
            "value_features": value_feature_names(game)}
    PolicyModel(gen.normal(size=f), np.abs(gen.normal(size=f)) + 0.5, layers, meta).save(path)
    return str(path)


def _positions(seed: int, every: int = 4):
    for state, seat, legal, _ in greedy_positions("blueskies", 2, seed, every):
        yield state.clone(), seat, legal


def test_value_features_are_the_value_columns_of_the_afterstate_rows():
    """A leaf is valued on the same quantities the model learned from: an action's afterstate row (built on the
    view-seeded determinization) holds `value_features` of that afterstate, but for the time left, which the row
    measures before the action."""
    heuristic = for_game("blueskies")
    columns = value_columns("blueskies")
    checked = 0
    for state, seat, legal in _positions(21):
        rows = action_features(state, seat, legal)
        det = state.determinize(seat, random.Random(view_seed(state, seat)))
        for index in (0, len(legal) // 2, len(legal) - 1):
            after = det.clone()
            after.apply(seat, legal[index])
            expected = value_features(after, seat)
            row = [rows[index][c] for c in columns]
            assert row[:-1] == pytest.approx(expected[:-1])
            assert row[-1] == pytest.approx(_time_left("blueskies", heuristic, det))
            checked += 1
    assert checked >= 12


def test_a_policy_model_or_other_columns_are_refused_as_a_value_model(tmp_path):
    with pytest.raises(ValueError, match="not a value model"):
        load_value("bs2-r5.npz")
    path = value_model(tmp_path / "v.npz")
    model = PolicyModel.load(path)
    model.meta["value_features"] = model.meta["value_features"][:-1]
    model.save(tmp_path / "w.npz")
    with pytest.raises(ValueError, match="columns differ"):
        load_value(str(tmp_path / "w.npz"))


def test_leaf_rewards_are_the_seats_logits_as_strengths(tmp_path):
    """Each seat's logit is its strength on a scale of 1 (as the fitted win model's): in a 2-player game the two
    rewards sum to 1 and seat 0's is sigmoid(logit0 - logit1)."""
    model = load_value(value_model(tmp_path / "v.npz"))
    heuristic = for_game("blueskies")
    for state, _seat, _legal in list(_positions(22))[:5]:
        rewards = model.rewards(state, heuristic)
        logits = model.logits([value_features(state, s) for s in range(2)])
        assert sum(rewards) == pytest.approx(1.0)
        assert rewards[0] == pytest.approx(1 / (1 + np.exp(logits[1] - logits[0])))
        assert rewards == pytest.approx(estimated_rewards(logits.tolist(), 1.0))


def _backed(bot: ISMCTSBot, seat: int) -> list[float]:
    """The total results the last search backed up on `seat`'s root edges, sorted."""
    return sorted(edge[1] for edge in bot.last_root.edges[seat].values())


def test_search_values_its_leaves_by_the_model_only_where_it_was_fitted(tmp_path):
    """`SearchConfig.value_model`: used at the player counts of its card, in its game; elsewhere the leaves keep
    `evaluation`. The search stays honest (other truths the seat cannot tell apart, same seed: same decision) and
    the model changes what it backs up."""
    path = value_model(tmp_path / "v.npz")
    config = dataclasses.replace(SEARCH["mcts-normal"], policy_prior="bs2-r5.npz", rollout_depth=2)
    valued = ISMCTSBot("v", dataclasses.replace(config, value_model=path))
    plain = ISMCTSBot("p", config)
    valued.record_root = plain.record_root = True
    differs = 0
    for state, seat, _legal in list(_positions(23))[:4]:
        choice = valued.choose(state, seat, random.Random(4), Budget(iterations=80))
        assert valued._value is not None
        truth = state.determinize(seat, random.Random(901))
        assert valued.choose(truth, seat, random.Random(4), Budget(iterations=80)) == choice
        plain.choose(state, seat, random.Random(4), Budget(iterations=80))
        assert plain._value is None
        differs += _backed(valued, seat) != _backed(plain, seat)
    assert differs >= 3
    for state, seat, _legal, _ in greedy_positions("blueskies", 3, 24, 9):  # fitted at 2 players only
        valued.choose(state.clone(), seat, random.Random(1), Budget(iterations=20))
        assert valued._value is None
        break
    opensky = ISMCTSBot("v", dataclasses.replace(SEARCH["mcts-normal"], value_model=path))
    for state, seat, legal, _ in greedy_positions("opensky", 2, 25, 9):  # a Blue Skies model in OpenSky
        if legal[-1].TYPE != "bid":
            opensky.choose(state.clone(), seat, random.Random(1), Budget(iterations=20))
            assert opensky._value is None
            break


def test_fit_value_learns_from_outcomes_and_mean_results_and_numpy_matches_torch(tmp_path):
    pytest.importorskip("torch")
    from research.train.fit_value import fit_value

    out = tmp_path / "run"
    run_job("bs2-exit", out, positions=10**6, games=3, iterations=CAP)
    card = fit_value([out / "ledger.jsonl"], tmp_path / "v.npz", hidden=8, epochs=30, holdout=3,
                     min_visits=2, rank_weight=10.0)
    assert card["data"]["games"] == 3 and card["metrics"]["test_positions"] > 0
    losses = card["metrics"]["test_outcome_log_loss"]
    assert {"value_model", "constant", "teacher_mean_result", "fitted_win_model", "projection"} <= set(losses)
    assert 0 <= card["metrics"]["test_top1_agreement"] <= 1 and card["metrics"]["test_mean_result_regret"] >= 0
    model = load_value(str(tmp_path / "v.npz"))
    check = card["check"]
    assert model.logits([check["features"]])[0] == pytest.approx(check["torch_logit"], abs=1e-4)
    assert model.players == (2,) and model.game == "blueskies"


@pytest.mark.parametrize("name", ["bs2-v1.npz", "bs2-v2.npz"])
def test_the_committed_value_models_load_and_reproduce_their_cards(name):
    """research/2026-12-04-bs-learned-value: the models measured there load as value models of 2-player Blue Skies
    and give the training side's own logit of their card's check row."""
    model = load_value(str(ROOT / "research/2026-12-04-bs-learned-value/models" / name))
    assert model.game == "blueskies" and model.players == (2,)
    check = model.model.meta["check"]
    assert model.logits([check["features"]])[0] == pytest.approx(check["torch_logit"], abs=1e-4)
