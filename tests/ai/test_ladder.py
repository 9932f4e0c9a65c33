"""research.lab.ladder: paired line-ups, the CPU estimate, and a small ladder that adds up."""

from __future__ import annotations

import json
import random

import pytest

import ai
import engine
from ai.levels import CappedBot, free_core_iterations
from research.lab.ladder import (
    MIN_GAMES_A_PAIR,
    calibrate,
    credit,
    deals_for,
    estimate,
    level_iterations,
    lineups,
    main,
    seat_iterations,
)


def test_lineups_meet_from_every_seat():
    assert lineups("lo", "up", 2) == [["up", "lo"], ["lo", "up"]]
    three = lineups("lo", "up", 3)
    assert len(three) == 6 and all(sum(r.count(x) for r in three) == 9 for x in ("lo", "up"))
    for seat in range(4):
        assert {r[seat] for r in lineups("lo", "up", 4)} == {"lo", "up"}
    for players in (2, 3, 4, 5):  # no line-up twice: each game would be played and counted twice
        found = lineups("lo", "up", players)
        assert len(found) == len({tuple(r) for r in found})
    assert lineups("lo", "up", 4) == [["up", "lo", "up", "lo"], ["lo", "up", "lo", "up"]]


def test_levels_play_at_their_free_core_iteration_cap():
    assert free_core_iterations("mcts-normal", "aeroplanes") == 1000  # the guided search's cap (its profile's search)
    assert CappedBot("mcts-normal:greedy-prior", "aeroplanes").budget == ai.Budget(iterations=5200)  # 1 s there
    assert free_core_iterations("mcts-hard", "blueskies") == 1000  # plays as the guided mcts-normal there
    assert free_core_iterations("mcts-normal", "opensky") is None  # plays the greedy rule there
    assert free_core_iterations("mcts-easy", "aeroplanes") is None  # plays the greedy rule
    assert free_core_iterations("greedy", "opensky") is None
    assert CappedBot("mcts-hard", "blueskies").budget == ai.Budget(iterations=1000)
    assert CappedBot("mcts-hard", "blueskies", as_built=True).budget == ai.Budget(iterations=15_900)
    assert free_core_iterations("mcts-hard", "aeroplanes") == 1000  # plays as mcts-normal there


def test_as_built_a_level_plays_its_own_search_where_the_game_offers_it_as_another():
    """To measure a level before offering it (`--as-built`): its own search at its own cap."""
    assert free_core_iterations("mcts-hard", "aeroplanes", as_built=True) == 15_600
    assert free_core_iterations("mcts-normal", "opensky", as_built=True) == 1000  # within OpenSky's cap
    easy = CappedBot("mcts-easy", "blueskies", as_built=True)
    assert type(easy.bot).__name__ == "ISMCTSBot" and easy.budget == ai.Budget(iterations=200)
    assert type(CappedBot("mcts-easy", "blueskies").bot).__name__ == "GreedyBot"



def test_a_greedy_prior_level_is_its_search_without_the_games_own_settings():
    """The learned bots' reference, "today's mcts-normal" in Blue Skies: SEARCH["mcts-normal"] (no learned prior) at
    what 1.0 s buys on a free core, where `mcts-normal` itself plays the guided search at 1,000 iterations."""
    old, today = CappedBot("mcts-normal:greedy-prior", "blueskies"), CappedBot("mcts-normal", "blueskies")
    assert old.budget == ai.Budget(iterations=5300) and today.budget == ai.Budget(iterations=1000)
    state = engine.get("blueskies").new(2, 5)
    seat = state.to_act()[0]
    assert old.bot.by_game.get("blueskies", old.bot.base_config).policy_prior is None
    assert today.bot.by_game.get("blueskies", today.bot.base_config).policy_prior == "bs2-r3.npz"
    assert CappedBot("mcts-normal:greedy-prior", "opensky").budget == ai.Budget(iterations=1000)  # game's cap
    assert old.choose(state, seat, random.Random(1)) in state.legal_actions(seat)
    for bad in ("mcts-normal:deep", "greedy:greedy-prior", "nobody"):
        with pytest.raises(ValueError):
            CappedBot(bad, "blueskies")

RATES = {"opensky": 3000.0, "aeroplanes": 2000.0, "blueskies": 2500.0}  # iterations a CPU second (given, not timed)


def test_estimate_grows_with_the_seeds():
    small, large = estimate(10, rate=RATES), estimate(20, rate=RATES)
    assert [(g, p) for g, p, *_ in small] == [(g, p) for g, p, *_ in large]
    assert all(abs(b - 2 * a) < 1e-9 for (*_, a), (*_, b) in zip(small, large, strict=True))
    assert all(games_b == 2 * games_a for (_, _, games_a, _), (_, _, games_b, _) in zip(small, large, strict=True))


def test_default_deals_give_at_least_forty_games_a_pair():
    for players in (2, 3, 4):
        games = deals_for(players, None) * len(lineups("a", "b", players))
        assert MIN_GAMES_A_PAIR <= games < MIN_GAMES_A_PAIR + len(lineups("a", "b", players))
    assert deals_for(3, 5) == 5


def test_games_offer_their_distinct_strengths_and_play_them():
    """The ladder runs over the game's distinct strengths; a level that plays as another gets that bot."""
    assert ai.ladder("opensky") == ["random", "greedy", "fast"]  # fast: the rule with measured weights (2p)
    # fast: a model; mcts-hard: not separated above the guided mcts-normal (55.5% of 100)
    assert ai.ladder("blueskies") == ["random", "greedy", "fast", "mcts-normal"]
    # fast: a 100-iteration guided search (ai/games/aeroplanes.py), separated above greedy; mcts-hard: not measured
    assert ai.ladder("aeroplanes") == ["random", "greedy", "fast", "mcts-normal"]
    assert CappedBot("mcts-hard", "opensky").budget is None  # plays the fast level there: no search
    assert type(ai.make_bot("mcts-easy", "blueskies")).__name__ == "GreedyBot"
    assert type(ai.make_bot("mcts-easy")).__name__ == "ISMCTSBot"  # without a game: the level's own search
    assert CappedBot("mcts-normal", "aeroplanes").budget == ai.Budget(iterations=1000)  # the guided search


def test_the_ledger_records_every_game_and_a_rerun_plays_none(tmp_path, capsys, monkeypatch):
    ledger = tmp_path / "ladder.jsonl"
    argv = ["--game", "opensky", "--levels", "random,greedy", "--seeds", "2", "--workers", "1",
            "--ledger", str(ledger)]
    (first,) = main(argv)
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(lines) == 4 and {tuple(x["key"]["lineup"]) for x in lines} == {("greedy", "random"),
                                                                                ("random", "greedy")}
    import research.lab.ladder as ladder

    def refuse(_args):
        raise AssertionError("a game in the ledger was played again")

    monkeypatch.setattr(ladder, "_play", refuse)
    (again,) = main(argv)
    assert again == first and len(ledger.read_text().splitlines()) == 4


@pytest.mark.slow  # two whole OpenSky games with 200-iteration searches, over a minute: `make test-slow`
def test_an_as_built_run_plays_and_records_the_levels_own_searches(tmp_path, capsys):
    ledger = tmp_path / "ladder.jsonl"
    main(["--game", "opensky", "--levels", "greedy,mcts-easy", "--seeds", "1", "--workers", "1", "--as-built",
          "--ledger", str(ledger)])
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(lines) == 2 and all(x["key"]["caps"] == {"greedy": None, "mcts-easy": 200} for x in lines)
    searched = [x["result"]["iterations"][x["key"]["lineup"].index("mcts-easy")] for x in lines]
    assert all(n > 0 for n in searched)  # it searched: as offered, mcts-easy plays the greedy rule in OpenSky
    assert "plays as" not in capsys.readouterr().out


def test_a_small_ladder_separates_greedy_from_random(capsys):
    (pair,) = main(["--game", "opensky", "--players", "2", "--levels", "random,greedy", "--seeds", "3",
                    "--workers", "1"])
    assert pair.games == 6 and pair.upper_seats * 2 == pair.seats
    assert pair.share()[0] > 0.5
    out = capsys.readouterr().out
    assert "greedy vs random" in out and "Bradley-Terry Elo (greedy = 0" in out


def test_credit_splits_shared_wins():
    from research.lab.match import MatchResult

    shared = MatchResult(["a", "b", "a"], [5, 5, 1], [0, 1])
    assert credit(shared, "a") == 0.5 and credit(shared, "b") == 0.5


def test_a_report_reads_the_ledger_and_plays_nothing(tmp_path, capsys, monkeypatch):
    ledger = tmp_path / "ladder.jsonl"
    base = ["--game", "opensky", "--levels", "random,greedy", "--workers", "1", "--ledger", str(ledger)]
    (played,) = main([*base, "--seeds", "2"])
    import research.lab.ladder as ladder

    monkeypatch.setattr(ladder, "_play", lambda _args: (_ for _ in ()).throw(AssertionError("played")))
    (reported,) = main([*base, "--seeds", "3", "--report"])  # a deal more than was played: only what is there
    assert reported == played
    assert main(["--game", "blueskies", "--levels", "greedy,mcts-normal", "--ledger", str(ledger), "--report"]) == []
    assert "no games in the ledger" in capsys.readouterr().out


def test_a_report_prefers_the_games_at_the_current_caps_and_code(tmp_path, capsys):
    from research.lab.tournament import code_fingerprint, game_seed

    ledger = tmp_path / "ladder.jsonl"
    game, lineup = "blueskies", ["mcts-normal", "greedy"]
    caps = {"greedy": None, "mcts-normal": free_core_iterations("mcts-normal", game)}

    def line(caps: dict, code: str, winner: int) -> str:
        return json.dumps({"key": {"ladder": game, "lineup": lineup, "deal": game_seed(1, 0), "caps": caps,
                                   "code": code}, "index": 0,
                           "result": {"levels": lineup, "scores": [1, 1], "winners": [winner], "decisions": [1, 1],
                                      "think_seconds": [0.0, 0.0], "iterations": [1, 0]}})

    old_caps = {**caps, "mcts-normal": 99}
    ledger.write_text("\n".join([line(old_caps, "x", 1), line(caps, code_fingerprint(game), 0),
                                 line(caps, "x", 1)]) + "\n")
    (pair,) = main(["--game", game, "--levels", "greedy,mcts-normal", "--seeds", "1", "--ledger", str(ledger),
                    "--report"])
    assert pair.games == 1 and pair.upper_credit == 1.0  # the current caps and code's game, not the first line
    assert "note" not in capsys.readouterr().out
    ledger.write_text(line(old_caps, "x", 1) + "\n")
    (pair,) = main(["--game", game, "--levels", "greedy,mcts-normal", "--seeds", "1", "--ledger", str(ledger),
                    "--report"])
    assert pair.upper_credit == 0.0 and "1 of 1 mcts-normal vs greedy games were played at other" in \
        capsys.readouterr().out


def _ledger_line(game: str, lineup: list[str], iterations: list[int]) -> str:
    caps = {level: free_core_iterations(level, game, as_built=True) for level in lineup}
    return json.dumps({"key": {"ladder": game, "lineup": lineup, "deal": 1, "caps": caps, "code": "x"}, "index": 0,
                       "result": {"levels": lineup, "scores": [1] * len(lineup), "winners": [0],
                                  "decisions": [1] * len(lineup), "think_seconds": [0.0] * len(lineup),
                                  "iterations": iterations}})


def test_the_estimate_costs_a_game_by_the_iterations_its_seats_made_in_the_ledger(tmp_path):
    """Iterations a seat from the ledger's games at the level's cap; a level not played there is scaled from another
    by the caps' ratio; the hours are the iterations over the machine's rate."""
    lines = [_ledger_line("blueskies", ["mcts-normal", "greedy"], [100_000, 0]),
             _ledger_line("blueskies", ["greedy", "mcts-normal"], [0, 140_000]),
             '{"key": {"ladder": "blueskies", "caps"']  # a line cut short by a killed run
    (tmp_path / "ladder-blueskies-2p.jsonl").write_text("\n".join(lines) + "\n")
    assert seat_iterations("blueskies", 2, "mcts-normal", tmp_path, as_built=True) == 120_000
    assert seat_iterations("blueskies", 2, "mcts-hard", tmp_path) is None
    # Blue Skies' mcts-normal is the guided search (1,000 iterations; its ai.games profile), mcts-hard 15,900
    ratio = (free_core_iterations("mcts-hard", "blueskies", as_built=True)
             / free_core_iterations("mcts-normal", "blueskies", as_built=True))
    assert ratio == 15_900 / 1000
    hard = 120_000 * ratio
    assert level_iterations("blueskies", 2, "mcts-hard", tmp_path, as_built=True) == hard
    assert level_iterations("blueskies", 2, "mcts-hard", tmp_path) == 120_000  # as offered: mcts-normal
    assert level_iterations("blueskies", 2, "greedy", tmp_path) == 0.0
    (row,) = estimate(1, [("blueskies", 2)], rate={"blueskies": 1000.0}, ledgers=tmp_path)
    # pairs random-greedy, greedy-fast (no search), fast-normal (one normal seat a game): 2 line-ups each
    assert row == ("blueskies", 2, 6, 2 * 120_000 / 1000 / 3600)
    (row,) = estimate(1, [("blueskies", 2)], rate={"blueskies": 1000.0}, ledgers=tmp_path,
                      levels=["mcts-normal", "mcts-hard"], as_built=True)
    assert row == ("blueskies", 2, 2, 2 * (120_000 + hard) / 1000 / 3600)  # the pair that would restore mcts-hard


def test_the_machine_rate_is_measured():
    assert calibrate("blueskies", 2, positions=1, iterations=200) > 0


def test_the_estimate_prices_a_pair_of_levels_as_built(tmp_path):
    """`--estimate --levels mcts-normal,mcts-hard --as-built`: the pair that would restore a level the game offers
    as another, priced at the level's own cap (Aeroplanes' mcts-hard: 15,600 iterations, 15.6x the guided
    mcts-normal's 1,000)."""
    lines = [_ledger_line("aeroplanes", ["mcts-normal", "greedy", "greedy"], [100_000, 0, 0])]
    (tmp_path / "ladder-aeroplanes-3p.jsonl").write_text("\n".join(lines) + "\n")
    assert level_iterations("aeroplanes", 3, "mcts-hard", tmp_path) == 100_000  # as offered: mcts-normal
    assert level_iterations("aeroplanes", 3, "mcts-hard", tmp_path, as_built=True) == 1_560_000
    (row,) = estimate(1, [("aeroplanes", 3)], rate={"aeroplanes": 1000.0}, ledgers=tmp_path,
                      levels=["mcts-normal", "mcts-hard"], as_built=True)
    assert row == ("aeroplanes", 3, 6, (9 * 1_560_000 + 9 * 100_000) / 1000 / 3600)  # 9 seats of each in 6 games
