"""CPU cost per request of the gateway and per accepted action of the game-state service, tree against tree.

Why: wall-clock throughput on this shared 2-core machine moves with the neighbours by up to 2x, but the
user+system CPU time a process spends per request does not (much). This runs the real processes of one
source tree (`python -m services.gamestate`, `python -m services.gateway`, via bench.stack), plays `--games`
concurrent games as fast as answers come with bench.load's REST (or gRPC) driver, and reads both processes'
/proc/<pid>/stat around a measured window. Trees are run alternately, round after round, and medians and
ratios to the first tree are printed, e.g. the main branch against this one:

    git archive main | tar -x -C /tmp/mainref && (cd /tmp/mainref && make install)
    python -m bench.cpu_cost --tree main=/tmp/mainref --tree new=. --rounds 5

`--profile DIR` also records both processes with py-spy (`--py-spy PATH`) during the window, as collapsed
stacks (`DIR/<tree>-<role>-<round>.txt`), for `python -m bench.profile_summary`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

from bench.gateway_cpu import cpu_seconds
from bench.load import Slot, grpc_driver, http_clients, rest_driver, run_level
from bench.stack import Stack


async def measure(stack: Stack, games: int, seconds: float, path: str, seed: int,
                  profile: tuple[str, Path, str] | None) -> dict[str, Any]:
    """Warm up (creates every game), then one closed-loop window with CPU read around it."""
    pids = {"gateway": stack.procs["gateway"].popen.pid, "service": stack.procs["service"].popen.pid}
    slots = [Slot() for _ in range(games)]

    async def window(driver) -> dict[str, Any]:
        await run_level(driver, slots, max(2.0, seconds / 3), None, seed)
        spies = []
        if profile:
            spy, out_dir, label = profile
            for role, pid in pids.items():
                out = out_dir / f"{label}-{role}.txt"
                spies.append(subprocess.Popen(
                    [spy, "record", "-p", str(pid), "-d", str(int(seconds)), "-r", "200", "-f", "raw", "-o",
                     str(out), "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        before = {role: cpu_seconds(pid) for role, pid in pids.items()}
        driver_cpu = time.process_time()
        result = await run_level(driver, slots, seconds, None, seed + 1)
        driver_cpu = time.process_time() - driver_cpu
        after = {role: cpu_seconds(pid) for role, pid in pids.items()}
        for spy_proc in spies:
            spy_proc.wait(60)
        result["cpu_s"] = {role: after[role] - before[role] for role in pids}
        result["cpu_s"]["driver"] = driver_cpu
        return result

    if path == "grpc":
        from services.gamestate.client import AsyncGameClient

        async with AsyncGameClient(stack.grpc_addr, timeout=30) as client:
            result = await window(grpc_driver(client))
    else:
        async with http_clients("lean", stack.gateway_url, games) as make_http:
            result = await window(rest_driver(make_http))
    requests = sum(e["n"] for e in result["endpoints"].values())
    elapsed = requests / max(result["requests_per_s"], 1e-9)  # run_level reports rates over its own clock
    accepted = round(result["actions_per_s"] * elapsed)
    return {
        "accepted": accepted, "requests": requests, "actions_per_s": result["actions_per_s"],
        "errors": result["errors"], "cpu_s": result["cpu_s"],
        "gateway_ms_per_request": result["cpu_s"]["gateway"] / max(requests, 1) * 1000,
        "gateway_ms_per_action": result["cpu_s"]["gateway"] / max(accepted, 1) * 1000,
        "service_ms_per_action": result["cpu_s"]["service"] / max(accepted, 1) * 1000,
        # the load generator (this process: the REST or gRPC clients of every slot): whether it, not the server,
        # is the ceiling of a closed loop
        "driver_ms_per_action": result["cpu_s"]["driver"] / max(accepted, 1) * 1000,
    }


def run_tree(root: Path, pythonpath: str | None, args: argparse.Namespace, rnd: int, label: str,
             env: dict[str, str] | None = None) -> dict[str, Any]:
    old = os.environ.get("PYTHONPATH")
    saved = {name: os.environ.get(name) for name in env or {}}
    os.environ.update(env or {})  # the processes of this tree's stack inherit them (a setting to compare)
    if pythonpath:
        os.environ["PYTHONPATH"] = pythonpath
    else:
        os.environ.pop("PYTHONPATH", None)
    try:
        # own namespace: a test run's session cleanup sweeps the `sbproof` keys of a running bench
        with Stack(root=root, prefix=f"sbcpu:{uuid.uuid4().hex[:8]}:") as stack:
            profile = (args.py_spy, Path(args.profile), f"{label}-{rnd}") if args.profile else None
            return asyncio.run(measure(stack, args.games, args.seconds, args.path, rnd, profile))
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a source tree (repeatable)")
    ap.add_argument("--pythonpath", action="append", default=[], help="NAME=PATHS: extra PYTHONPATH for a tree")
    ap.add_argument("--env", action="append", default=[],
                    help="NAME=VAR=VALUE: an environment variable for a tree's processes (repeatable), e.g. a setting "
                    "compared on one tree given twice under two names")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--path", choices=["rest", "grpc"], default="rest")
    ap.add_argument("--profile", help="directory for py-spy collapsed stacks (slows the processes down)")
    ap.add_argument("--py-spy", default="py-spy")
    ap.add_argument("--json", help="write every round here")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    extra = dict(p.split("=", 1) for p in args.pythonpath)
    envs: dict[str, dict[str, str]] = {}
    for item in args.env:
        name, var, value = item.split("=", 2)
        envs.setdefault(name, {})[var] = value
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for rnd in range(args.rounds):
        order = list(trees) if rnd % 2 == 0 else list(reversed(trees))
        for name in order:
            r = run_tree(Path(trees[name]).resolve(), extra.get(name), args, rnd, name, envs.get(name))
            r["loadavg"] = os.getloadavg()[0]
            rounds[name].append(r)
            print(f"round {rnd + 1} {name:8s} {r['actions_per_s']:6.1f} actions/s  gateway "
                  f"{r['gateway_ms_per_request']:.3f} ms/req ({r['gateway_ms_per_action']:.3f} ms/action)  "
                  f"service {r['service_ms_per_action']:.3f} ms/action  "
                  f"driver {r['driver_ms_per_action']:.3f} ms/action  errors={r['errors'] or 0}  "
                  f"load avg {r['loadavg']:.1f}", flush=True)
            time.sleep(0.5)
    first = next(iter(trees))
    keys = ("gateway_ms_per_request", "gateway_ms_per_action", "service_ms_per_action", "driver_ms_per_action",
            "actions_per_s")
    med = {name: {k: statistics.median(r[k] for r in rs) for k in keys} for name, rs in rounds.items()}
    for name, m in med.items():
        ratios = "  ".join(f"{k} x{m[k] / med[first][k]:.2f}" for k in keys)
        print(f"median {name:8s} " + "  ".join(f"{k}={m[k]:.3f}" for k in keys) + (
            f"\n       vs {first}: {ratios}" if name != first else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rounds": rounds, "medians": med}, indent=1))


if __name__ == "__main__":
    main()
