"""Tournament bookkeeping: Wilson intervals, fair seat rotation, shared wins, the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

import ai
import engine
from research.lab.match import play_match
from research.lab.tournament import format_table, main, seating, summarize, wilson
from tests.ai.toygame import TOY


def test_wilson_interval_matches_known_values():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3)
    assert hi == pytest.approx(0.9433, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    for trials in (1, 3, 4, 7, 40):  # the bounds at p = 1 and p = 0 are exact, never a rounding short of p
        assert wilson(trials, trials)[1] == 1.0 and wilson(0, trials)[0] == 0.0


def test_seats_rotate_so_each_level_plays_each_seat_equally():
    lineup = ("mcts-normal", "greedy", "greedy", "greedy")
    counts = {seat: 0 for seat in range(4)}
    for index in range(8):
        seats = seating(lineup, index)
        assert sorted(seats) == sorted(lineup)
        counts[seats.index("mcts-normal")] += 1
    assert set(counts.values()) == {2}


def test_summary_splits_shared_wins_and_averages_scores():
    results = [play_match(TOY, seating(("random", "greedy"), i), i, budget=ai.Budget(iterations=2)) for i in range(6)]
    tallies = summarize(("random", "greedy"), results)
    assert sum(t.wins for t in tallies.values()) == pytest.approx(6)
    total_scores = sum(sum(r.scores) for r in results)
    assert sum(t.score_sum for t in tallies.values()) == total_scores
    assert all(t.score_count == 6 for t in tallies.values())
    table = format_table(("random", "greedy"), tallies, 6)
    assert "random" in table and "greedy" in table and "95% CI" in table


#: The tournament's mechanics (seats, ledger, plot) are the same for every title: these tests play the quickest
#: (two-seat OpenSky), not the first registered (Aeroplanes, whose whole games were most of this file's time;
#: docs/decisions/one-place.md)
QUICK = "opensky"


def test_cli_runs_a_small_parallel_tournament_and_plots(tmp_path, capsys):
    name = QUICK
    players = engine.get(name).min_players
    out = tmp_path / "t.png"
    tallies = main(
        ["--game", name, "--players", str(players), "--bots", "random,greedy", "--games", "4",
         "--workers", "2", "--seed", "3", "--plot", str(out), "--no-progress"]
    )
    assert sum(t.wins for t in tallies.values()) == pytest.approx(4)
    printed = capsys.readouterr().out
    assert "win rate" in printed and "greedy" in printed
    assert out.stat().st_size > 1000


def test_cli_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        main(["--game", "no-such-game", "--bots", "random"])


def test_a_ledger_resumes_a_tournament_and_ignores_games_of_other_code(tmp_path, capsys):
    """Games already in the ledger are not played again; lines of another code fingerprint never count."""
    import json

    name = QUICK
    players = str(engine.get(name).min_players)
    ledger = tmp_path / "ledger.jsonl"
    base = ["--game", name, "--players", players, "--bots", "greedy,random", "--workers", "1", "--seed", "5",
            "--no-progress", "--ledger", str(ledger)]
    main([*base, "--games", "3"])
    lines = ledger.read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == [0, 1, 2]
    foreign = json.loads(lines[0])
    foreign["key"]["code"] = "0" * 16
    foreign["index"] = 3
    with ledger.open("a") as handle:
        handle.write(json.dumps(foreign) + "\n" + '{"cut short')
    resumed = main([*base, "--games", "5"])
    lines = ledger.read_text().splitlines()
    assert lines[4] == '{"cut short'  # the unfinished line was closed, not extended
    entries = [json.loads(line) for i, line in enumerate(lines) if i != 4]
    current = [e["index"] for e in entries if e["key"]["code"] != "0" * 16]
    assert sorted(current) == [0, 1, 2, 3, 4]  # game 3 was played: the foreign line did not stand in for it
    fresh = main(["--game", name, "--players", players, "--bots", "greedy,random", "--workers", "1", "--seed", "5",
                  "--no-progress", "--games", "5"])
    outcome = {k: (t.wins, t.score_sum) for k, t in resumed.items()}
    assert outcome == {k: (t.wins, t.score_sum) for k, t in fresh.items()}


def test_the_code_fingerprint_covers_a_game_and_the_shared_code_but_not_other_games(tmp_path, monkeypatch):
    """A change to one game's engine or heuristic voids only that game's ledgers; shared code voids all."""
    import shutil

    import research.lab.tournament as tournament

    root = Path(tournament.__file__).resolve().parents[2]
    copy = tmp_path / "repo"
    for package in ("ai", "engine", "research/lab", "research/train"):  # the tools, not the experiments' folders
        shutil.copytree(root / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(tournament, "__file__", str(copy / "research" / "lab" / "tournament.py"))
    names = engine.games()
    before = {g: tournament.code_fingerprint(g) for g in names}
    first, rest = names[0], names[1:]
    with (copy / "engine" / first / "__init__.py").open("a") as handle:
        handle.write("# changed\n")
    after = {g: tournament.code_fingerprint(g) for g in names}
    assert after[first] != before[first]
    assert all(after[g] == before[g] for g in rest)
    fitted = copy / "ai" / "heuristics" / "fitted"
    fitted.mkdir(parents=True, exist_ok=True)
    (fitted / f"{first}.json").write_text("{}")
    assert tournament.code_fingerprint(first) != after[first]
    assert all(tournament.code_fingerprint(g) == before[g] for g in rest)
    after = {g: tournament.code_fingerprint(g) for g in names}
    with (copy / "ai" / "ismcts.py").open("a") as handle:
        handle.write("# changed\n")
    assert all(tournament.code_fingerprint(g) != after[g] for g in names)
    # what plays no move: the published figures, the research tools and the adapters leave every ledger valid
    after = {g: tournament.code_fingerprint(g) for g in names}
    for path in (copy / "ai" / "level_figures.py", copy / "ai" / "ladders.json",
                 copy / "research" / "lab" / "ladder.py", copy / "research" / "lab" / "ladder_fit.py",
                 copy / "research" / "train" / "fit.py",
                 copy / "engine" / "adapters" / "openspiel.py"):
        with path.open("a") as handle:
            handle.write("# changed\n")
    assert {g: tournament.code_fingerprint(g) for g in names} == after
    # but the game loop and the tournaments' seeding play, though they live in research/lab/
    for name in ("match.py", "tournament.py"):
        with (copy / "research" / "lab" / name).open("a") as handle:
            handle.write("# changed\n")
        assert all(tournament.code_fingerprint(g) != after[g] for g in names)
        after = {g: tournament.code_fingerprint(g) for g in names}
