"""What the mypyc build (ai/native.py) saves: the same bot decisions with some compiled modules run from source.

    python -m bench.native_cost --game aeroplanes --players 3 --source engine/aeroplanes ai/heuristics/aeroplanes.py
    python -m bench.native_cost --game blueskies --players 2 --levels greedy,mcts-normal --source engine/blueskies

Each run starts two fresh processes one after the other, which decide the same positions (`bench.bot_cost.positions`,
every 7th decision of greedy games) with the same seeds: one imports the build as it is, the other imports the
`--source` modules (files, or every listed module under a folder) from their `.py` files, as a build without them
compiled would. The ratio of their mean CPU a decision (process CPU time) is the figure to carry between machines;
absolute seconds differ by 2x between them. Runs alternate the two, so a load that drifts touches both. Every
decision must be the same in both: the compiled code is the same program, and this tool fails if it is not.

Search levels decide at their free-core iteration cap (`ai.levels.free_core_iterations`), as `bench.bot_cost`'s
`iters` variant does, so the load does not change how much they search.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


class SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the named modules from their `.py` files, ahead of the compiled `.so` the path finder prefers."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: object, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        return importlib.util.spec_from_file_location(fullname, source) if source is not None else None


def compiled_sources(listed: list[str]) -> dict[str, Path]:
    """Module name -> source file of every compiled module (`ai.native.MODULES`) named by `listed` (files or
    folders); SystemExit if one names none."""
    import runpy  # ai/native.py as a script: importing the `ai` package would load the compiled modules first

    modules = runpy.run_path(str(ROOT / "ai" / "native.py"))["MODULES"]
    out: dict[str, Path] = {}
    for item in listed:
        item = item.rstrip("/")
        hits = [m for m in modules if m == item or m.startswith(item + "/")]
        if not hits:
            sys.exit(f"--source {item}: no compiled module there (ai/native.py MODULES)")
        out.update({m[: -len(".py")].replace("/", "."): ROOT / m for m in hits})
    return out


def decide(args: argparse.Namespace, sources: dict[str, Path]) -> dict:
    """One process's pass: per level, the CPU seconds and the action of each decision (JSON for the parent)."""
    if sources:
        sys.meta_path.insert(0, SourceFinder(sources))
    import random
    import time

    from ai.policy import one_blas_thread

    one_blas_thread()
    import ai
    from ai.levels import free_core_iterations
    from bench.bot_cost import positions

    out: dict = {"levels": {}, "files": {}}
    for level in args.levels.split(","):
        count = args.search_positions if free_core_iterations(level, args.game) is not None else args.positions
        sample = positions(args.game, args.players, count, 7, args.seed)
        cap = free_core_iterations(level, args.game)
        budget = ai.Budget(iterations=cap) if cap is not None else None
        ai.make_bot(level, args.game).choose(sample[0][0], sample[0][1], random.Random(0), budget)  # warm caches
        cpu, actions = [], []
        for index, (state, seat) in enumerate(sample):
            bot = ai.make_bot(level, args.game)
            start = time.process_time()
            action = bot.choose(state, seat, random.Random(args.seed * 1000 + index), budget)
            cpu.append(time.process_time() - start)
            actions.append(json.dumps(action.to_json(), sort_keys=True))
        out["levels"][level] = {"cpu": cpu, "actions": actions}
    out["files"] = {name: sys.modules[name].__file__ for name in sorted(compiled_sources(args.source))
                    if name in sys.modules}
    return out


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else values[0]


def run_child(argv: list[str], build: str) -> dict:
    command = [sys.executable, "-m", "bench.native_cost", "--child", build, *argv]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"the {build} pass failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--source", nargs="+", required=True, help="compiled modules (files or folders) to run "
                        "from source in the baseline")
    parser.add_argument("--levels", default="greedy,fast,mcts-normal")
    parser.add_argument("--positions", type=int, default=400, help="positions for levels that do not search")
    parser.add_argument("--search-positions", type=int, default=60, help="positions for search levels")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the summary here")
    parser.add_argument("--child", choices=("compiled", "source"), help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    sources = compiled_sources(args.source)
    if args.child:
        print(json.dumps(decide(args, sources if args.child == "source" else {})))
        return {}
    ratios: dict[str, list[float]] = {level: [] for level in args.levels.split(",")}
    means: dict[str, list[tuple[float, float]]] = {level: [] for level in ratios}
    p99s: dict[str, list[tuple[float, float]]] = {level: [] for level in ratios}
    for run in range(args.runs):
        passes = {build: run_child(argv, build) for build in ("compiled", "source")}
        for build, expect in (("compiled", ".so"), ("source", ".py")):
            wrong = [name for name, file in passes[build]["files"].items() if not file.endswith(expect)]
            if wrong:
                sys.exit(f"run {run + 1}: the {build} pass imported {wrong} from the wrong files")
        for level in ratios:
            compiled, source = passes["compiled"]["levels"][level], passes["source"]["levels"][level]
            if compiled["actions"] != source["actions"]:
                sys.exit(f"run {run + 1}: {level} decided differently compiled and from source")
            pair = (statistics.fmean(compiled["cpu"]), statistics.fmean(source["cpu"]))
            means[level].append(pair)
            p99s[level].append((_p99(compiled["cpu"]), _p99(source["cpu"])))
            ratios[level].append(pair[0] / pair[1] if pair[1] else float("nan"))
        print(f"run {run + 1}: " + ", ".join(f"{level} {1000 * c:.2f} / {1000 * s:.2f} ms ({c / s:.3f})"
                                            for level, [*_, (c, s)] in means.items() if s), flush=True)
    summary = {level: {"ratio_median": statistics.median(values), "ratios": values,
                       "compiled_source_ms": [(1000 * c, 1000 * s) for c, s in means[level]],
                       "compiled_source_p99_ms": [(1000 * c, 1000 * s) for c, s in p99s[level]]}
               for level, values in ratios.items()}
    print(f"{args.game} {args.players}p, compiled / source CPU a decision (median of {args.runs} runs; every "
          "decision identical): " + ", ".join(f"{level} {row['ratio_median']:.3f}" for level, row in summary.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "levels": summary}, indent=1) + "\n")
    return summary


if __name__ == "__main__":
    main()
