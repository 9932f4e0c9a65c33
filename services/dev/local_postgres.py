"""A throw-away PostgreSQL for a developer's machine: a temporary data directory, trust auth, gone when stopped.

Why: `make test` runs the archive's tests against a real PostgreSQL (never a fake). A machine that starts one
before the session (this project's CI) uses it as it is; a fresh one gets this: a server for the test run only, from
the PostgreSQL binaries of the dev extras' `pgserver` wheel (no root, no apt), else from the machine's own
installation. PostgreSQL refuses to run as root, so under root the server runs as the `postgres` user (or `nobody`).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Server:
    """A server this module started: its process, data directory and port."""

    proc: subprocess.Popen
    data_dir: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}"


def bin_dir() -> Path | None:
    """The directory holding initdb and postgres: the pgserver wheel's (one version wherever the venv is), else on
    the PATH, else Debian's newest /usr/lib/postgresql/N/bin."""
    if (wheel := wheel_bin_dir()) is not None:
        return wheel
    initdb = shutil.which("initdb")
    if initdb and shutil.which("postgres"):
        return Path(initdb).resolve().parent  # through a symlink to the package's own bin (with pg_isready)
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(versions[-1]).parent if versions else None


def wheel_bin_dir() -> Path | None:
    """pgserver's bundled binaries (pgserver/pginstall/bin), found without importing the package."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return found if (found / "initdb").is_file() and (found / "postgres").is_file() else None


def _run_as() -> tuple[int, int] | None:
    """(uid, gid) to run the server as when this is root (PostgreSQL refuses root), else None."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid
    raise RuntimeError("running as root and no `postgres` or `nobody` user to run PostgreSQL as")


def _demote(ids: tuple[int, int] | None, then: Callable[[], None] | None) -> Callable[[], None] | None:
    if ids is None:
        return then

    def preexec() -> None:
        if then is not None:
            then()
        os.setgid(ids[1])
        os.setuid(ids[0])

    return preexec


def answers(port: int, host: str = "127.0.0.1") -> bool:
    """True if something accepts TCP connections on host:port."""
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((host, port)) == 0


def _ready(binaries: Path, port: int) -> bool:
    """Accepting connections, not just listening ("the database system is starting up" is not ready)."""
    if not (binaries / "pg_isready").is_file():
        return True  # no client tools: listening has to do
    ready = subprocess.run([str(binaries / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return ready.returncode == 0


def start(port: int, preexec_fn: Callable[[], None] | None = None, timeout_s: float = 30) -> Server:
    """initdb a temporary directory and start a server on 127.0.0.1:`port` (user postgres, trust auth, fsync
    off: test data need not survive a crash). Raises RuntimeError if it does not come up."""
    binaries = bin_dir()
    if binaries is None:
        raise RuntimeError("no PostgreSQL binaries: install the dev extras (`make install`: the pgserver wheel), "
                           "or start a server on 127.0.0.1:5432 (trust auth for user postgres)")
    data_dir = Path(tempfile.mkdtemp(prefix="skyboard-pg-"))
    ids = _run_as()
    if ids is not None:
        os.chown(data_dir, *ids)
    demote = _demote(ids, None)
    subprocess.run([str(binaries / "initdb"), "-D", str(data_dir), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                    "--no-sync"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=demote)
    log_path = data_dir / "server.log"  # a file, not a pipe: nobody has to keep reading it
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [str(binaries / "postgres"), "-D", str(data_dir), "-p", str(port), "-k", str(data_dir),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=_demote(ids, preexec_fn),
        )
    server = Server(proc, data_dir, port)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = log_path.read_text(errors="replace")
            stop(server)
            raise RuntimeError(f"PostgreSQL exited at start: {err.strip()[-500:]}")
        if answers(port) and _ready(binaries, port):
            return server
        time.sleep(0.1)
    stop(server)
    raise RuntimeError(f"PostgreSQL did not answer on port {port} within {timeout_s:.0f} s")


def stop(server: Server) -> None:
    """Fast shutdown (SIGINT), then the data directory goes."""
    if server.proc.poll() is None:
        server.proc.send_signal(2)
        try:
            server.proc.wait(15)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait()
    shutil.rmtree(server.data_dir, ignore_errors=True)
