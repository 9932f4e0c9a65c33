"""No orphans, and never fooled by one (a supervisor killed hard once left its children serving): children die with a
supervisor killed hard (PR_SET_PDEATHSIG), a taken gRPC or metrics port stops a service with a clear error (gRPC's
SO_REUSEPORT is off), and the health check of a child counts only when that child itself holds its ports."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer

import grpc
import pytest

from services.common.healthcheck import http_ok
from services.dev.launch import free_port, port_owner
from services.dev.stack import Child, Output, Role, StackSettings, Supervisor
from tests.deploy.conftest import ROOT, SETTINGS_MODELS
from tests.deploy.test_stack_e2e import start_stack  # noqa: F401 (the fixture)
from tests.redis_required import redis_db, require_redis
from tests.service_secret import SERVICE_SECRET

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux")

REDIS_URL = redis_db(11)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_child_dies_with_its_supervisor_killed_hard(tmp_path):
    """The supervisor's own way of starting children (die_with_parent + a new session, as Supervisor.spawn)."""
    pidfile = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import subprocess, sys, time
        from services.dev.launch import die_with_parent
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True,
                                 preexec_fn=die_with_parent())
        open({str(pidfile)!r}, "w").write(str(child.pid))
        time.sleep(600)
    """)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 20
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pidfile.read_text())
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)  # no chance to stop anything
        parent.wait(10)
        assert _gone_within(child, 5), "the child outlived its supervisor"
    finally:
        parent.kill()
        with contextlib.suppress(ProcessLookupError, ValueError, FileNotFoundError):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_port_owner_tells_the_child_from_a_stranger():
    port = free_port()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import socket, time
        s = socket.socket(); s.bind(("127.0.0.1", {port})); s.listen(); print("up", flush=True); time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "up"
        assert port_owner(holder.pid, port) == (True, {holder.pid})
        mine, _ = port_owner(os.getpid(), port)  # we started it: it is our descendant
        assert mine is True
        lone = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        try:
            assert port_owner(lone.pid, port) == (False, {holder.pid})
        finally:
            lone.kill()
            lone.wait()
    finally:
        holder.kill()
        holder.wait()
    assert port_owner(os.getpid(), port) == (False, set())


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def test_a_leftover_answering_the_health_check_does_not_pass_for_the_child(capsys):
    """The orphan seen: something else answers on the child's port; the child itself never binds it."""
    port = free_port()
    orphan = HTTPServer(("127.0.0.1", port), _Ok)
    threading.Thread(target=orphan.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{port}/readyz"
        assert http_ok(url)
        role = Role("gateway", [sys.executable, "-c", "import time; time.sleep(600)"], {}, lambda: http_ok(url),
                    ports=[port])
        supervisor = Supervisor([role], StackSettings(health_timeout_s=20, stop_grace_s=2), Output(8))
        child: Child = supervisor.children[0]
        supervisor.spawn(child)
        started = time.monotonic()
        try:
            assert supervisor.wait_healthy(child) is False
            assert time.monotonic() - started < 10, "it should say so at once, not wait for the timeout"
        finally:
            supervisor.stop_all()
        out = capsys.readouterr().out
        assert f"port {port} is held by pid {os.getpid()}, not by the gateway just started" in out
    finally:
        orphan.shutdown()
        orphan.server_close()


def _service_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_MODELS}
    env.update({"REDIS_URL": REDIS_URL, "KEY_PREFIX": "sborphan:", "SERVICE_SECRET": SERVICE_SECRET,
                "BOT_QUEUE": "sborphan-bots", "ADMIN_GRPC_ADDR": "127.0.0.1:0", "PYTHONPATH": str(ROOT)})
    env.update(extra)
    return env


def test_a_taken_grpc_port_stops_the_service_with_a_clear_error():
    """The orphan had SO_REUSEPORT on (gRPC's default); the new service has it off and must not share the port."""
    require_redis(REDIS_URL, "the game-state service")
    old = grpc.server(ThreadPoolExecutor(1))  # default options: SO_REUSEPORT on, like the orphan that was seen
    port = old.add_insecure_port("127.0.0.1:0")
    old.start()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "services.gamestate"], cwd=ROOT, capture_output=True, text=True, timeout=60,
            env=_service_env(GRPC_ADDR=f"127.0.0.1:{port}", METRICS_PORT="0"),
        )
    finally:
        old.stop(0)
    assert result.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port} (gRPC)" in result.stderr


def test_a_taken_metrics_port_stops_the_service_with_a_clear_error():
    require_redis(REDIS_URL, "the game-state service")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        metrics = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "services.gamestate"], cwd=ROOT, capture_output=True, text=True, timeout=60,
            env=_service_env(GRPC_ADDR=f"127.0.0.1:{free_port()}", METRICS_PORT=str(metrics),
                             METRICS_ADDR="127.0.0.1"),
        )
    assert result.returncode != 0
    assert f"cannot export metrics on 127.0.0.1:{metrics}" in result.stderr


@pytest.mark.slow  # the whole make-run stack (~15-25 s): make test-slow, with the stack's end-to-end tests
def test_killing_the_stack_hard_leaves_no_child_behind(start_stack):  # noqa: F811
    """As it was seen: the supervisor SIGKILLed; every child (gRPC service, worker, gateway, ...) goes with it and
    the ports are free again for the next `make run`."""
    stack = start_stack()
    assert stack.ready.wait(120), stack.output()
    pids = stack.child_pids()
    assert len(pids) >= 5 and all(_alive(p) for p in pids)
    stack.proc.send_signal(signal.SIGKILL)
    stack.proc.wait(10)
    left = [p for p in pids if not _gone_within(p, 10)]
    assert not left, f"children outlived the supervisor: {left}"
    grpc_port = int(stack.env["GRPC_ADDR"].rsplit(":", 1)[1])
    for port in (grpc_port, int(stack.env["METRICS_PORT"]), int(stack.env["GATEWAY_PORT"])):
        assert port_owner(os.getpid(), port) == (False, set()), f"port {port} still held"
