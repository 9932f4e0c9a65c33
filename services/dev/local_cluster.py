"""A Redis Cluster on this machine (3 primaries, 3 replicas by default), for tests and `make run-cluster`.

Why: the platform runs on Redis Cluster (docs/decisions/redis-cluster.md), and its proof must be a real cluster of
Debian's `redis-server` (failover included), not a mock. Each node is a `redis-server` process in cluster mode with its
own directory under a temporary folder, in memory only; `redis-cli --cluster create` assigns the slots and pairs each
primary with a replica. Ports are picked free (a node also needs its port + 10000 for the cluster bus).

    python -m services.dev.local_cluster            # start one, print its URL, run until Ctrl-C
    python -m services.dev.local_cluster -- CMD...  # run CMD with REDIS_CLUSTER=true and REDIS_URL set to it

`make run-cluster` is the second form with `make run`'s supervisor as CMD: Ctrl-C reaches CMD (it shares our
terminal's process group) and the cluster is stopped once CMD has stopped; a SIGTERM to us is passed on to CMD. The
nodes die with this process however it dies (PR_SET_PDEATHSIG), so no redis-server outlives a killed run.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from services.dev.launch import die_with_parent

#: How long a primary may be unreachable before its replica is promoted (cluster-node-timeout). Short on purpose:
#: the failover tests wait for it; production clusters choose their own.
NODE_TIMEOUT_MS = 1500
_BUS_OFFSET = 10_000


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int, low: int = 11_000, high: int = 19_000) -> list[int]:
    """`count` consecutive ports whose cluster-bus ports (+10000) are free too, starting at a pid-derived offset
    (two runs on one machine rarely probe the same ports first), wrapping round the range: an offset near its top must
    not leave the ports below it unprobed. The range and its bus ports stay below Linux's ephemeral ports
    (32768-60999), where a test run's thousands of closed client connections leave ports in TIME_WAIT that a bind
    refuses: with the old range (bus ports 30000-39000) and an upward-only probe, two cluster runs started right
    after a gateway suite found no 6 free ports."""
    span = high - low - count
    start = (os.getpid() * 7) % span
    for base in (low + (start + step) % span for step in range(span)):  # from the offset round to it again
        ports = list(range(base, base + count))
        if all(_free(p) and _free(p + _BUS_OFFSET) for p in ports):
            return ports
    raise RuntimeError(f"no {count} free consecutive ports in {low}-{high}")


def wait_answers(port: int, timeout_s: float = 10.0) -> None:
    """Until a redis-server just started on `port` answers PING (its RedisError after `timeout_s`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            redis.Redis(port=port, socket_connect_timeout=0.5).ping()
            return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@dataclass
class LocalCluster:
    """A running cluster: its nodes' processes by port, stopped by `stop()` (or at the end of a `with`)."""

    primaries: int = 3
    replicas: int = 1
    binary: str = field(default_factory=lambda: shutil.which("redis-server") or "redis-server")
    directory: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="skyboard-cluster-")))
    processes: dict[int, subprocess.Popen] = field(default_factory=dict)

    @property
    def ports(self) -> list[int]:
        return sorted(self.processes)

    @property
    def url(self) -> str:
        """A URL naming one live node (a cluster client discovers the rest)."""
        return f"redis://127.0.0.1:{self.live_ports()[0]}/0"

    def live_ports(self) -> list[int]:
        return [port for port, proc in sorted(self.processes.items()) if proc.poll() is None]

    def start(self) -> LocalCluster:
        if shutil.which("redis-cli") is None:
            raise RuntimeError("redis-cli is needed to create a cluster (Debian's redis-tools)")
        for port in free_ports(self.primaries * (1 + self.replicas)):
            self.processes[port] = self._start_node(port)
        for port in self.ports:
            wait_answers(port)
        subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60,
        )
        self.wait_healthy()
        return self

    def _start_node(self, port: int) -> subprocess.Popen:
        node_dir = self.directory / str(port)
        node_dir.mkdir(parents=True, exist_ok=True)
        log = open(node_dir / "redis.log", "wb")  # noqa: SIM115 (closed with the process's end)
        return subprocess.Popen(
            [self.binary, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
             "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
             "--dir", str(node_dir), "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=die_with_parent(),
        )

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, decode_responses=True, socket_connect_timeout=1, socket_timeout=2)

    def role(self, port: int) -> str:
        return str(self.node(port).info("replication")["role"])  # "master" or "slave"

    def primary_ports(self) -> list[int]:
        return [port for port in self.live_ports() if self.role(port) == "master"]

    def wait_healthy(self, timeout_s: float = 30.0) -> None:
        """Until every live node says `cluster_state:ok`, all 16384 slots are served, there are `primaries`
        primaries (after a failover, the promoted replica counts) and every live replica is in sync."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                infos = [self.node(p).cluster("info") for p in self.live_ports()]
                if all(i["cluster_state"] == "ok" and int(i["cluster_slots_ok"]) == 16384 for i in infos) \
                        and len(self.primary_ports()) == self.primaries and self._replicas_in_sync():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster on ports {self.ports} did not become healthy in {timeout_s} s")
            time.sleep(0.1)

    def _replicas_in_sync(self) -> bool:
        """Every live replica has finished its sync with its primary: a replica that never synced refuses to
        take over ("disconnected from master for longer than allowed"), so a failover test must wait for this."""
        for port in self.live_ports():
            info = self.node(port).info("replication")
            if info["role"] == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def kill(self, port: int) -> None:
        """SIGKILL one node (a crash, not a shutdown: no last save, no goodbye to the cluster)."""
        proc = self.processes[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    def stop(self) -> None:
        for proc in self.processes.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start() if not self.processes else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str]) -> int:
    command = argv[argv.index("--") + 1:] if "--" in argv else []
    if not command:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    cluster = LocalCluster().start()
    print(f"Redis Cluster on ports {cluster.ports}: REDIS_CLUSTER=true REDIS_URL={cluster.url}", flush=True)
    try:
        if command:
            return run_command(command, {**os.environ, "REDIS_CLUSTER": "true", "REDIS_URL": cluster.url})
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
        return 0
    finally:
        cluster.stop()


def run_command(command: list[str], env: dict[str, str]) -> int:
    """CMD's exit code, once CMD has stopped: a Ctrl-C is CMD's to handle (the terminal sends it to both of us; we
    only wait, so a supervisor such as `make run`'s stops its children in order first), a SIGTERM is forwarded."""
    child = subprocess.Popen(command, env=env)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    try:
        return child.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
