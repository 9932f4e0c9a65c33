"""The subsidy race (OS-7): a scripted opponent that pairs the callsign airports and takes two cubes an aircraft beat
OpenSky's strongest level twice. Every OpenSky level above greedy must not hand it over, by the rule written in
research/2026-12-06-opensky-subsidy-race before its games: over 200 seeded games per table size, the racer in
every seat in turn, it never takes all six cubes and its win credit is not separated above a fair share."""

from __future__ import annotations

import pytest

import ai
from ai.heuristics.opensky import pairing_size
from research.lab.subsidy_race import handed_over, play

#: The seed the decision rule's games were played on (research/2026-12-06-opensky-subsidy-race): the slow test
#: replays them.
RULE_SEED = 6100


def levels_above_greedy() -> list[str]:
    """Every level name OpenSky accepts that plays above greedy (aliases included: each is what a player picks)."""
    ladder = ai.ladder("opensky")
    above = set(ladder[ladder.index("greedy") + 1:])
    return [level for level in ai.levels() if ai.played_as(level, "opensky") in above]


def test_pairing_counts_disjoint_routes_between_callsign_airports():
    """OS-7.2: one aircraft on a route between two subsidised airports takes both cubes; three such disjoint routes
    take all six."""
    routes = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E"), ("E", "F"), ("A", "X")]
    assert pairing_size({"A", "B", "C", "D", "E", "F"}, routes) == 3
    assert pairing_size({"A", "C", "E"}, routes) == 0
    assert pairing_size({"A", "B", "C"}, routes) == 1  # A-B and B-C share B
    assert pairing_size({"A", "B", "C", "D", "X", "F"}, routes) == 2


def test_there_are_levels_above_greedy_to_check():
    assert "fast" in levels_above_greedy() and "greedy" not in levels_above_greedy()


def test_the_scripted_race_takes_all_six_cubes_from_the_greedy_rule():
    """The opponent plays the reported plan: drafting first against the greedy rule (whose callsigns favour airports
    next to other callsigns), it takes all six cubes in some of ten seeded 2-player games."""
    rows = [play(2, lambda: ai.make_bot("greedy", "opensky"), 2 * k, RULE_SEED + 1, {}) for k in range(10)]
    assert all(r["seat"] == 0 for r in rows)
    assert any(r["cubes"] == 6 for r in rows)


@pytest.mark.parametrize("level", levels_above_greedy())
def test_no_level_above_greedy_leaves_all_six_cubes_to_a_racer_that_drafts_first(level):
    """The reported loss: 2 players, the racer in seat 1 (it places three callsigns and drafts three aircraft before
    the level places any). It can always pair two routes itself (5 cubes); the sixth would need the level's own
    markers to complete a third pair."""
    rows = [play(2, lambda: ai.make_bot(level, "opensky"), 2 * k, RULE_SEED + 1, {}) for k in range(10)]
    assert all(r["seat"] == 0 for r in rows)
    assert max(r["cubes"] for r in rows) <= 5


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_level_above_greedy_hands_the_subsidy_race_over(players):
    """The decision rule itself, on its own 200 games per table size, for every distinct level above greedy."""
    distinct = sorted({ai.played_as(level, "opensky") for level in levels_above_greedy()})
    for level in distinct:
        rows = [play(players, lambda level=level: ai.make_bot(level, "opensky"), index, RULE_SEED, {})
                for index in range(200)]
        assert handed_over(rows, players) == [], level
