"""No service runs on a default secret: compose and Kubernetes refuse to start without SERVICE_SECRET, and
`make run` generates a random one per stack."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.common.credentials import MIN_SECRET_LENGTH
from services.dev import stack
from tests.deploy.conftest import ROOT, containers, skyboard_services, workloads

#: The roles that present or check the service credential (the exporter only reads Redis).
NEEDS_SECRET = {"gamestate", "worker", "gateway", "matchmaker", "webhooks"}


def test_compose_has_no_default_secret_and_requires_one(compose: dict[str, Any]) -> None:
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert "BOT_SECRET" not in text and "change-me" not in text
    services = skyboard_services(compose)
    for name in NEEDS_SECRET:  # required with a message (${VAR:?message}), never a fallback (${VAR:-...})
        assert re.fullmatch(r"\$\{SERVICE_SECRET:\?[^}]+\}", services[name]["environment"]["SERVICE_SECRET"]), name
    for name in ("gateway", "webhooks", "gateway-cluster", "webhooks-cluster"):  # seals the webhooks' secrets
        assert re.fullmatch(r"\$\{WEBHOOK_KEY:\?[^}]+\}", services[name]["environment"]["GATEWAY_WEBHOOK_KEY"]), name


def test_kubernetes_pods_need_the_secret(k8s: list[dict[str, Any]]) -> None:
    found = set()
    for name, workload in workloads(k8s).items():
        for container in containers(workload):
            refs = [s["secretRef"] for s in container.get("envFrom", []) if "secretRef" in s]
            if container["name"] in NEEDS_SECRET:
                found.add(container["name"])
                assert refs and all(r["name"] == "skyboard-secrets" and not r.get("optional") for r in refs), name
    assert found == NEEDS_SECRET


def test_make_run_generates_a_random_secret_per_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERVICE_SECRET", raising=False)
    assert stack.ensure_service_secret() is True
    first = stack.os.environ["SERVICE_SECRET"]
    assert len(first) >= MIN_SECRET_LENGTH
    monkeypatch.delenv("SERVICE_SECRET")
    stack.ensure_service_secret()
    assert stack.os.environ["SERVICE_SECRET"] != first, "a new stack, a new secret"
    monkeypatch.setenv("SERVICE_SECRET", "x" * 40)
    assert stack.ensure_service_secret() is False and stack.os.environ["SERVICE_SECRET"] == "x" * 40


def test_make_run_generates_a_random_webhook_key_per_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GATEWAY_WEBHOOK_KEY", raising=False)
    assert stack.ensure_webhook_key() is True
    first = stack.os.environ["GATEWAY_WEBHOOK_KEY"]
    assert len(first) >= MIN_SECRET_LENGTH
    monkeypatch.delenv("GATEWAY_WEBHOOK_KEY")
    stack.ensure_webhook_key()
    assert stack.os.environ["GATEWAY_WEBHOOK_KEY"] != first, "a new stack, a new key"
    monkeypatch.setenv("GATEWAY_WEBHOOK_KEY", "y" * 40)
    assert stack.ensure_webhook_key() is False and stack.os.environ["GATEWAY_WEBHOOK_KEY"] == "y" * 40


def test_the_deliverer_refuses_to_start_without_a_usable_webhook_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No default in a production path: `python -m services.webhooks` exits naming the variable."""
    from services.webhooks.__main__ import main

    for value in (None, "short", "skyboard-dev-bot-secret-change-me"):
        if value is None:
            monkeypatch.delenv("GATEWAY_WEBHOOK_KEY", raising=False)
        else:
            monkeypatch.setenv("GATEWAY_WEBHOOK_KEY", value)
        with pytest.raises(SystemExit, match="GATEWAY_WEBHOOK_KEY"):
            main()
