"""The per-table ladder fit (`research.lab.ladder_fit`): the Plackett-Luce / Bradley-Terry fit on synthetic games of
known strengths, its intervals, and the published ladders against a fit of the repository's ledgers now."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from research.lab import ladder_fit
from research.lab.ladder_fit import ELO, Game, places, plackett_luce

ROOT = Path(__file__).resolve().parents[2]


def _pl_game(strengths: dict[str, float], seats: list[str], rng: random.Random) -> Game:
    """A game whose finishing order is drawn from the Plackett-Luce model (the Gumbel trick: order by strength
    plus Gumbel noise)."""
    keys = [strengths[name] - math.log(-math.log(rng.random())) for name in seats]
    order = sorted(range(len(seats)), key=lambda s: -keys[s])
    return Game(tuple(seats), tuple((s,) for s in order))


@pytest.mark.parametrize("players", [2, 4])
def test_the_fit_recovers_known_strengths_within_its_intervals(players):
    """Synthetic games of known strengths (Elo: greedy 0, strong +200, weak -150, far -400), line-ups drawn at random
    with greedy in every game: each fitted rating lies within its 95% interval of the truth, and the intervals are
    about as wide as the games allow."""
    truth = {"greedy": 0.0, "strong": 200.0, "weak": -150.0, "far": -400.0}
    theta = {name: elo / ELO for name, elo in truth.items()}
    rng = random.Random(players)
    others = [name for name in truth if name != "greedy"]
    games = [_pl_game(theta, ["greedy", *rng.choices(others, k=players - 1)], rng) for _ in range(4000)]
    fitted = plackett_luce(games, prior_draws=0.0)
    assert set(fitted) == set(truth)
    assert fitted["greedy"].elo == 0 and fitted["greedy"].low == fitted["greedy"].high == 0
    for name in others:
        rating = fitted[name]
        assert rating.low < truth[name] < rating.high, (name, rating)
        assert 5 < rating.high - rating.low < 80, (name, rating)  # thousands of games: tens of Elo, not hundreds
    assert fitted["strong"].elo > fitted["weak"].elo > fitted["far"].elo


def test_two_bots_fit_to_the_logit_of_the_share_with_the_binomial_standard_error():
    """Bradley-Terry with two bots is closed form: with k wins in n games and one virtual draw, the rating is the
    logit of (k + 1/2) / (n + 1) and its standard error 1 / sqrt((n + 1) p (1 - p)); the fit gives exactly that."""
    n, k = 200, 130
    games = [Game(("a", "greedy"), ((0,), (1,)) if i < k else ((1,), (0,))) for i in range(n)]
    rating = plackett_luce(games)["a"]
    p = (k + 0.5) / (n + 1)
    se = 1 / math.sqrt((n + 1) * p * (1 - p))
    assert rating.elo == pytest.approx(ELO * math.log(p / (1 - p)), abs=1e-6)
    assert rating.high - rating.elo == pytest.approx(ELO * 1.959964 * se, abs=1e-6)
    assert rating.games == n


def test_a_draw_is_half_a_win_and_a_clean_sweep_stays_finite():
    draws = [Game(("a", "greedy"), ((0, 1),))] * 50
    assert plackett_luce(draws)["a"].elo == pytest.approx(0, abs=1e-9)
    sweep = [Game(("random", "greedy"), ((1,), (0,)))] * 100
    rating = plackett_luce(sweep)["random"]
    assert math.isfinite(rating.elo) and rating.elo < -600 and rating.high < 0


def test_a_bot_not_tied_to_the_anchor_by_any_game_is_not_rated():
    """Two bots that only met each other have no rating against greedy: the table says "not measured" for them."""
    games = [Game(("a", "greedy"), ((0,), (1,)))] * 10 + [Game(("b", "c"), ((0,), (1,)))] * 10
    assert set(plackett_luce(games)) == {"a", "greedy"}
    with pytest.raises(ValueError, match="anchor"):
        plackett_luce([Game(("b", "c"), ((0,), (1,)))])


def test_finishing_places_put_the_winners_first_then_order_by_score():
    assert places([100, 140, 140, 90], [2]) == ((2,), (1,), (0,), (3,))  # the game's tie-break named seat 2
    assert places([100, 140, 140], [1, 2]) == ((1, 2), (0,))
    assert places([50, 50], []) == ((0, 1),)


def test_the_published_ladders_are_a_fit_of_the_ledgers_now():
    """What the catalog serves (`ai/ladders.json`, through `ai.level_figures`) is exactly a fit of the stored
    ledgers: `python -m research.lab.ladder_fit --write` after a ledger changes."""
    assert ladder_fit.published() == ladder_fit.ladders()


def test_every_ledger_in_the_repository_is_read_or_excluded_with_a_reason():
    known = {source.path for source in ladder_fit.SOURCES}
    found = [p.relative_to(ROOT).as_posix() for pattern in ("bench/results/**/*.jsonl", "ai/policy/models/*.jsonl",
                                                             "research/**/*.jsonl*") for p in ROOT.glob(pattern)]
    assert found
    for path in found:
        assert path in known or any(path.startswith(prefix) for prefix in ladder_fit.EXCLUDED), path
    for source in ladder_fit.SOURCES:
        assert (ROOT / source.path).exists(), source.path
        assert ladder_fit.read_source(source), source.path  # every seat of every line has an identity


def test_each_offered_level_is_filed_under_what_it_plays_today():
    """The identity each level's rating is read from follows the level's settings: a shipped model, a search cap or a
    prior changed in a game's profile (`ai/games/<game>.py`) without the ladder's identity moving fails here."""
    import ai
    from ai.games import profile

    for game, identities in ladder_fit.level_identity().items():
        entry = profile(game)
        assert list(identities) == ai.ladder(game)
        guided = entry.search.get("mcts-normal")
        if guided is not None:
            prior = Path(guided.policy_prior).stem
            assert identities["mcts-normal"] == f"search:guided:{prior}:{guided.budget.iterations}"
        if entry.fast_search is not None:
            assert identities["fast"] == f"search:guided:{prior}:{entry.fast_search.iterations}"
        elif entry.fast_model is not None:
            assert identities["fast"] == f"policy:{Path(entry.fast_model.file).stem}"
        else:
            assert entry.rule_params and identities["fast"] == f"rule:{game}-fast"


def test_each_table_rates_its_levels_or_says_not_measured():
    """Every game and player count has a ladder; greedy is 0 at every table; a rated level has an interval around
    its rating and games behind it."""
    published = ladder_fit.published()
    for game, counts in ladder_fit.table_sizes().items():
        assert set(published[game]) == {str(p) for p in counts}
        for rungs in published[game].values():
            assert rungs["greedy"]["rating"] == 0
            for rung in rungs.values():
                if rung["rating"] is not None:
                    assert rung["low"] <= rung["rating"] <= rung["high"] and rung["games"] > 0


def test_the_fit_reads_who_won_so_a_risk_taker_is_rated_by_its_wins():
    """A bot that wins half of its 4-player games against three greedy and finishes last in the others: read by who
    won (the ladder's fit) it is rated by its win share, s = e^t / (e^t + 3), t = ln 3; the whole order would rate it
    far lower (Aeroplanes' `fast` at 4 players plays like this)."""
    won = Game(("risk", "greedy", "greedy", "greedy"), ((0,), (1,), (2,), (3,)))
    lost = Game(("risk", "greedy", "greedy", "greedy"), ((1,), (2,), (3,), (0,)))
    games = [won, lost] * 500
    by_wins = plackett_luce(games, prior_draws=0.0)["risk"].elo
    assert by_wins == pytest.approx(ELO * math.log(3), abs=1e-6)
    assert plackett_luce(games, prior_draws=0.0, depth=None)["risk"].elo < by_wins - 100


@pytest.mark.parametrize("doc", ["docs/platform/bots.md", "docs/bots.md"])
def test_the_docs_publish_the_ladders_as_fitted(doc):
    """The docs' tables are `python -m research.lab.ladder_fit --markdown` of the published ladders, word for word."""
    assert ladder_fit.markdown(ladder_fit.published()) in (ROOT / doc).read_text(encoding="utf-8")
