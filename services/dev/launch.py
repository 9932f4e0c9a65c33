"""Starting local processes and waiting until they serve: the one launcher that `make run`'s supervisor
(services/dev/stack.py), the benchmarks' private stacks (bench/), the kill/restart tests and the container run share.

A child is ready only when its own check says so. `die_with_parent` (PR_SET_PDEATHSIG) is for children of a
long-lived main thread only: the signal follows the thread that forked, and the benchmarks restart processes
from threads that end. A port's listener can be traced to the process tree holding it (`port_owner`), so a
leftover process answering on a port never passes for the one just started.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from services.common.healthcheck import redis_answers

ROOT = Path(__file__).resolve().parents[2]


#: Ports free_port has handed out in this process: the kernel may pick a released port again at once, and two
#: children given the same port (a gateway on the service's gRPC port, say) make a stack that cannot start.
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A TCP port nothing listens on right now (the kernel's pick) and not handed out before by this process,
    for a child to bind."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def wait_until(what: str, check: Callable[[], bool], timeout: float, every: float = 0.05,
               gone: Callable[[], str | None] | None = None) -> float:
    """Poll `check` until true; the seconds it took. RuntimeError after `timeout`, or as soon as `gone` names
    why waiting is pointless (the child exited). A check that raises counts as not yet."""
    start = time.monotonic()
    while True:
        try:
            if check():
                return time.monotonic() - start
        except Exception:  # a service still starting refuses connections in many ways
            pass
        reason = gone() if gone is not None else None
        if reason:
            raise RuntimeError(reason)
        if time.monotonic() - start > timeout:
            raise RuntimeError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(every)


# ---------------------------------------------------------------------------------------------- orphans

PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A `preexec_fn` giving the child `sig` when this process dies (PR_SET_PDEATHSIG), however it dies.
    The signal survives exec. None off Linux. If we already died between fork and prctl, the child stops."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), sig)

    return preexec


def _listening_inodes(port: int) -> set[str] | None:
    """Socket inodes in LISTEN state on TCP `port` (IPv4 and IPv6); None when /proc cannot tell."""
    inodes: set[str] = set()
    seen = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        seen = True
        for line in lines:
            cols = line.split()
            if len(cols) > 9 and cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(cols[9])
    return inodes if seen else None


def _ppids() -> dict[int, int]:
    out: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    out[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return out


def _holders(inodes: set[str], pids: Iterable[int]) -> set[int]:
    wanted = {f"socket:[{i}]" for i in inodes}
    found = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") in wanted:
                        found.add(pid)
                        break
    return found


def port_owner(pid: int, port: int) -> tuple[bool | None, set[int]]:
    """Who listens on TCP `port`: (True, holders) when `pid` or one of its descendants does, (False, holders)
    when nobody or only other processes do (holders: their pids, as far as we may see them), (None, set())
    when this machine has no /proc to tell."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None, set()
    if not inodes:
        return False, set()
    parents = _ppids()
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent and p not in tree]
        tree.update(kids)
        frontier += kids
    mine = _holders(inodes, tree)
    if mine:
        return True, mine
    return False, _holders(inodes, parents)


# ---------------------------------------------------------------------------------------------- processes


@dataclass
class Proc:
    """One role's OS process, logging to `log_dir/<name>.log`, restartable with the same command line and
    environment (a process killed with SIGKILL comes back on the same address and clients reconnect)."""

    name: str
    argv: list[str]
    env: dict[str, str]
    ready: Callable[[], bool]
    log_dir: Path
    popen: subprocess.Popen | None = None
    starts: int = 0
    cwd: Path = ROOT  # the source tree the role runs from (bench.cpu_cost compares two trees)

    def start(self, timeout: float = 60.0) -> None:
        self.starts += 1
        log = open(self.log_dir / f"{self.name}.log", "ab")  # noqa: SIM115 (kept open by the child)
        self.popen = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_until(f"{self.name} ready", self.ready, timeout, gone=self._exited)

    def _exited(self) -> str | None:
        if self.popen is not None and self.popen.poll() is not None:
            return f"{self.name} exited with {self.popen.returncode}; see {self.log_dir}"
        return None

    def kill(self) -> None:
        """SIGKILL: no graceful anything."""
        if self.popen and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)

    def stop(self) -> None:
        if self.popen and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_announcing(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[subprocess.Popen, int]:
    """Start a child that binds a port of its own choosing and prints `PORT <n>` once serving (as
    tests/services/serve_proc.py does); the process and that port. RuntimeError if its first line is not that."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        proc.wait(10)
        raise RuntimeError(f"{argv[-1]} did not start: {line!r}")
    return proc, int(line.split()[1])


class RedisServer:
    """A private redis-server with append-only persistence in its own temp dir (never the shared one), for
    runs that SIGKILL and restart Redis itself."""

    def __init__(self, port: int, fsync: str):
        self.port = port
        self.dir = Path(tempfile.mkdtemp(prefix="sbproof-redis-"))
        self.argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                     "--appendonly", "yes", "--appendfsync", fsync, "--save", "", "--protected-mode", "yes"]
        self.popen: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        self.popen = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until("the private redis-server", lambda: redis_answers(self.url, 0.5), 20, gone=self._exited)
        except RuntimeError as exc:
            raise RuntimeError(f"private redis-server did not start: {exc}") from None

    def _exited(self) -> str | None:
        return "it exited" if self.popen is not None and self.popen.poll() is not None else None

    def kill(self) -> None:
        if self.popen and self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(10)

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
