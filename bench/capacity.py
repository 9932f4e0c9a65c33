"""Worker cores per 1,000 concurrent human-against-bot games, for every level a game offers at every table size.

    python -m bench.capacity [--games 1000] [--think-s 9.6] [--overhead-s 0.003] [--busy 0.7] [--markdown]

Why a program and not a hand-kept table: the figures it multiplies change whenever a level's play or its measured
CPU changes, and a table copied by hand goes stale silently. It reads each game's bot profile (`ai/games/<game>.py`:
`decision_cpu_s`, the mean CPU seconds of one decision with a choice on a free core, measured by `bench.bot_cost`)
and the ladder the game offers (`ai.levels.ladder`: only the levels that play as themselves there, labelled for
players as the lobby labels them), and prices one human seat against bots in every other seat:

    cores = games x bots x (CPU a decision + the worker's overhead a task) / think time / busy

- one bot decision per human decision per bot seat (decisions with a choice are shared evenly between seats);
- think time: the load run's mean human think time (9.6 s; log-normal, median 8 s: "Platform load");
- the worker's own overhead a task: 0.003 CPU s (a worker's CPU per `random` decision, "Bots under load");
- workers kept 70% busy so that queues stay short.

A faster human halves the think time and doubles the cores; a slower core scales the CPU figures.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import engine
from ai.games import profile
from ai.level_figures import LABELS
from ai.levels import ladder

GAMES = ("opensky", "blueskies", "aeroplanes")


@dataclass(frozen=True)
class Assumptions:
    games: int = 1000
    think_s: float = 9.6
    overhead_s: float = 0.003
    busy: float = 0.7


def cores(game: str, players: int, level: str, a: Assumptions) -> float:
    """Worker cores for `a.games` games of `game` at `players` seats, one human and the rest `level` bots."""
    cpu = profile(game).decision_cpu_s[level]
    return a.games * (players - 1) * (cpu + a.overhead_s) / a.think_s / a.busy


def table(a: Assumptions) -> list[tuple[str, int, dict[str, float]]]:
    """(game, players, offered level -> cores) for every game and table size."""
    rows = []
    for game in GAMES:
        spec = engine.get(game)
        for players in range(spec.min_players, spec.max_players + 1):
            rows.append((game, players, {level: cores(game, players, level, a) for level in ladder(game)}))
    return rows


def markdown(a: Assumptions) -> str:
    """The table as the report prints it: a column per player-facing label, blank where a game does not offer one."""
    labels = list(dict.fromkeys(LABELS[level] for _g, _p, row in table(a) for level in row))
    lines = ["| game | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for game, players, row in table(a):
        by_label = {LABELS[level]: f"{value:.1f} ({level})" for level, value in row.items()}
        lines.append(f"| {game} {players}p ({players - 1} bot{'s' if players > 2 else ''}) | "
                     + " | ".join(by_label.get(label, "") for label in labels) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=Assumptions.games)
    parser.add_argument("--think-s", type=float, default=Assumptions.think_s)
    parser.add_argument("--overhead-s", type=float, default=Assumptions.overhead_s)
    parser.add_argument("--busy", type=float, default=Assumptions.busy)
    args = parser.parse_args(argv)
    out = markdown(Assumptions(args.games, args.think_s, args.overhead_s, args.busy))
    print(out)
    return out


if __name__ == "__main__":
    main()
