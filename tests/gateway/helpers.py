"""Client-side helpers of the gateway tests: play through REST, read Server-Sent Events."""

from __future__ import annotations

import contextlib
import json
import random
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
import redis

from tests.redis_required import CLUSTER, test_redis


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api_key(http: httpx.Client, name: str = "tester") -> str:
    """A new player's API key (what creating a game needs)."""
    r = http.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()["api_key"]


def create(http: httpx.Client, game: str, players: int, seed: int = 1, key: str | None = None, **extra) -> dict:
    """A game created by `key`'s player (a new player when None, so tests never meet each other's quotas)."""
    body = {"game": game, "players": players, "seed": seed, **extra}
    r = http.post("/v1/games", json=body, headers=auth(key or api_key(http)))
    assert r.status_code == 201, r.text
    return r.json()


def play_random(http: httpx.Client, game_id: str, tokens: dict[int, str], rng: random.Random,
                max_steps: int = 100_000) -> int:
    """Play random legal actions for every seat through REST alone until the game ends; returns the steps."""
    game = http.get(f"/v1/games/{game_id}").json()
    to_act = game["to_act"]
    steps = 0
    while game["status"] == "active":
        assert to_act, "an active game has someone to act"
        seat = rng.choice(to_act)
        legal = http.get(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat])).json()
        assert legal["seat"] == seat and legal["actions"], legal
        action = rng.choice(legal["actions"])
        r = http.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat]),
                      json={"action": action, "expected_version": legal["version"]})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["version"] == legal["version"] + 1
        game["status"], to_act = body["status"], body["to_act"]
        steps += 1
        assert steps < max_steps, "the game did not end"
    return steps


@dataclass
class Sse:
    """One parsed Server-Sent Event (or a comment when `comment` is set)."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    comment: str | None = None
    lines: list[str] = field(default_factory=list)

    def json(self):
        return json.loads(self.data)


def parse_sse(lines: Iterable[str], until: Callable[[list[Sse]], bool] = lambda out: False,
              comments: bool = False) -> list[Sse]:
    """The events of a stream's lines (and its comments, when asked), until `until(events so far)` holds after an
    event or the lines end: the one SSE parser of the tests."""
    out: list[Sse] = []
    current, data = Sse(), []
    for line in lines:
        if line.startswith(":"):
            if comments:
                out.append(Sse(comment=line[1:].strip()))
        elif line == "":
            if data or current.id is not None:
                current.data = "\n".join(data)
                out.append(current)
                if until(out):
                    return out
            current, data = Sse(), []
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                current.event = value
            elif name == "id":
                current.id = value
    return out


def read_sse(client: httpx.Client, url: str, headers: dict[str, str] | None = None,
             stop_after: int | None = None, comments: bool = False,
             until: Callable[[list[Sse]], bool] | None = None) -> list[Sse]:
    """Read a stream until it closes (or `stop_after` events, or `until` the events read so far); comments are kept
    when asked."""
    def enough(out: list[Sse]) -> bool:
        if until is not None and until(out):
            return True
        return stop_after is not None and sum(1 for e in out if e.comment is None) >= stop_after

    with client.stream("GET", url, headers=headers or {}) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        return parse_sse(r.iter_lines(), enough, comments)


class Monitor:
    """The commands Redis runs meanwhile (MONITOR on a connection of its own), between two ECHO markers; on a
    Redis Cluster (`make test-cluster`) MONITOR on every node, the commands of all of them."""

    def __init__(self, url: str):
        if CLUSTER:
            nodes = test_redis(url).get_nodes()
            self.clients = [redis.Redis(host=n.host, port=n.port, decode_responses=True) for n in nodes]
        else:
            self.clients = [redis.Redis.from_url(url, decode_responses=True)]
        self.marker = f"monitor-{uuid.uuid4().hex}"
        self.commands: list[str] = []
        self.lock = threading.Lock()

    def _listen(self, monitor, started: threading.Event) -> None:
        inside = False
        for item in monitor.listen():
            command = item["command"]
            if self.marker in command:
                if inside:
                    return
                inside = True
                started.set()
            elif inside:
                with self.lock:
                    self.commands.append(command)

    @contextmanager
    def watching(self) -> Iterator[list[str]]:
        with contextlib.ExitStack() as stack:
            threads = []
            for client in self.clients:
                monitor = stack.enter_context(client.monitor())
                started = threading.Event()
                thread = threading.Thread(target=self._listen, args=(monitor, started), daemon=True)
                thread.start()
                while not started.is_set():  # MONITOR is on once it has seen the first marker
                    client.echo(self.marker)
                    started.wait(0.05)
                threads.append(thread)
            try:
                yield self.commands
            finally:
                for client, thread in zip(self.clients, threads):
                    client.echo(self.marker)
                    thread.join(10)
        for client in self.clients:
            client.close()


def gateway_commands(gw, call: Callable[[], object]) -> list[str]:
    """The Redis commands on the gateway's own keys (`gw`: a tests.gateway.conftest.Gateway) while `call()` runs."""
    with Monitor(gw.settings.redis_url).watching() as seen:
        call()
    return [c for c in seen if gw.settings.key_prefix in c]
