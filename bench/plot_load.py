"""PNG plots of `make bench-load` results: latency (p50, p99) against achieved load, REST vs gRPC vs floor.

    python -m bench.plot_load bench/results/load.json bench/plots

One point per load level and run (paced levels and the closed-loop maximum).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

SERIES = {
    "rest": ("POST /v1/games/{id}/actions", "REST submit", "tab:blue"),
    "grpc": ("SubmitAction", "gRPC SubmitAction", "tab:green"),
    "floor": ("POST /floor/{key}", "floor (FastAPI + Redis GET/SET)", "tab:gray"),
}


def plot(results: dict, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=80, sharex=True)
    for key, (endpoint, label, color) in SERIES.items():
        points = []
        for run in results["runs"]:
            for level in run[key]:
                e = level["endpoints"].get(endpoint)
                if e:
                    rate = level["actions_per_s"] if key != "floor" else level["requests_per_s"] / 2
                    points.append((rate, e["p50_ms"], e["p99_ms"]))
        points.sort()
        for ax, idx, name in ((axes[0], 1, "p50"), (axes[1], 2, "p99")):
            ax.plot([p[0] for p in points], [p[idx] for p in points], "o", color=color, label=label, ms=4, alpha=0.8,
                    lw=1)
            ax.set_title(f"{name} latency against load")
    for ax in axes:
        ax.set_xlabel("achieved actions/s (floor: request pairs/s)")
        ax.set_ylabel("ms")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    axes[1].axhline(50, color="tab:red", ls="--", lw=1, label="target p99 50 ms")
    axes[1].legend(fontsize=7)
    m = results["machine"]
    fig.suptitle(f"{results['args']['games']} concurrent games, {m['nproc']} cores, load avg "
                 f"{m['loadavg'][0]:.1f} at start", fontsize=9)
    fig.tight_layout()
    path = out_dir / "latency_vs_load.png"
    fig.savefig(path)
    plt.close(fig)
    return [path]


def markdown(results: dict) -> str:
    """Tables of the medians over runs, per driver and load level, for bench/RESULTS.md."""
    lines = ["| path | offered actions/s | achieved actions/s | requests/s | submit p50 / p95 / p99 ms | errors |",
             "|---|---|---|---|---|---|"]
    for key, (endpoint, label, _color) in SERIES.items():
        for i, level in enumerate(results["runs"][0][key]):
            levels = [run[key][i] for run in results["runs"]]

            def med(values: list[float]) -> float:
                return statistics.median(values)

            e = [lv["endpoints"].get(endpoint, {}) for lv in levels]
            lat = " / ".join(f"{med([x.get(q, float('nan')) for x in e]):.0f}" for q in ("p50_ms", "p95_ms", "p99_ms"))
            errors = sum(sum(lv["errors"].values()) for lv in levels)
            offered = "max" if level["offered"] is None else f"{level['offered']:.0f}"
            lines.append(f"| {label} | {offered} | {med([lv['actions_per_s'] for lv in levels]):.0f} | "
                         f"{med([lv['requests_per_s'] for lv in levels]):.0f} | {lat} | {errors} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = argv if argv is not None else sys.argv[1:]
    source = Path(args[0] if args else "bench/results/load.json")
    out = Path(args[1] if len(args) > 1 else "bench/plots")
    results = json.loads(source.read_text())
    for path in plot(results, out):
        print(path)
    print(markdown(results))


if __name__ == "__main__":
    main()
