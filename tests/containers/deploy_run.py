"""`make test-deploy`: docker-compose.yml up under podman-compose, games played through the gateway's published
port while containers fail, then every game checked. Run as `python -m tests.containers.deploy_run` after
deploy/podman/build.sh has built the images (the Makefile does both). Exits 0 only if every check passes and
prints a report either way.

Checks, in order:
1. every service becomes ready (each container's own compose health check, run with `podman healthcheck run`
   since nothing runs them without systemd; plus the gateway's /readyz through the published port);
2. Prometheus, through its HTTP API: every scrape target up (both game-state replicas among them) and the
   alert rules loaded;
3. GAMES games (all three titles, a bot seat in each, the other seats played here through the gateway) while
   these faults happen, one after another: SIGKILL of a game-state replica, of the worker, of the gateway;
   `podman network disconnect` of the other game-state replica for 10 s; SIGKILL of the Redis primary (the
   Sentinels promote the replica, HAProxy follows, the old primary rejoins as a replica);
4. afterwards: every game finished, and replays (the engine, from the stored seed and actions) to its stored
   digest; every service ready again and every Prometheus target up; acknowledged actions missing from the
   stored logs are counted, and each must be from the window before the Redis failover (LOSS_WINDOW_S);
5. RATED_PAIRS rated games between two accounts (a challenge accepted, every seat played with the accounts' API
   keys) are played beside them while the outcomes consumer is SIGKILLed among the faults: each must be settled
   exactly once (one rated game in each player's rating) and its `game_end` be on each account's stream once.
"""

from __future__ import annotations

import faulthandler
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

import engine
from services.dev.launch import wait_until

ROOT = Path(__file__).resolve().parents[2]
# podman's settings for this machine kind (runc, ulimits): deploy/podman/containers.conf
os.environ.setdefault("CONTAINERS_CONF", str(ROOT / "deploy/podman/containers.conf"))
PROJECT = os.environ.get("DEPLOY_TEST_PROJECT", "skyboard-deploy-test")
COMPOSE = [str(Path(sys.executable).with_name("podman-compose")), "-p", PROJECT, "-f", str(ROOT / "docker-compose.yml"),
           "-f", str(ROOT / "tests/containers/compose.test.yml")]
#: every compose service but Grafana (neither Debian nor PyPI has it; see docs/platform/running.md)
SERVICES = ["postgres", "redis-0", "redis-1", "sentinel-1", "sentinel-2", "sentinel-3", "redis", "gamestate", "worker",
            "gateway", "matchmaker", "outcomes", "webhooks", "exporter", "prometheus"]
INFRA = "localhost/skyboard-infra:latest"
GATEWAY = "http://127.0.0.1:8000"
PROMETHEUS = "http://127.0.0.1:9090"
GAMES = int(os.environ.get("DEPLOY_TEST_GAMES", "30"))
TITLES = [("aeroplanes", 3), ("opensky", 2), ("blueskies", 3)]
START_EVERY_S = 4.0  # games start one after another, so some are always in play while faults happen
MOVE_PAUSE_S = 0.25  # a human thinks a little
#: rated games between two accounts, played while the outcomes consumer is killed (check 5)
RATED_PAIRS = int(os.environ.get("DEPLOY_TEST_RATED_PAIRS", "3"))
#: the documented window (docs/platform/scaling.md): writes acknowledged in the last seconds before a failover
LOSS_WINDOW_S = 2.0
T0 = time.monotonic()


def say(text: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {text}", flush=True)


def run(args: list[str], timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} -> {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


def podman(*args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    return run(["podman", *args], timeout=timeout, check=check)


def container(service: str, n: int = 1) -> str:
    return f"{PROJECT}_{service}_{n}"


def containers() -> list[str]:
    out = podman("ps", "-a", "--filter", f"label=io.podman.compose.project={PROJECT}", "--format", "{{.Names}}")
    return sorted(out.stdout.split())


def host_pid(name: str) -> int:
    return int(podman("inspect", "-f", "{{.State.Pid}}", name).stdout.strip())


def sigkill(name: str) -> None:
    """SIGKILL the container's main process from the host, as a crash would: the restart policy applies."""
    pid = host_pid(name)
    if pid <= 0:
        raise RuntimeError(f"{name} is not running")
    os.kill(pid, signal.SIGKILL)


def restarts(name: str) -> int:
    return int(podman("inspect", "-f", "{{.RestartCount}}", name).stdout.strip() or 0)


def healthy(name: str) -> bool:
    return podman("healthcheck", "run", name, timeout=60, check=False).returncode == 0


def running(name: str) -> bool:
    return podman("inspect", "-f", "{{.State.Running}}", name, check=False).stdout.strip() == "true"


def back_after_kill(name: str, timeout: float = 90) -> float:
    """The restart policy brings a killed container back (podman restarts it); if it did not, start it."""
    def up() -> bool:
        if not running(name):
            podman("start", name, check=False)
            return False
        return healthy(name)
    return wait_until(f"{name} healthy again", up, timeout, every=1.0)


# ---------------------------------------------------------------------------------------------- stack


def teardown() -> None:
    for _ in range(5):  # podman refuses to remove a container others depend on (compose's depends_on) first
        names = containers()
        if not names:
            break
        for name in reversed(names):
            podman("rm", "-f", "-t", "0", "--depend", name, timeout=180, check=False)
    vols = podman("volume", "ls", "-q", "--filter", f"label=io.podman.compose.project={PROJECT}", check=False)
    for vol in vols.stdout.split():
        podman("volume", "rm", "-f", vol, check=False)
    podman("network", "rm", "-f", f"{PROJECT}_default", check=False)


def up() -> None:
    env = {**os.environ, "SERVICE_SECRET": secrets.token_urlsafe(32), "POSTGRES_PASSWORD": secrets.token_urlsafe(24),
           "WEBHOOK_KEY": secrets.token_urlsafe(32),
           "GRAFANA_ADMIN_PASSWORD": secrets.token_urlsafe(16),
           "REDIS_IMAGE": INFRA, "HAPROXY_IMAGE": INFRA, "PROMETHEUS_IMAGE": INFRA, "POSTGRES_IMAGE": INFRA}
    result = subprocess.run([*COMPOSE, "up", "-d", *SERVICES], capture_output=True, text=True, timeout=600,
                            cwd=ROOT, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"podman-compose up failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def all_ready(timeout: float) -> float:
    names = containers()
    expected = {container(s) for s in SERVICES} | {container("gamestate", 2)}
    missing = expected - set(names)
    if missing:
        raise RuntimeError(f"containers missing: {sorted(missing)}")

    def ready() -> bool:
        pending = [n for n in sorted(expected) if not healthy(n)]
        if pending:
            say(f"  not ready yet: {', '.join(p.removeprefix(PROJECT + '_') for p in pending)}")
            return False
        return httpx.get(f"{GATEWAY}/readyz", timeout=5).status_code == 200
    return wait_until("every service ready", ready, timeout, every=3.0)


#: the Redis nodes' fixed addresses (docker-compose.yml)
REDIS_NODES = {"172.30.26.250": "redis-0", "172.30.26.251": "redis-1"}


def redis_master() -> str:
    """The compose service the Sentinels name as master."""
    out = podman("exec", container("sentinel-1"), "redis-cli", "-p", "26379", "sentinel",
                 "get-master-addr-by-name", "skyboard")
    return REDIS_NODES[out.stdout.split()[0]]


def prometheus_ok() -> tuple[dict[str, int], int]:
    """(up targets per job, rules loaded); raises unless every target is up and the alert rules are loaded."""
    targets = httpx.get(f"{PROMETHEUS}/api/v1/targets", timeout=5).json()["data"]["activeTargets"]
    jobs: dict[str, int] = {}
    for t in targets:
        if t["health"] != "up":
            raise RuntimeError(f"target {t['scrapeUrl']} is {t['health']}: {t.get('lastError')}")
        jobs[t["labels"]["job"]] = jobs.get(t["labels"]["job"], 0) + 1
    want = {"gamestate": 2, "gateway": 1, "worker": 1, "outcomes": 1, "exporter": 1, "prometheus": 1}
    if any(jobs.get(job, 0) < n for job, n in want.items()):
        raise RuntimeError(f"targets up per job {jobs}, want {want}")
    groups = httpx.get(f"{PROMETHEUS}/api/v1/rules", timeout=5).json()["data"]["groups"]
    alerts = [r["name"] for g in groups for r in g["rules"] if r["type"] == "alerting"]
    if len(alerts) < 7:
        raise RuntimeError(f"alert rules loaded: {alerts}")
    return jobs, len(alerts)


# ---------------------------------------------------------------------------------------------- games


@dataclass
class Ack:
    game_id: str
    version: int
    seat: int
    action: dict
    at: float  # monotonic


@dataclass
class Played:
    game: str
    players: int
    game_id: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    acks: list[Ack] = field(default_factory=list)
    status: str = "new"
    errors: int = 0
    error: str = ""


class Client:
    """The test's human players: plain REST through the gateway container's published port, retrying through
    faults (connection errors, 5xx) with an Idempotency-Key so a retried submission is never applied twice."""

    def __init__(self) -> None:
        self.http = httpx.Client(base_url=GATEWAY, timeout=10)
        self.lock = threading.Lock()

    def call(self, method: str, path: str, played: Played | None = None, deadline_s: float = 240, **kw):
        start = time.monotonic()
        while True:
            try:
                r = self.http.request(method, path, **kw)
                if r.status_code < 500 and r.status_code != 429:
                    return r
                reason = f"{r.status_code} {r.text[:120]}"
            except httpx.HTTPError as exc:
                reason = repr(exc)
            if played is not None:
                played.errors += 1
            if time.monotonic() - start > deadline_s:
                raise RuntimeError(f"{method} {path}: still failing after {deadline_s:.0f}s: {reason}")
            time.sleep(0.5)


def new_player(client: Client, name: str) -> tuple[str, str]:
    """A new account: (player id, API key)."""
    r = client.call("POST", "/v1/players", json={"name": name})
    r.raise_for_status()
    return r.json()["player_id"], r.json()["api_key"]


def player_key(client: Client, name: str) -> str:
    return new_player(client, name)[1]


def play(client: Client, played: Played, api_key: str, seed: int) -> None:
    rng = random.Random(seed)
    body = {"game": played.game, "players": played.players, "seed": seed, "bots": {"0": "random"}}
    r = client.call("POST", "/v1/games", played, json=body, headers={"Authorization": f"Bearer {api_key}",
                                                                       "Idempotency-Key": uuid.uuid4().hex})
    if r.status_code != 201:
        raise RuntimeError(f"create {played.game}: {r.status_code} {r.text[:300]}")
    created = r.json()
    played.game_id = created["game_id"]
    played.tokens = {s["seat"]: s["token"] for s in created["seats"] if s["token"]}
    play_out(client, played, rng)


@dataclass
class Rated:
    """A rated game between two accounts: its record, and each account's (player id, API key)."""

    played: Played
    accounts: list[tuple[str, str]] = field(default_factory=list)


def play_rated(client: Client, rated: Rated, i: int) -> None:
    """Two new accounts, a rated challenge accepted, every seat played with the accounts' API keys."""
    played = rated.played
    a, b = new_player(client, f"rated-a{i}"), new_player(client, f"rated-b{i}")
    rated.accounts = [a, b]
    r = client.call("POST", "/v1/challenges", played, json={"to": b[0], "game": played.game, "rated": True},
                    headers={"Authorization": f"Bearer {a[1]}"})
    if r.status_code != 201:
        raise RuntimeError(f"challenge: {r.status_code} {r.text[:300]}")
    cid = r.json()["challenge_id"]
    r = client.call("POST", f"/v1/challenges/{cid}/accept", played, headers={"Authorization": f"Bearer {b[1]}"})
    if r.status_code != 200:  # an accept retried after a lost answer: the challenge names its game
        r = client.call("GET", f"/v1/challenges/{cid}", played, headers={"Authorization": f"Bearer {b[1]}"})
    played.game_id = r.json().get("game_id") or ""
    if not played.game_id:
        raise RuntimeError(f"challenge {cid} accepted without a game: {r.text[:300]}")
    seats = client.call("GET", f"/v1/games/{played.game_id}", played).json()["seats"]
    played.tokens = {s["seat"]: (a[1] if s["player_id"] == a[0] else b[1]) for s in seats}
    play_out(client, played, random.Random(5000 + i))


def game_ends(api_key: str, game_id: str, listen_s: float = 5.0) -> int:
    """How many `game_end` events of `game_id` the account's stream holds (its kept history, replayed; the stream is
    read for `listen_s` after its last event, so a late one would be counted too)."""
    found = 0
    try:
        with httpx.Client(base_url=GATEWAY, timeout=httpx.Timeout(10, read=listen_s)) as http, http.stream(
                "GET", "/v1/players/me/events?replay=true", headers={"Authorization": f"Bearer {api_key}"}) as r:
            event = ""
            for line in r.iter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and event == "game_end":
                    found += json.loads(line.split(":", 1)[1])["game_id"] == game_id
                elif not line:
                    event = ""
    except httpx.ReadTimeout:
        pass  # nothing more within listen_s: the history is read
    return found


def play_out(client: Client, played: Played, rng: random.Random) -> None:
    """Play the seats of `played.tokens` (seat tokens or the accounts' API keys) until the game is finished."""
    played.status = "active"
    any_token = next(iter(played.tokens.values()))
    last_progress = time.monotonic()
    while True:
        g = client.call("GET", f"/v1/games/{played.game_id}", played,
                        headers={"Authorization": f"Bearer {any_token}"}).json()
        if g["status"] == "finished":
            played.status = "finished"
            return
        mine = [s for s in g["to_act"] if s in played.tokens]
        if not mine:
            if time.monotonic() - last_progress > 240:
                raise RuntimeError(f"{played.game_id}: no progress for 240 s (to_act {g['to_act']})")
            time.sleep(0.3)  # a bot's turn
            continue
        seat = rng.choice(mine)
        auth = {"Authorization": f"Bearer {played.tokens[seat]}"}
        legal = client.call("GET", f"/v1/games/{played.game_id}/actions", played, headers=auth)
        if legal.status_code != 200:
            time.sleep(0.2)
            continue
        answer = legal.json()
        if not answer["actions"]:
            time.sleep(0.2)
            continue
        action = rng.choice(answer["actions"])
        key = f"{played.game_id}-{answer['version']}-{seat}"
        r = client.call("POST", f"/v1/games/{played.game_id}/actions", played, json={
            "action": action, "expected_version": answer["version"]}, headers={**auth, "Idempotency-Key": key})
        if r.status_code == 200:
            v = r.json()["version"]
            played.acks.append(Ack(played.game_id, v, seat, action, time.monotonic()))
            last_progress = time.monotonic()
            time.sleep(MOVE_PAUSE_S)
        elif r.status_code in (409, 412, 422, 400):  # the game moved on (another seat, a bot, a rollback)
            time.sleep(0.1)
        else:
            raise RuntimeError(f"{played.game_id}: submit answered {r.status_code} {r.text[:300]}")


def replay(log: dict) -> str:
    game = engine.get(log["game"])
    state = game.new(log["players"], log["seed"], log["options"])
    for entry in log["actions"]:
        state.apply(entry["seat"], game.action_from_json(entry["action"]))
    if not state.is_over():
        raise RuntimeError("the replayed game is not over")
    return state.digest()


# ---------------------------------------------------------------------------------------------- faults


@dataclass
class Fault:
    name: str
    at: float = 0.0
    recovered_s: float = 0.0
    active_games: int = 0
    note: str = ""


def faults(report: list[Fault], games: list[Played], failover: dict) -> None:
    def active() -> int:
        return sum(1 for p in games if p.status == "active")

    def kill_and_wait(name: str, label: str) -> None:
        f = Fault(label, time.monotonic(), active_games=active())
        say(f"fault: {label} ({f.active_games} games in play)")
        before = restarts(name), host_pid(name)
        sigkill(name)
        time.sleep(2)
        f.recovered_s = back_after_kill(name)
        after = restarts(name), host_pid(name)
        if after[0] <= before[0] or after[1] == before[1]:
            raise RuntimeError(f"{name} was not restarted after SIGKILL (restarts, pid: {before} -> {after})")
        f.note = f"pid {before[1]} killed, restarted as pid {after[1]}"
        say(f"  {name} healthy again after {f.recovered_s:.1f}s ({f.note})")
        report.append(f)

    time.sleep(12)
    kill_and_wait(container("gamestate", 1), "SIGKILL game-state replica 1")
    time.sleep(6)
    kill_and_wait(container("worker"), "SIGKILL worker")
    time.sleep(6)
    kill_and_wait(container("gateway"), "SIGKILL gateway")
    time.sleep(3)
    kill_and_wait(container("outcomes"), "SIGKILL outcomes consumer")
    time.sleep(6)
    name = container("gamestate", 2)
    f = Fault("network disconnect of game-state replica 2 for 10 s", time.monotonic(), active_games=active())
    say(f"fault: {f.name} ({f.active_games} games in play)")
    podman("network", "disconnect", f"{PROJECT}_default", name)
    time.sleep(10)
    podman("network", "connect", "--alias", "gamestate", f"{PROJECT}_default", name)
    f.recovered_s = wait_until(f"{name} healthy again", lambda: healthy(name), 60, every=1.0)
    f.note = "reconnected with its `gamestate` alias"
    report.append(f)
    time.sleep(6)
    old = redis_master()
    f = Fault(f"SIGKILL Redis primary ({old})", time.monotonic(), active_games=active())
    say(f"fault: {f.name} ({f.active_games} games in play)")
    failover["killed_at"] = time.monotonic()
    sigkill(container(old))
    wait_until("Sentinel failover", lambda: redis_master() != old, 60, every=0.5)
    new = redis_master()
    failover["promoted_after_s"] = time.monotonic() - failover["killed_at"]
    say(f"  Sentinels promoted {new} after {failover['promoted_after_s']:.1f}s")
    back_after_kill(container(old), timeout=120)
    wait_until(f"{old} replicating {new}",
               lambda: podman("exec", container(old), "redis-cli", "role").stdout.split()[0] == "slave", 60, every=1.0)
    f.recovered_s = time.monotonic() - f.at
    f.note = f"{new} promoted after {failover['promoted_after_s']:.1f}s; {old} rejoined as its replica"
    failover["new"], failover["old"] = new, old
    report.append(f)


# ---------------------------------------------------------------------------------------------- main


def main() -> int:
    faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <pid>` prints every thread's stack
    failures: list[str] = []
    lines: list[str] = []
    say(f"tearing down any earlier {PROJECT} stack")
    teardown()
    try:
        say("podman-compose up: " + " ".join(SERVICES))
        up()
        took = all_ready(240)
        say(f"every service ready ({took:.0f}s after up)")
        lines.append(f"ready: {len(containers())} containers (gamestate x2), {took:.0f}s after podman-compose up")
        wait_until("Prometheus targets up and rules loaded", lambda: prometheus_ok() is not None, 120, every=3)
        jobs, rules = prometheus_ok()
        lines.append(f"prometheus: targets up per job {jobs}; {rules} alert rules loaded (HTTP API)")
        say(lines[-1])
        master0 = redis_master()
        lines.append(f"redis: master {master0} (Sentinels), replica and 3 Sentinels, HAProxy `redis` in front")

        client = Client()
        keys = [player_key(client, f"deploy-{i}") for i in range(4)]
        games = [Played(*TITLES[i % 3]) for i in range(GAMES)]
        rated = [Rated(Played(("opensky", "blueskies")[i % 2], 2)) for i in range(RATED_PAIRS)]
        report: list[Fault] = []
        failover: dict = {}
        fault_errors: list[str] = []

        def fault_thread() -> None:
            try:
                faults(report, games, failover)
            except Exception as exc:
                fault_errors.append(repr(exc))
                say(f"fault run failed: {exc!r}")

        def game_thread(i: int) -> None:
            try:
                play(client, games[i], keys[i % len(keys)], seed=1000 + i)
            except Exception as exc:
                games[i].status, games[i].error = "failed", repr(exc)
                say(f"game {i} ({games[i].game}) failed: {exc!r}")

        started = time.monotonic()
        done = threading.Event()

        def progress() -> None:
            while not done.wait(15):
                counts = {st: sum(1 for p in games if p.status == st) for st in ("new", "active", "finished", "failed")}
                say(f"  games {counts}, {sum(len(p.acks) for p in games)} human actions acknowledged")

        threading.Thread(target=progress, daemon=True).start()
        ft = threading.Thread(target=fault_thread)
        ft.start()
        def rated_thread(i: int) -> None:
            try:
                play_rated(client, rated[i], i)
            except Exception as exc:
                rated[i].played.status, rated[i].played.error = "failed", repr(exc)
                say(f"rated game {i} failed: {exc!r}")

        threads = []
        for i in range(RATED_PAIRS):  # in play from the start, through the faults (the consumer's kill among them)
            t = threading.Thread(target=rated_thread, args=(i,))
            t.start()
            threads.append(t)
        for i in range(GAMES):
            t = threading.Thread(target=game_thread, args=(i,))
            t.start()
            threads.append(t)
            time.sleep(START_EVERY_S)
        for t in threads:
            t.join(600)
        ft.join(300)
        done.set()
        played_s = time.monotonic() - started
        failures += [f"fault run: {e}" for e in fault_errors]
        for f in report:
            lines.append(f"fault: {f.name}: {f.active_games} games in play, recovered in {f.recovered_s:.1f}s"
                         + (f" ({f.note})" if f.note else ""))

        # afterwards: everything ready again, every target up
        all_ready(180)
        wait_until("Prometheus targets up again", lambda: prometheus_ok() is not None, 120, every=3)
        lines.append("after the faults: every service ready, every Prometheus target up")

        finished = [p for p in games if p.status == "finished"]
        by_title = {t: sum(1 for p in finished if p.game == t) for t, _ in TITLES}
        lines.append(f"games: {len(finished)}/{GAMES} finished {by_title} in {played_s:.0f}s; "
                     f"{sum(len(p.acks) for p in games)} human actions acknowledged, "
                     f"{sum(p.errors for p in games)} calls retried through faults")
        for p in games + [r.played for r in rated]:
            if p.status != "finished":
                failures.append(f"game {p.game_id or '?'} ({p.game}) {p.status}: {p.error}")
        # rated games across the consumer's kill: settled exactly once, game_end once per account
        settled, delivered = 0, 0
        for r in rated:
            if r.played.status != "finished":
                continue
            deadline = time.monotonic() + 120  # a killed consumer's entries are claimed after 30 s
            counts: list[int] = []
            while time.monotonic() < deadline:
                counts = [client.call("GET", f"/v1/players/{pid}").json()["ratings"].get(r.played.game, {})
                          .get("games", 0) for pid, _key in r.accounts]
                if all(n >= 1 for n in counts):
                    break
                time.sleep(2)
            ends = [game_ends(key, r.played.game_id) for _pid, key in r.accounts]
            settled += counts == [1, 1]
            delivered += sum(ends)
            if counts != [1, 1]:
                failures.append(f"rated game {r.played.game_id}: its players' ratings count {counts} games, not 1")
            if ends != [1, 1]:
                failures.append(f"rated game {r.played.game_id}: game_end on the two accounts' streams {ends} "
                                "times, not once each")
        lines.append(f"rated games across the outcomes consumer's SIGKILL: {settled}/{RATED_PAIRS} settled exactly "
                     f"once, {delivered} game_end delivered (2 per game, once per account)")
        # replays and lost acknowledged actions
        mismatched, lost = 0, []
        for p in finished:
            log = client.call("GET", f"/v1/games/{p.game_id}/log").json()
            if replay(log) != log["final_digest"]:
                mismatched += 1
                failures.append(f"game {p.game_id}: replay digest differs from the stored one")
            entries = {e["v"]: e for e in log["actions"]}
            for ack in p.acks:
                e = entries.get(ack.version)
                if e is None or e["seat"] != ack.seat or json.dumps(e["action"], sort_keys=True) != json.dumps(
                        ack.action, sort_keys=True):
                    lost.append(ack)
        lines.append(f"replays: {len(finished) - mismatched}/{len(finished)} match their stored digest")
        killed_at = failover.get("killed_at")
        outside = [a for a in lost if killed_at is None or not (killed_at - LOSS_WINDOW_S <= a.at <= killed_at + 1)]
        lines.append(f"acknowledged actions lost across the Redis failover: {len(lost)} "
                     f"(window {LOSS_WINDOW_S:.0f}s before the kill; {len(outside)} outside it)")
        if outside:
            failures.append(f"{len(outside)} acknowledged actions lost outside the documented window: "
                            + ", ".join(f"{a.game_id}@{a.version}" for a in outside[:5]))
    except Exception as exc:
        failures.append(f"{type(exc).__name__}: {exc}")
        for name in containers():
            say(f"--- last log lines of {name}")
            print(podman("logs", "--tail", "15", name, check=False).stdout[-2500:], flush=True)
    finally:
        if os.environ.get("DEPLOY_TEST_KEEP") != "1":
            say("tearing down")
            teardown()
    print("\n==== make test-deploy report ====")
    for line in lines:
        print("  " + line)
    for failure in failures:
        print("  FAILED: " + failure)
    print(f"  {'PASSED' if not failures else 'FAILED'} in {time.monotonic() - T0:.0f}s")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
