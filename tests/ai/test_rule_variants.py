"""research.lab.rule_variants and the OpenSky rule's RuleParams: parsing, seat mapping, and that the weights are
wired."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import engine
from ai.greedy import GreedyBot
from ai.heuristics import aeroplanes, with_params
from ai.heuristics.opensky import HEURISTIC, OpenSkyHeuristic, RuleParams
from research.lab.match import play_match
from research.lab.paired import seat_lines, summarize
from research.lab.rule_variants import parse_variant, play
from research.lab.tournament import game_seed

ROOT = Path(__file__).resolve().parents[2]


def test_variants_parse_into_ruleparams_fields_and_refuse_anything_else():
    assert parse_variant("opensky", 'anc={"anc_fail": 0.6}') == ("anc", {"anc_fail": 0.6})
    assert parse_variant("opensky", "base=") == ("base", {})
    for bad in ("no-equals", '={"cube": 1}', "x=[1]", 'x={"nope": 1}', "x={bad json"):
        with pytest.raises(ValueError):
            parse_variant("opensky", bad)


def test_a_game_without_rule_params_is_refused():
    with pytest.raises(ValueError, match="no RuleParams"):
        parse_variant("blueskies", "base={}")


def test_the_greedy_level_plays_the_default_params():
    assert HEURISTIC.params == RuleParams()
    assert aeroplanes.HEURISTIC.params == aeroplanes.RuleParams()
    assert with_params("aeroplanes", {}) is aeroplanes.HEURISTIC


def test_aeroplanes_variants_change_the_projection_and_the_lookahead_only_where_asked():
    """Aeroplanes' rule (AE-13, AE-15 projection; the turn lookahead) takes its weights from RuleParams: the
    defaults give the projection the search levels evaluate with, a variant weighs the same parts otherwise."""
    state = engine.get("aeroplanes").new(3, 5)
    rng = random.Random(1)
    for _ in range(60):
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    base = aeroplanes.HEURISTIC.projected_scores(state)
    assert aeroplanes.AeroplanesHeuristic().projected_scores(state) == base
    richer = with_params("aeroplanes", {"money_vp": 0.5}).projected_scores(state)
    money = [float(m) for m in state.money]
    assert any(money) and not state.is_over()
    assert richer == pytest.approx([b + 0.45 * m for b, m in zip(base, money, strict=True)])
    assert with_params("aeroplanes", {"turn_steps": 2}).params.turn_steps == 2


@pytest.mark.parametrize("players", [2, 4])
def test_the_base_variant_replays_the_all_greedy_game_in_the_variants_seat(players):
    """Seat mapping: game g puts the variant where `research.lab.tournament` puts line-up position 0."""
    for index in range(players):
        name, got_index, credit, margin = play(("opensky", players, "base", {}, index, 7, {}, {}))
        result = play_match("opensky", ["greedy"] * players, game_seed(7, index))
        seat = (-index) % players
        expected = 1.0 / len(result.winners) if seat in result.winners else 0.0
        others = max(x for s, x in enumerate(result.scores) if s != seat)
        assert (name, got_index, credit, margin) == ("base", index, expected, result.scores[seat] - others)


def test_against_replaces_the_rule_of_the_other_seats():
    """`--against` measures a changed rule against the rule as it was: the other seats play the rule with those
    fields, so a variant equal to it replays the game that rule plays in every seat."""
    old = with_params("opensky", {"bid_mix": 0.0})
    for index in range(2):
        _, _, credit, margin = play(("opensky", 2, "old", {"bid_mix": 0.0}, index, 7, {}, {"bid_mix": 0.0}))
        result = play_match("opensky", ["greedy"] * 2, game_seed(7, index), bots=[GreedyBot(old), GreedyBot(old)])
        seat = (-index) % 2
        assert (credit, margin) == ((1.0 / len(result.winners) if seat in result.winners else 0.0),
                                    result.scores[seat] - result.scores[1 - seat])


def test_changed_weights_change_play():
    """A variant that values a failed price check like a win takes ancillaries the greedy rule refuses
    (OS-14.2), so over a few games its results differ from greedy's."""
    rule = OpenSkyHeuristic(RuleParams(anc_fail=1.0))
    differ = 0
    for seed in range(6):
        base = play_match("opensky", ["greedy"] * 2, seed)
        varied = play_match("opensky", ["greedy"] * 2, seed, bots=[GreedyBot(rule), GreedyBot()])
        differ += base.scores != varied.scores
    assert differ >= 1


def test_summary_pairs_each_variant_with_the_first():
    results = [("a", 0, 1.0, 10.0), ("a", 1, 0.0, -5.0), ("b", 0, 1.0, 20.0), ("b", 1, 1.0, 3.0)]
    lines = summarize(results, ["a", "b"])
    assert lines[1].split()[:4] == ["a", "2", "1.0", "50.0%"]
    assert lines[2].split()[:4] == ["b", "2", "2.0", "100.0%"]
    assert "+0.500" in lines[2] and "+0.000" in lines[1]
    assert "+9.0 ± 1.0" in lines[2]  # paired margin gains 10 and 8


def test_seat_lines_credit_each_game_to_the_seat_the_variant_sat_in():
    """Game g seats the variant in seat (-g) mod players: games 0 and 2 in seat 0, games 1 and 3 in seat 1
    of a 2-player game; a variant that never sat in a seat shows a dash there."""
    results = [("a", 0, 1.0, 5.0), ("a", 1, 0.0, -5.0), ("a", 2, 0.5, 0.0), ("a", 3, 1.0, 9.0)]
    lines = seat_lines(results, ["a"], 2)
    assert lines[0].split() == ["win", "rate", "in", "seat", "0", "seat", "1"]
    assert lines[1].split() == ["a", "75.0%", "50.0%"]
    assert seat_lines([("b", 0, 1.0, 1.0)], ["b"], 3)[1].split() == ["b", "100.0%", "-", "-"]


def test_a_variant_may_name_the_model_that_corrects_its_rule():
    """A model and the rule it corrects are compared on the same games: `"model"` seats the rule corrected by
    it (the fast level's PolicyBot), with the variant's other fields as the rule it corrects."""
    from ai.policy.bot import PolicyBot
    from research.lab.rule_variants import variant_bot

    model = ROOT / "research/2026-12-03-opensky-plan-a/models/os2-r2.npz"  # a research model: a path, not a name
    _, fields = parse_variant("opensky", f'm={{"anc_fail": 0.45, "model": "{model}"}}')
    bot = variant_bot("opensky", fields)
    assert isinstance(bot, PolicyBot) and bot.rule_params == {"anc_fail": 0.45}
    assert variant_bot("opensky", {"anc_fail": 0.45}).heuristic is with_params("opensky", {"anc_fail": 0.45})
    with pytest.raises(ValueError, match="no model file"):
        parse_variant("opensky", 'm={"model": "no-such-model.npz"}')


def test_a_bid_takes_the_safe_fare_unless_the_variant_weighs_every_fare_by_its_odds():
    """OS-11.1/OS-11.3: against a rival holding 250 and 500 a 200 wins whatever it plays (safe), a 500 only ties
    its 500 (half the odds, 250 expected). The rule bids the safe fare; `bid_safe=0` the best expectation."""
    rivals = [(1, 0, [250, 500])]
    assert OpenSkyHeuristic._best_fare(0, 0, [200, 500], rivals, RuleParams()) == 200
    assert OpenSkyHeuristic._best_fare(0, 0, [200, 500], rivals, RuleParams(bid_safe=0)) == 500
    assert OpenSkyHeuristic._best_fare(0, 0, [200, 500], rivals, RuleParams(bid_safe=0, bid_power=2.0)) == 200


def _first_decision(kind: str, accept, seeds=range(40)):
    """A greedy 2-player OpenSky position whose acting seat faces a `kind` decision with legal actions that
    `accept` takes, found by playing seeded greedy games (the rule in every seat)."""
    for seed in seeds:
        state = engine.get("opensky").new(2, seed)
        rng = random.Random(seed)
        while not state.is_over():
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                if legal and kind == legal[-1].TYPE and accept(state, seat, legal):
                    return state, seat, legal
                if legal:
                    state.apply(seat, HEURISTIC.choose(state, seat, legal, rng))
    raise AssertionError(f"no {kind} decision found")


def test_lease_payment_cheapest_cards_by_default_dearest_when_asked():
    """OS-17.3: the table falls by 200 an aircraft whatever cards pay, so which cards return to the hand is the
    choice: the rule takes back the cheapest set, `lease_pay_high=1` the dearest (to bid them again)."""
    def two_ways(state, seat, legal):
        sums = {sum(a.cards) for a in legal if a.aircraft == 1}
        return len(sums) >= 2

    state, seat, legal = _first_decision("lease", two_ways)
    params = {"lease_board_max": 9, "lease_months_min": 0, "lease_aircraft": 1}
    cheap = with_params("opensky", params).choose(state, seat, legal, random.Random(0))
    dear = with_params("opensky", {**params, "lease_pay_high": 1}).choose(state, seat, legal, random.Random(0))
    one = [a for a in legal if a.aircraft == 1]
    assert cheap.aircraft == dear.aircraft == 1
    assert sum(cheap.cards) == min(sum(a.cards) for a in one)
    assert sum(dear.cards) == max(sum(a.cards) for a in one)


def test_flash_deal_is_kept_for_a_fare_of_at_least_flash_min_fare():
    """OS-12: the rule spends its one Flash Deal whenever a lower card makes it the sole provisional winner; with
    `flash_min_fare` above every card that would do so it declines and keeps the token."""
    def rule_flashes(state, seat, legal):
        return HEURISTIC.choose(state, seat, legal, random.Random(0)).TYPE == "flash_deal"

    state, seat, legal = _first_decision("flash_deal", rule_flashes)
    chosen = HEURISTIC.choose(state, seat, legal, random.Random(0))
    at = with_params("opensky", {"flash_min_fare": chosen.fare}).choose(state, seat, legal, random.Random(0))
    above = with_params("opensky", {"flash_min_fare": chosen.fare + 1}).choose(state, seat, legal, random.Random(0))
    assert at == chosen
    assert above.TYPE == "decline_flash"


def test_aeroplanes_lookahead_work_limit_cuts_only_the_longest_turns():
    """`turn_work` bounds the positions the rule projects in one decision (the fast level's p99 CPU, 20 ms a decision
    at most): the longest 3-player turn projects thousands unlimited and about the limit with it, while a short
    turn is decided exactly as without a limit (its whole lookahead fits)."""
    from bench.bot_cost import positions  # greedy self-play positions, the bench's sample of the fast level's cost

    def projections(rule, state, seat, legal) -> int:
        calls = 0
        margin = rule.margin

        def counted(trial, s):
            nonlocal calls
            calls += 1
            return margin(trial, s)

        rule.margin = counted
        try:
            rule.choose(state, seat, legal, random.Random(0))
        finally:
            del rule.margin
        return calls

    weights = {"money_vp": 0.1, "tile_vp": 2.0, "seat_vp": 0.2}  # the fast level's: its turns run longest
    unlimited = aeroplanes.AeroplanesHeuristic(aeroplanes.RuleParams(**weights))
    limited = aeroplanes.AeroplanesHeuristic(aeroplanes.RuleParams(**weights, turn_work=250))
    sample = [(state, seat, state.legal_actions(seat)) for state, seat in positions("aeroplanes", 3, 60, 7, 1)]
    work = [(projections(unlimited, *p), p) for p in sample]
    longest, position = max(work, key=lambda w: w[0])
    assert longest > 1000
    assert projections(limited, *position) <= 250 + longest // len(position[2])
    short = [p for n, p in work if n + len(p[2]) <= 250]
    assert len(short) >= 20
    for state, seat, legal in short:
        assert limited.choose(state, seat, legal, random.Random(1)) in {
            unlimited.choose(state, seat, legal, random.Random(r)) for r in range(32)}


def test_hub_keep_is_the_bonus_for_keeping_a_hub_at_the_season_reset():
    """OS-20.7: at the reset a seat may keep its hub or move it. The rule keeps it unless another airport connects
    strictly more pairs (`hub_keep` 0.5); a large bonus always keeps it, a large malus always moves it."""
    def may_keep(state, seat, legal):
        return any(a.TYPE == "keep_hub" for a in legal) and any(a.TYPE == "place_hub" for a in legal)

    state, seat, legal = _first_decision("place_hub", may_keep)
    keep = with_params("opensky", {"hub_keep": 100.0}).choose(state, seat, legal, random.Random(0))
    move = with_params("opensky", {"hub_keep": -100.0}).choose(state, seat, legal, random.Random(0))
    assert keep.TYPE == "keep_hub" and move.TYPE == "place_hub"
