"""The KEDA overlay (deploy/k8s-keda): bot workers scale on the bot queue's length and age. Its queue names,
Redis address, metric names and thresholds must be the ones the code and the base manifests use."""

from __future__ import annotations

import shutil
import subprocess
from urllib.parse import urlparse

import pytest
import yaml

from services.common.bot_policy import background_list, human_lists
from tests.deploy.conftest import DEPLOY
from tests.deploy.metrics_names import exported_metric_names

OVERLAY = DEPLOY / "k8s-keda"


def _docs(path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


@pytest.fixture(scope="module")
def scaled() -> dict:
    (doc,) = _docs(OVERLAY / "worker-scaledobject.yaml")
    assert doc["apiVersion"] == "keda.sh/v1alpha1" and doc["kind"] == "ScaledObject"
    return doc


def _config(k8s) -> dict[str, str]:
    return next(d for d in k8s if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "skyboard-env")["data"]


def test_the_scaled_object_targets_the_worker_deployment(scaled, k8s):
    target = scaled["spec"]["scaleTargetRef"]
    worker = next(d for d in k8s if d["kind"] == "Deployment" and d["metadata"]["name"] == target["name"])
    assert target["kind"] == "Deployment" and worker["metadata"]["namespace"] == scaled["metadata"]["namespace"]
    assert 1 <= scaled["spec"]["minReplicaCount"] < scaled["spec"]["maxReplicaCount"]


def test_redis_triggers_watch_every_bot_list_on_the_configured_redis(scaled, k8s):
    """Both human-waiting lists (follow-ups, first decisions) and the bot-only games' list."""
    config = _config(k8s)
    url = urlparse(config["REDIS_URL"])
    redis = [t["metadata"] for t in scaled["spec"]["triggers"] if t["type"] == "redis"]
    queue = config["BOT_QUEUE"]
    assert sorted(m["listName"] for m in redis) == sorted([*human_lists(queue), background_list(queue)])
    for m in redis:
        assert m["address"] == f"{url.hostname}:{url.port}"
        assert m["databaseIndex"] == (url.path.strip("/") or "0")
        assert int(m["listLength"]) >= 1


def test_the_age_trigger_reads_an_exported_metric_before_budgets_shrink(scaled, k8s):
    config = _config(k8s)
    (age,) = [t["metadata"] for t in scaled["spec"]["triggers"] if t["type"] == "prometheus"]
    assert "skyboard_bot_queue_oldest_seconds" in age["query"]
    assert "skyboard_bot_queue_oldest_seconds" in exported_metric_names()
    assert 0 < float(age["threshold"]) < float(config["BOT_DEGRADE_AFTER_S"])  # scale out before degrading
    service = next(d for d in k8s if d["kind"] == "Service" and d["metadata"]["name"] == "prometheus")
    port = service["spec"]["ports"][0]["port"]
    assert age["serverAddress"] == f"http://prometheus:{port}"


def test_the_overlay_replaces_the_cpu_autoscaler(scaled):
    kustomization = yaml.safe_load((OVERLAY / "kustomization.yaml").read_text(encoding="utf-8"))
    own = {p.name for p in OVERLAY.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == {"../k8s", *own}, "the base and every manifest of the overlay"
    (patch,) = kustomization["patches"]
    assert patch["target"] == {"kind": "HorizontalPodAutoscaler", "name": "worker"}
    assert "$patch: delete" in patch["patch"]


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH; the YAML checks above still run")
def test_kubectl_kustomize_builds_the_overlay():
    built = subprocess.run(["kubectl", "kustomize", str(OVERLAY)], capture_output=True, text=True, timeout=60,
                           check=True).stdout
    docs = [d for d in yaml.safe_load_all(built) if d]
    hpas = {d["metadata"]["name"] for d in docs if d["kind"] == "HorizontalPodAutoscaler"}
    assert hpas == {"gateway", "gamestate"}
    assert [d["metadata"]["name"] for d in docs if d["kind"] == "ScaledObject"] == ["worker"]
