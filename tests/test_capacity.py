"""The report's worker-capacity table is the output of `bench.capacity` over the games' profiles now, so a changed
level or CPU figure cannot leave it stale."""

from __future__ import annotations

from pathlib import Path

from ai.games import profile
from bench.capacity import Assumptions, cores, markdown

ROOT = Path(__file__).resolve().parent.parent


def test_the_reports_capacity_table_is_the_programs_output() -> None:
    report = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    assert markdown(Assumptions()) in report


def test_cores_follow_the_formula() -> None:
    """1,000 games x bots x (CPU + overhead) / think time / busy share, from the game's own CPU figure."""
    a = Assumptions()
    cpu = profile("blueskies").decision_cpu_s["mcts-normal"]
    assert cores("blueskies", 4, "mcts-normal", a) == 1000 * 3 * (cpu + 0.003) / 9.6 / 0.7
    assert cores("opensky", 2, "random", Assumptions(think_s=4.8)) == 2 * cores("opensky", 2, "random", a)
