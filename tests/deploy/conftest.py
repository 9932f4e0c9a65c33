"""Loaders of the deployment files (compose, Kubernetes, Prometheus, Grafana) and of what the code declares."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.common.settings import Settings
from services.dev.stack import StackSettings
from services.gateway.settings import GatewaySettings
from services.ops_exporter import ExporterSettings
from services.outcomes.settings import OutcomesSettings
from services.tournament_director.settings import DirectorSettings
from services.webhooks.settings import WebhookSettings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
IMAGE = "skyboard"


def env_names(model: type, prefix: str) -> set[str]:
    return {prefix + name.upper() for name in model.model_fields}


#: Every environment variable the code reads, by the pydantic-settings models (name -> model).
SETTINGS_MODELS: dict[str, type] = {}
for _model, _prefix in ((Settings, ""), (DirectorSettings, "GATEWAY_"), (OutcomesSettings, "GATEWAY_"),
                       (WebhookSettings, "GATEWAY_"), (GatewaySettings, "GATEWAY_"),
                        (ExporterSettings, "EXPORTER_"), (StackSettings, "STACK_")):
    for _name in env_names(_model, _prefix):
        SETTINGS_MODELS[_name] = _model


def entrypoint_text() -> str:
    return (DEPLOY / "entrypoint.sh").read_text(encoding="utf-8")


def entrypoint_roles() -> dict[str, str]:
    """role -> the shell body of its case branch in deploy/entrypoint.sh."""
    text = entrypoint_text()
    body = text[text.index('case "$role" in'):text.index("esac")]
    return {m.group(1): m.group(2) for m in re.finditer(r"^  ([a-z]+)\)\n(.*?)\n    ;;", body, re.S | re.M)}


def entrypoint_env() -> set[str]:
    """Variables the entry point itself reads with a default (`${NAME:-...}`)."""
    return set(re.findall(r"\$\{([A-Z_]+):-", entrypoint_text()))


_ENV_READ = re.compile(r"""(?:environ\.get|environ\[|getenv|_float|_int|_str|_bool)\(?\s*["']([A-Z][A-Z0-9_]+)["']""")


def code_env() -> set[str]:
    """Variables read straight from os.environ by the services (outside the pydantic-settings models)."""
    names: set[str] = set()
    for path in (ROOT / "services").rglob("*.py"):
        names |= set(_ENV_READ.findall(path.read_text(encoding="utf-8")))
    return names


@pytest.fixture(scope="session")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def k8s() -> list[dict[str, Any]]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    return docs


@pytest.fixture(scope="session")
def alerts() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def prometheus() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def dashboards() -> list[dict[str, Any]]:
    paths = sorted((DEPLOY / "grafana" / "dashboards").glob("*.json"))
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def skyboard_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Compose services running our image (after the YAML anchors are merged)."""
    return {name: s for name, s in compose["services"].items() if str(s.get("image", "")).startswith(IMAGE)}


def workloads(k8s: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s if d["kind"] in ("Deployment", "StatefulSet")}


def containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    return workload["spec"]["template"]["spec"]["containers"]


def k8s_env(k8s: list[dict[str, Any]], container: dict[str, Any]) -> dict[str, str]:
    """A container's environment: its envFrom ConfigMaps, then its own env entries."""
    maps = {d["metadata"]["name"]: d.get("data", {}) for d in k8s if d["kind"] == "ConfigMap"}
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(maps[source["configMapRef"]["name"]])
    for item in container.get("env", []):
        env[item["name"]] = str(item["value"])
    return env
