"""Redis Cluster, end to end (docs/decisions/redis-cluster.md): `REDIS_CLUSTER=true make run` against a 3-primary Redis
Cluster plays every title end to end over REST with bots. The make-run supervisor (`python -m services.dev.stack`, what
`make run` and `make run-cluster` run) is started on a local cluster of Debian's redis-server
(services/dev/local_cluster.py) with the Celery broker on the standalone Redis; a game of every title (Aeroplanes 3p,
OpenSky 2p, Blue Skies 2p) is created over REST with seat 0 a person, played here with legal actions the API lists, and
the other seats bots; each ends finished with winners, and its published log replays with the engine to the digest the
API states.

The start-up checks of the cluster mode (a broker apart, a node that is a cluster node, a cluster that serves) are
the fast tests below; the whole games are `slow` (`make test-cluster` and `make test-slow` run them)."""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
import redis

import engine
from services.dev.launch import free_port
from services.dev.local_cluster import LocalCluster
from services.dev.stack import DEFAULT_BROKER_URL, resolve_broker, safe_url
from services.gamestate.replay import replay_entries
from tests.deploy.conftest import ROOT, SETTINGS_MODELS
from tests.deploy.test_stack_e2e import Stack, _stack_env
from tests.redis_required import CLUSTER
from tests.run_id import RUN

#: (title, players, the bots of seats 1.., seed): every title, seat 0 played by the test
GAMES = (("aeroplanes", 3, ("random", "greedy"), 401), ("opensky", 2, ("greedy",), 402),
         ("blueskies", 2, ("random",), 403))
BROKER_DB = 11  # the make-run stack tests' database on the standalone Redis (tests/deploy/test_stack_e2e.py)


def standalone_db(db: int) -> str:
    """Database `db` of the run's standalone Redis: REDIS_URL's, or the broker's when the run is on a cluster
    (`make test-cluster` points REDIS_URL at the cluster and CELERY_BROKER_URL at the standalone Redis)."""
    base = os.environ.get("CELERY_BROKER_URL" if CLUSTER else "REDIS_URL") or DEFAULT_BROKER_URL
    return f"{base.rsplit('/', 1)[0]}/{db}"


def require_standalone(url: str, who: str) -> str:
    """`url` if the standalone Redis there answers (a plain client even when the run is on a cluster); otherwise
    fail under CI=true, else skip (tests/redis_required.py's rule)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        message = f"Redis at {url} is not reachable ({exc}); {who} need a real Redis"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    finally:
        client.close()
    return url


def _start(env_overrides: dict[str, str], started: list[tuple[Stack, str]]) -> Stack:
    """The make-run supervisor with the end-to-end tests' free ports and this run's own prefixes and bot queue."""
    tag = f"sbrc{RUN}{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_MODELS and k != "CELERY_BROKER_URL"}
    env.update(_stack_env(tag))
    env.update(env_overrides)
    proc = subprocess.Popen([sys.executable, "-m", "services.dev.stack"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    running = Stack(proc, env)
    running.reader = threading.Thread(target=running.read, daemon=True)
    running.reader.start()
    started.append((running, tag))
    return running


@pytest.fixture
def stacks() -> Iterator[list[tuple[Stack, str]]]:
    started: list[tuple[Stack, str]] = []
    yield started
    for running, tag in started:
        _stop_and_clean(running, tag)


def _stop_and_clean(running: Stack, tag: str) -> None:
    """Stop the stack (SIGTERM, then SIGKILL), kill any child left, delete this run's keys on its broker (the cluster
    is thrown away with its keys)."""
    if running.proc.poll() is None:
        running.proc.send_signal(signal.SIGTERM)
        try:
            running.proc.wait(30)
        except subprocess.TimeoutExpired:
            running.proc.kill()
    for pid in running.child_pids():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    if running.reader is not None:
        running.reader.join(5)
    broker = redis.Redis.from_url(running.env["CELERY_BROKER_URL"], socket_connect_timeout=2)
    try:
        for pattern in (f"{tag}*", f"_kombu.binding.{tag}*"):
            keys = list(broker.scan_iter(match=pattern, count=1000))
            if keys:
                broker.delete(*keys)
    except redis.RedisError:
        pass  # a test whose broker never answered left nothing there
    finally:
        broker.close()


# ------------------------------------------------------------------------------------------- start-up (fast)


def test_the_broker_defaults_to_the_standalone_redis_on_a_cluster_and_is_kept_when_named() -> None:
    """Celery cannot use a cluster as broker; `make run` on a cluster defaults it to its standalone Redis."""
    cluster = {"REDIS_CLUSTER": "true", "REDIS_URL": "redis://127.0.0.1:30001/0"}
    assert resolve_broker(cluster) == (DEFAULT_BROKER_URL, "the standalone Redis of `make run` (Celery cannot use a "
                                                           "Redis Cluster)")
    assert DEFAULT_BROKER_URL == "redis://127.0.0.1:6379/0"
    assert resolve_broker({**cluster, "CELERY_BROKER_URL": "redis://b:6380/2"}) == ("redis://b:6380/2",
                                                                                    "CELERY_BROKER_URL")
    assert resolve_broker({"REDIS_URL": "redis://127.0.0.1:6379/7"}) == ("redis://127.0.0.1:6379/7",
                                                                         "REDIS_URL's Redis")
    assert resolve_broker({"REDIS_CLUSTER": "0", "REDIS_URL": "redis://h:1/0"})[0] == "redis://h:1/0"
    with pytest.raises(SystemExit, match="set CELERY_BROKER_URL"):  # the cluster node is where the broker would be
        resolve_broker({"REDIS_CLUSTER": "yes", "REDIS_URL": "redis://localhost:6379/0"})


def test_a_url_is_printed_without_its_password() -> None:
    """Secrets are never shown: the banner's Redis and broker URLs hide a password."""
    assert safe_url("redis://:s3cret@10.0.0.5:6379/1") == "redis://:***@10.0.0.5:6379/1"
    assert safe_url("redis://app:s3cret@cache/0") == "redis://app:***@cache/0"
    assert safe_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_on_a_redis_that_is_no_cluster_node_the_stack_says_so_and_starts_nothing(stacks) -> None:
    """REDIS_CLUSTER=true with REDIS_URL naming a standalone Redis exits 2 before any child is started."""
    standalone = require_standalone(standalone_db(BROKER_DB), "the make-run cluster checks")
    stack = _start({"REDIS_CLUSTER": "true", "REDIS_URL": standalone, "CELERY_BROKER_URL": standalone}, stacks)
    assert stack.proc.wait(60) == 2, stack.output()
    stack.reader.join(5)
    assert re.search(r"REDIS_CLUSTER=true but the Redis at \S+ is not in cluster mode: `make run-cluster`",
                     stack.output()), stack.output()
    assert stack.child_pids() == []


def test_with_no_cluster_node_answering_the_stack_says_how_to_get_one(stacks) -> None:
    """Nothing answers at REDIS_URL: exit 2, pointing at `make run-cluster` (no standalone Redis is started
    in a cluster's place)."""
    broker = require_standalone(standalone_db(BROKER_DB), "the make-run cluster checks")
    url = f"redis://127.0.0.1:{free_port()}/0"
    stack = _start({"REDIS_CLUSTER": "true", "REDIS_URL": url, "CELERY_BROKER_URL": broker,
                    "STACK_START_REDIS": "true"}, stacks)
    assert stack.proc.wait(60) == 2, stack.output()
    stack.reader.join(5)
    assert f"no Redis Cluster node answers at {url}: `make run-cluster` starts a local one" in stack.output()
    assert "starting" not in stack.output() and stack.child_pids() == []


# ------------------------------------------------------------------------------------------- whole games (slow)


def _get(http: httpx.Client, path: str, headers: dict[str, str]) -> dict:
    """GET `path` as JSON, waiting out the rate limit (429, Retry-After) as a well-behaved client does."""
    while (r := http.get(path, headers=headers)).status_code == 429:
        time.sleep(float(r.headers.get("Retry-After", "1")))
    assert r.status_code == 200, f"GET {path}: {r.status_code} {r.text}"
    return r.json()


def _play_as_seat_zero(base: str, title: str, players: int, bots: tuple[str, ...], seed: int,
                       results: dict[str, object]) -> None:
    """Create the game over REST, play seat 0 with the API's legal actions until it ends; store what was seen."""
    try:
        with httpx.Client(base_url=base, timeout=20) as http:
            key = http.post("/v1/players", json={"name": f"cluster {title}"}).json()["api_key"]
            created = http.post("/v1/games", headers={"Authorization": f"Bearer {key}"},
                                json={"game": title, "players": players, "seed": seed,
                                      "bots": {str(s): level for s, level in enumerate(bots, start=1)}})
            assert created.status_code == 201, created.text
            seats = {s["seat"]: s for s in created.json()["seats"]}
            assert [seats[s]["bot"] for s in range(1, players)] == list(bots) and seats[0]["token"]
            gid, me = created.json()["game_id"], {"Authorization": f"Bearer {seats[0]['token']}"}
            rng, moves, deadline = random.Random(seed), 0, time.monotonic() + 420
            while (game := _get(http, f"/v1/games/{gid}", me))["status"] == "active":
                assert time.monotonic() < deadline, f"{title} stalled at version {game['version']}"
                if 0 not in game["to_act"]:
                    time.sleep(0.2)  # the bots' turn: a worker thinks and submits
                    continue
                legal = _get(http, f"/v1/games/{gid}/actions", me)
                assert legal["seat"] == 0
                if not legal["actions"] or legal["version"] != game["version"]:
                    continue
                sent = http.post(f"/v1/games/{gid}/actions", headers=me,
                                 json={"action": rng.choice(legal["actions"]), "expected_version": legal["version"]})
                if sent.status_code == 409:  # a bot moved first (simultaneous turns): read the game again
                    continue
                if sent.status_code == 429:  # the player's rate limit, as any client honours it
                    time.sleep(float(sent.headers.get("Retry-After", "1")))
                    continue
                assert sent.status_code == 200, sent.text
                moves += 1
            results[title] = {"game": game, "log": http.get(f"/v1/games/{gid}/log").json(), "moves": moves}
    except BaseException as exc:  # the test reports it once the threads are joined
        results[title] = exc


@pytest.mark.slow
def test_make_run_on_a_three_primary_cluster_plays_every_title_over_rest_with_bots(stacks) -> None:
    """The make-run stack on a local 3-primary cluster, every title played to its end over REST
    (a person's seat by legal actions from the API, bots in the others), replays to the digest the log states."""
    broker = require_standalone(standalone_db(BROKER_DB), "the make-run stack on a cluster (its Celery broker)")
    assert sorted(engine.games()) == sorted(title for title, *_ in GAMES), "every title is played"
    with LocalCluster() as cluster:
        cluster.wait_healthy()
        stack = _start({"REDIS_CLUSTER": "true", "REDIS_URL": cluster.url, "CELERY_BROKER_URL": broker,
                        "STACK_WORKERS": "1", "STACK_WORKER_CONCURRENCY": "2"}, stacks)
        assert stack.ready.wait(120), f"the stack never became ready:\n{stack.output()}"
        output = "\n".join(stack.lines)
        assert re.search(r"stack\s+\| Celery broker: \S+/11 \(CELERY_BROKER_URL\)", output), output
        assert re.search(rf"stack\s+\|\s+Redis\s+Cluster at {re.escape(cluster.url)} \(3 primaries serving all "
                         r"16384 slots\)", output), output

        results: dict[str, object] = {}
        base = stack.url("gateway")
        threads = [threading.Thread(target=_play_as_seat_zero, args=(base, *spec, results)) for spec in GAMES]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(480)
        for title, players, _bots, seed in GAMES:
            result = results.get(title)
            if isinstance(result, BaseException):
                raise AssertionError(f"{title}: {result!r}\n{stack.output()}") from result
            assert isinstance(result, dict), f"{title} never ended:\n{stack.output()}"
            game, log = result["game"], result["log"]
            assert game["status"] == "finished" and game["to_act"] == [], title
            assert game["winners"] and set(game["winners"]) <= set(range(players)), title
            assert result["moves"] > 0 and game["version"] > result["moves"], "the person and the bots both played"
            assert log["status"] == "finished" and log["winners"] == game["winners"] and log["seed"] == seed
            assert len(log["actions"]) == log["version"] == game["version"]
            rules = engine.get(title)
            state = replay_entries(rules.new(players, seed, log["options"]), rules, log["actions"])
            assert state.is_over() and state.digest() == log["final_digest"], f"{title} replays to its digest"

        # the games' state is on the cluster, spread over its primaries; the bot tasks went through the broker
        prefix = stack.env["KEY_PREFIX"]
        holding = [port for port in cluster.primary_ports()
                   if next(cluster.node(port).scan_iter(match=f"{prefix}*", count=1000), None) is not None]
        assert len(holding) >= 2, f"this run's keys on primaries {holding} of {cluster.primary_ports()}"
        plain = redis.Redis.from_url(broker)
        try:
            assert not list(plain.scan_iter(match=f"{prefix}*", count=1000)), "no game state on the broker"
            assert plain.exists(f"_kombu.binding.{stack.env['BOT_QUEUE']}"), "bot tasks were queued on the broker"
        finally:
            plain.close()
