"""research.lab.search_variants: variant parsing and the paired games it plays."""

from __future__ import annotations

import pytest

import ai
from research.lab.match import play_match
from research.lab.search_variants import main, parse_variant, play


def test_variants_parse_into_searchconfig_fields_and_refuse_anything_else():
    assert parse_variant('opp8={"prior_plies": 8}') == ("opp8", {"prior_plies": 8})
    assert parse_variant("base=") == ("base", {})
    for bad in ("no-equals", '={"prior_plies": 8}', "x=[1]", 'x={"nope": 1}', "x={bad json"):
        with pytest.raises(ValueError):
            parse_variant(bad)


def test_lists_of_decision_kinds_become_the_frozensets_the_compiled_config_takes():
    """The compiled SearchConfig refuses a list for `rule_kinds`; a variant on the command line can only give one."""
    import dataclasses

    from ai.levels import SEARCH

    _, fields = parse_variant('rule4={"rule_kinds": ["bid", "choose_market"], "playout_kinds": []}')
    assert fields == {"rule_kinds": frozenset({"bid", "choose_market"}), "playout_kinds": frozenset()}
    assert dataclasses.replace(SEARCH["mcts-normal"], **fields).rule_kinds == frozenset({"bid", "choose_market"})


def test_a_variant_with_decision_kinds_plays_and_prints(capsys):
    main(["--game", "opensky", "--players", "2", "--games", "1", "--iterations", "5", "--workers", "1",
          "--variant", 'rule={"rule_kinds": ["bid", "add_ancillaries"]}'])
    out = capsys.readouterr().out
    assert '{"rule_kinds": ["add_ancillaries", "bid"]}' in out
    assert out.splitlines()[-1].split()[0] == "rule" and out.splitlines()[-1].split()[2] == "-"  # seat 1 unplayed


def test_a_variant_plays_its_seat_and_the_result_is_reproducible():
    job = ("opensky", 2, "probe", {"prior_plies": 4}, "random", 1, 3, 8, None)
    first = play(job)
    assert first[:2] == ("probe", 1) and first[2] in (0.0, 0.5, 1.0) and first[4] > 0
    assert (first[2] > 0) == (first[3] >= 0)  # the seat wins exactly when no other seat outscores it
    assert play(job)[:4] == first[:4]


def test_play_match_takes_bots_for_its_seats_and_checks_their_number():
    bots = [ai.make_bot("greedy"), ai.make_bot("random")]
    result = play_match("opensky", ["a", "b"], 5, bots=bots)
    assert result.levels == ["a", "b"] and result.winners
    with pytest.raises(ValueError, match="1 bots for 2 seats"):
        play_match("opensky", ["a", "b"], 5, bots=bots[:1])


def test_a_variant_named_like_its_opponents_still_plays_one_seat():
    """The variant's seat is found by position: named `greedy` against greedy, it plays exactly the game a
    differently named variant plays (by name, every `greedy` seat became a search)."""
    named_like = play(("opensky", 2, "greedy", {}, "greedy", 1, 3, 8, None))
    named_apart = play(("opensky", 2, "probe", {}, "greedy", 1, 3, 8, None))
    assert named_like[1:4] == named_apart[1:4]


def test_the_opponents_own_iteration_cap_is_the_one_they_search_with():
    """A cheap guided search against a level at its usual size needs the opponents' own cap. The variant
    searches 8 iterations a decision; the mcts-normal opponents 30 (their decisions with a choice report it)."""
    from research.lab.search_variants import OwnBudget

    inner = ai.make_bot("mcts-normal")
    bot = OwnBudget(inner, ai.Budget(iterations=30))
    result = play_match("blueskies", ["probe", "mcts-normal"], 5, budget=ai.Budget(iterations=8),
                        bots=[ai.make_bot("greedy"), bot])
    assert result.iterations[1] > 0 and result.iterations[1] % 30 == 0
    capped = play(("blueskies", 2, "probe", {}, "mcts-normal", 0, 3, 8, None, 30))
    uncapped = play(("blueskies", 2, "probe", {}, "mcts-normal", 0, 3, 8, None))
    assert capped[:2] == uncapped[:2] == ("probe", 0)


def test_a_variants_own_iteration_cap_is_the_one_it_searches_with():
    """Two caps of one search compared on the same deals: a variant's `iterations` holds its bot to that many a
    decision whatever the match's `--iterations` (every decision with a choice searches it exactly)."""
    from research.lab.search_variants import play_game

    assert parse_variant('cap={"iterations": 12}')[1] == {"iterations": 12}
    for bad in ('cap={"iterations": 0}', 'cap={"iterations": 1.5}'):
        with pytest.raises(ValueError, match="iterations"):
            parse_variant(bad)
    seat = 0  # game index 0: the variant sits in seat 0 (research.lab.paired.variant_seat)
    own = play_game(("blueskies", 2, "cap", {"iterations": 12}, "greedy", 0, 3, 40, None))
    match = play_game(("blueskies", 2, "cap", {}, "greedy", 0, 3, 40, None))
    assert own.iterations[seat] > 0 and own.iterations[seat] % 12 == 0
    assert match.iterations[seat] > own.iterations[seat]  # the match's 40 where the variant gives none


def test_the_opponents_own_search_replaces_the_games_own_settings():
    """Blue Skies' `mcts-normal` is the guided search (the game profile's `search`); the issue's targets name the
    greedy-prior search it replaced, which `--against-search '{}'` plays. The guided settings given as fields play
    exactly what the level plays; the greedy-prior search plays another game."""
    level = play(("blueskies", 2, "probe", {}, "mcts-normal", 0, 3, 8, None, 12))
    as_fields = play(("blueskies", 2, "probe", {}, "mcts-normal", 0, 3, 8, None, 12,
                      {"policy_prior": "bs2-r3.npz", "policy_weight": 1.0}))
    greedy_prior = play(("blueskies", 2, "probe", {}, "mcts-normal", 0, 3, 8, None, 12, {}))
    assert as_fields[:4] == level[:4]
    assert greedy_prior[:4] != level[:4]


def test_the_opponents_search_is_given_on_the_command_line(capsys):
    main(["--game", "blueskies", "--players", "2", "--games", "1", "--iterations", "5", "--workers", "1",
          "--against", "mcts-normal", "--against-iterations", "5", "--against-search", '{"rollout_depth": 4}',
          "--variant", "base={}"])
    assert 'against mcts-normal at 5 iterations (search {"rollout_depth": 4})' in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--game", "blueskies", "--games", "1", "--against-search", '{"nope": 1}', "--variant", "base={}"])


def test_a_ledger_keeps_each_finished_game_and_a_rerun_plays_only_the_missing_ones(tmp_path, capsys):
    """A paired run of hours on 2 cores must survive being stopped. Each game is a ledger line as it ends; a
    rerun with the same settings reads those back (same rows as played) and plays only the rest; other settings
    (here the seed) share nothing with them, and a line cut short by a killed run is skipped."""
    import json

    ledger = tmp_path / "variants.jsonl"
    argv = ["--game", "blueskies", "--players", "2", "--iterations", "6", "--workers", "1", "--seed", "4",
            "--ledger", str(ledger), "--variant", 'probe={"rollout_depth": 4}']
    first = main([*argv, "--games", "2"])
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert sorted(line["index"] for line in lines) == [0, 1]
    assert {line["key"]["variant"] for line in lines} == {"probe"} and lines[0]["key"]["seed"] == 4
    with ledger.open("a") as handle:
        handle.write('{"key": {"search_variants": "bluesk')  # a killed run's half line
    capsys.readouterr()

    again = main([*argv, "--games", "3"])
    assert "2 games already played, 1 to play" in capsys.readouterr().out
    assert sorted(again) == sorted([*first, *[row for row in again if row[1] == 2]]) and len(again) == 3
    assert sorted(again)[:2] == sorted(first) == sorted(main([*argv[:-4], "--variant", argv[-1], "--games", "2"]))
    other_seed = main([*argv[:-4], "--seed", "5", "--ledger", str(ledger), "--variant", argv[-1], "--games", "1"])
    assert len(other_seed) == 1
    assert len([line for line in ledger.read_text().splitlines() if line.endswith("}")]) == 4


def test_a_gumbel_root_variant_parses_into_its_own_settings_and_plays_its_seat():
    """A variant with `"root": "gumbel"` is the Gumbel / sequential-halving root (`ai.gumbel`), its other fields
    `GumbelConfig`'s; an unknown root or a field of neither is refused."""
    from ai.gumbel import GumbelBot, GumbelConfig
    from research.lab.search_variants import variant_bot

    name, fields = parse_variant('g={"root": "gumbel", "considered": 4}')
    assert (name, fields) == ("g", {"root": "gumbel", "considered": 4})
    bot = variant_bot(name, fields)
    assert isinstance(bot, GumbelBot) and bot.config == GumbelConfig(considered=4)
    for bad in ('g={"root": "puct"}', 'g={"root": "gumbel", "prior_plies": 2}'):
        with pytest.raises(ValueError):
            parse_variant(bad)
    first = play(("blueskies", 2, "g", fields, "greedy", 1, 3, 12, None))
    assert first[:2] == ("g", 1) and play(("blueskies", 2, "g", fields, "greedy", 1, 3, 12, None))[:4] == first[:4]


def test_the_sequential_test_decides_at_walds_bounds_over_games_in_index_order():
    """H0 46% against H1 52%, alpha = beta = 0.05: each win adds log(52/46), each loss log(48/54); the bounds are
    +-log(19). All wins cross the upper bound at the 25th game, all losses the lower at the 25th too; a
    half-and-half record runs to the cap; a game finished early out of order is not read before the ones before it."""
    import math

    from research.lab.paired import prefix, sprt_llr, sprt_verdict

    assert sprt_llr([1.0], 0.46, 0.52) == pytest.approx(math.log(0.52 / 0.46))
    assert sprt_llr([0.5], 0.46, 0.52) == pytest.approx((math.log(0.52 / 0.46) + math.log(0.48 / 0.54)) / 2)
    assert sprt_verdict([1.0] * 24, 0.46, 0.52, 0.05, 0.05) == "continue"
    assert sprt_verdict([1.0] * 25, 0.46, 0.52, 0.05, 0.05) == "H1"
    assert sprt_verdict([0.0] * 24, 0.46, 0.52, 0.05, 0.05) == "continue"
    assert sprt_verdict([0.0] * 25, 0.46, 0.52, 0.05, 0.05) == "H0"
    assert sprt_verdict([1.0, 0.0] * 400, 0.46, 0.52, 0.05, 0.05, cap=800) == "truncated"
    assert sprt_verdict([1.0, 0.0] * 400, 0.46, 0.52, 0.05, 0.05) == "continue"
    assert prefix({0: 1.0, 1: 0.0, 3: 1.0}) == [1.0, 0.0]
    assert prefix({1: 1.0}) == []


def test_a_sequential_run_stops_at_its_verdict_and_a_rerun_plays_nothing_more(tmp_path, capsys):
    """`--sprt` with a wide-apart pair (H0 5%, H1 95%) decides in a game or two: the run stops there, and the same
    command again reads its verdict from the ledger and plays no game."""
    import json

    ledger = tmp_path / "sprt.jsonl"
    argv = ["--game", "blueskies", "--players", "2", "--iterations", "8", "--workers", "1", "--seed", "6",
            "--games", "6", "--sprt", "0.05,0.95,0.05,0.05", "--ledger", str(ledger),
            "--variant", 'g={"root": "gumbel", "considered": 2}']
    rows = main(argv)
    out = capsys.readouterr().out
    assert 1 <= len(rows) < 6 and "SPRT H0 5% H1 95% alpha 0.05 beta 0.05, cap 6: H" in out
    played = len(ledger.read_text().splitlines())
    assert main(argv) == rows and f"{played} games already played" in capsys.readouterr().out
    assert len(ledger.read_text().splitlines()) == played
    assert all(json.loads(line)["key"]["fields"] == {"root": "gumbel", "considered": 2}
               for line in ledger.read_text().splitlines())
    with pytest.raises(SystemExit):
        main([*argv[:-2], "--variant", "a={}", "--variant", "b={}"])
