"""Lighthouse scores of the web client: accessibility and performance of the lobby and of a game page.

A benchmark, not a test (`python -m bench.lighthouse`). Starts a private stack (`bench/stack.py`: a game-state
service process and a gateway on loopback, keys under their own prefix), creates an OpenSky game of two human
seats through the REST API and plays `--moves` random legal actions so that the board has aircraft, hubs and
markets on it, then runs Lighthouse (the npm package, installed with `npm install --no-save lighthouse` into
`--npm-dir`, default a directory under the system temp dir kept between runs) against the lobby and the game page
(as a spectator: Lighthouse's fresh profile holds no seat token) in Debian's Chromium, and prints each page's
category scores. Nothing needs the internet: the pages are on loopback and Chromium runs with the flags below.

    python -m bench.lighthouse [--runs 3] [--form-factor mobile|desktop] [--json out.json]

Each page is measured `--runs` times; the median score per category is reported (Lighthouse's performance
score varies run to run, most of all on a busy machine: the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.stack import Stack

CHROME = "/usr/bin/chromium"
CHROME_FLAGS = ("--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
                "--disable-sync --no-first-run")
CATEGORIES = ("accessibility", "performance", "best-practices")
NPM_DIR = Path(tempfile.gettempdir()) / "skyboard-lighthouse"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def ensure_lighthouse(npm_dir: Path) -> Path:
    cli = npm_dir / "node_modules" / "lighthouse" / "cli" / "index.js"
    if not cli.exists():
        npm_dir.mkdir(parents=True, exist_ok=True)
        if shutil.which("npm") is None:
            sys.exit("npm is missing: Lighthouse is an npm package (install Node.js and npm)")
        subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "lighthouse"], cwd=npm_dir,
                       check=True)
    return cli


def make_game(url: str, moves: int, seed: int) -> str:
    """An OpenSky game of two human seats with `moves` random legal actions played; its id."""
    with httpx.Client(base_url=url, timeout=30) as client:
        me = client.post("/v1/players", json={"name": "Lighthouse"}).raise_for_status().json()
        created = client.post("/v1/games", json={"game": "opensky", "players": 2, "options": {}, "seed": seed},
                              headers={"Authorization": f"Bearer {me['api_key']}"}).raise_for_status().json()
        game_id = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        rng = random.Random(seed)
        for _ in range(moves):
            game = client.get(f"/v1/games/{game_id}").raise_for_status().json()
            if game["status"] != "active":
                break
            seat = game["to_act"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            actions = client.get(f"/v1/games/{game_id}/actions", headers=auth).raise_for_status().json()["actions"]
            client.post(f"/v1/games/{game_id}/actions", headers=auth,
                        json={"action": rng.choice(actions), "expected_version": game["version"]}).raise_for_status()
    return game_id


def lighthouse(cli: Path, url: str, form_factor: str, keep: Path | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        argv = ["node", str(cli), url, "--quiet", "--output=json", f"--output-path={out}",
                f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}",
                "--max-wait-for-load=60000"]
        if form_factor == "desktop":
            argv.append("--preset=desktop")
        subprocess.run(argv, check=True, env={**os.environ, "CHROME_PATH": CHROME}, timeout=300)
        report = json.loads(out.read_text())
        if keep:
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(out, keep)
    scores = {k: round(100 * report["categories"][k]["score"]) for k in CATEGORIES}
    audits = report["audits"]
    for k in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift"):
        scores[k] = audits[k]["displayValue"]
    failed = [a["id"] for a in (audits[r["id"]] for r in report["categories"]["accessibility"]["auditRefs"])
              if a.get("score") is not None and a["score"] < 1]
    scores["a11y-failed"] = ",".join(failed) or "-"
    return scores


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--form-factor", choices=("mobile", "desktop"), default="mobile")
    ap.add_argument("--npm-dir", type=Path, default=NPM_DIR)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--reports", type=Path, help="keep each Lighthouse JSON report in this directory")
    args = ap.parse_args(argv)
    cli = ensure_lighthouse(args.npm_dir)
    print(f"load average at start: {load()}  ({os.cpu_count()} cpus, {time.strftime('%H:%M UTC', time.gmtime())})")
    results = {}
    with Stack() as stack:
        game_id = make_game(stack.gateway_url, args.moves, args.seed)
        pages = {"lobby": f"{stack.gateway_url}/", "game": f"{stack.gateway_url}/game.html?id={game_id}"}
        for name, url in pages.items():
            runs = [lighthouse(cli, url, args.form_factor, args.reports and args.reports / f"{name}-{i}.json")
                    for i in range(args.runs)]
            med = {k: statistics.median(r[k] for r in runs) for k in CATEGORIES}
            results[name] = {"median": med, "runs": runs}
            print(f"{name:6} {args.form_factor:7} " + "  ".join(f"{k} {med[k]:.0f}" for k in CATEGORIES)
                  + f"   (runs: {', '.join(str(r['performance']) for r in runs)} performance; "
                  + f"LCP {runs[-1]['largest-contentful-paint']}, TBT {runs[-1]['total-blocking-time']}, "
                  + f"CLS {runs[-1]['cumulative-layout-shift']}; a11y audits failed: {runs[-1]['a11y-failed']})")
    print(f"load average at end: {load()}")
    if args.json:
        out = {"form_factor": args.form_factor, "load_end": load(), "pages": results}
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
