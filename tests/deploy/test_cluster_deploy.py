"""Redis Cluster deployments (docker-compose.yml gets a cluster profile and deploy/k8s a cluster StatefulSet,
validated): the compose `cluster` profile and the deploy/k8s-cluster overlay name six nodes made 3
primaries and 3 replicas, point every service at the cluster with REDIS_CLUSTER=true and keep Celery's broker on a
standalone Redis; their variables build valid settings. The base checks of test_config.py (health checks, restart
policies, roles, every variable a setting) cover the profile's services too."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from services.common.settings import Settings
from services.gateway.settings import GatewaySettings
from tests.deploy.conftest import DEPLOY, SETTINGS_MODELS, containers, k8s_env, skyboard_services, workloads

OVERLAY = DEPLOY / "k8s-cluster"


def _settings(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[Settings, GatewaySettings]:
    for name in SETTINGS_MODELS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        if name in SETTINGS_MODELS and not value.startswith("${"):
            monkeypatch.setenv(name, value)
    return Settings(), GatewaySettings()


# ---------------------------------------------------------------------------------------------- compose


def test_the_compose_cluster_profile_makes_six_nodes_one_cluster(compose):
    services = compose["services"]
    nodes = {n: s for n, s in services.items() if re.fullmatch(r"redis-cluster-\d", n)}
    assert len(nodes) == 6 and all(s["profiles"] == ["cluster"] for s in nodes.values())
    assert all("--cluster-enabled" in s["command"] for s in nodes.values())
    addresses = sorted(s["networks"]["default"]["ipv4_address"] for s in nodes.values())
    assert len(set(addresses)) == 6
    create = services["redis-cluster-create"]
    script = create["command"][0]
    assert sorted(re.findall(r"(\d+\.\d+\.\d+\.\d+):6379", script.split("--cluster create", 1)[1])) == addresses
    assert "--cluster-replicas 1" in script and set(create["depends_on"]) == set(nodes)
    assert create["restart"] == "on-failure", "a one-shot: done once it succeeded"


def test_the_compose_cluster_services_use_the_cluster_and_a_broker_apart(compose, monkeypatch):
    services = compose["services"]
    ours = {n: s for n, s in skyboard_services(compose).items() if n.endswith("-cluster")}
    assert {s["command"][0] for s in ours.values()} == {"gamestate", "worker", "gateway", "matchmaker", "outcomes",
                                                        "webhooks", "tournaments"}
    nodes = {s["networks"]["default"]["ipv4_address"] for n, s in services.items()
             if re.fullmatch(r"redis-cluster-\d", n)}
    for name, service in ours.items():
        assert service["profiles"] == ["cluster"], name
        assert service["depends_on"]["redis-cluster-create"]["condition"] == "service_completed_successfully"
        env = {k: str(v) for k, v in service["environment"].items()}
        s, gw = _settings(env, monkeypatch)
        if service["command"][0] in ("gamestate", "worker"):
            assert s.redis_cluster and urlparse(s.redis_url).hostname in nodes, name
            assert urlparse(s.broker_url).hostname == "redis-broker", f"{name}: Celery on its own Redis"
            assert "profiles" in services["redis-broker"] and "--cluster-enabled" not in services["redis-broker"][
                "command"]
        else:
            assert gw.redis_cluster and urlparse(gw.redis_url).hostname in nodes, name
            assert gw.gamestate_addr == "dns:///gamestate-cluster:50052"
    # the default stack is untouched: no profile, the Sentinel-managed Redis, no cluster flag
    for name in ("gamestate", "worker", "gateway", "matchmaker", "outcomes", "webhooks"):
        assert "profiles" not in services[name]
        s, gw = _settings({k: str(v) for k, v in services[name]["environment"].items()}, monkeypatch)
        assert not s.redis_cluster and not gw.redis_cluster


def test_a_cluster_without_a_broker_url_is_refused_at_start_up(monkeypatch):
    """Celery cannot use a cluster as its broker: REDIS_CLUSTER=true with no CELERY_BROKER_URL is a settings error,
    not a worker that fails on its first task."""
    with pytest.raises(ValueError, match="CELERY_BROKER_URL"):
        _settings({"REDIS_CLUSTER": "true", "REDIS_URL": "redis://10.0.0.1:6379/0"}, monkeypatch)
    s, _ = _settings({"REDIS_CLUSTER": "true", "CELERY_BROKER_URL": "redis://b:6379/0"}, monkeypatch)
    assert s.broker_url == "redis://b:6379/0"
    s, _ = _settings({}, monkeypatch)
    assert not s.redis_cluster and s.broker_url == s.redis_url, "standalone (make run): the broker is REDIS_URL"


# ---------------------------------------------------------------------------------------------- kubernetes


def _docs(path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


@pytest.fixture(scope="module")
def overlay() -> list[dict[str, Any]]:
    return _docs(OVERLAY / "redis-cluster.yaml")


def test_the_k8s_cluster_statefulset_headless_service_and_create_job(overlay):
    by = {(d["kind"], d["metadata"]["name"]): d for d in overlay}
    sts = by[("StatefulSet", "redis-cluster")]
    headless = by[("Service", sts["spec"]["serviceName"])]
    assert sts["spec"]["replicas"] == 6 and headless["spec"]["clusterIP"] == "None"
    assert {p["port"] for p in headless["spec"]["ports"]} == {6379, 16379}, "the cluster bus too"
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert headless["spec"]["selector"] == labels == by[("Service", "redis-cluster")]["spec"]["selector"]
    config = by[("ConfigMap", "redis-cluster-config")]["data"]
    assert "cluster-enabled yes" in config["redis.conf"] and "appendonly yes" in config["redis.conf"]
    (node,) = containers(sts)
    assert "--cluster-announce-hostname" in node["command"][-1]
    assert f".{headless['metadata']['name']}." in node["command"][-1]
    job = by[("Job", "redis-cluster-create")]
    (create,) = job["spec"]["template"]["spec"]["containers"]
    assert create["command"] == ["sh", "/config/create.sh"]
    assert "--cluster-replicas 1" in config["create.sh"] and "for i in 0 1 2 3 4 5" in config["create.sh"]
    assert f"{headless['metadata']['name']}." in config["create.sh"]
    for c in (node, create):
        assert {"cpu", "memory"} <= c["resources"]["requests"].keys() <= c["resources"]["limits"].keys()
    assert "readinessProbe" in node and "livenessProbe" in node


def test_the_k8s_overlay_points_every_role_at_the_cluster_and_keeps_the_broker_apart(k8s, overlay, monkeypatch):
    kustomization = yaml.safe_load((OVERLAY / "kustomization.yaml").read_text(encoding="utf-8"))
    assert kustomization["resources"] == ["../k8s", "redis-cluster.yaml"]
    (patch,) = kustomization["patches"]
    assert patch["target"] == {"kind": "ConfigMap", "name": "skyboard-env"}
    data = yaml.safe_load(patch["patch"])["data"]
    patched = [yaml.safe_load(yaml.safe_dump(d)) for d in k8s]
    for d in patched:
        if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "skyboard-env":
            d["data"].update(data)
    services = {d["metadata"]["name"] for d in patched + overlay if d["kind"] == "Service"}
    for name, workload in workloads(patched).items():
        for c in containers(workload):
            if not c["image"].startswith("skyboard"):
                continue
            s, gw = _settings(k8s_env(patched, c), monkeypatch)
            assert s.redis_cluster and gw.redis_cluster, name
            assert urlparse(s.redis_url).hostname == urlparse(gw.redis_url).hostname == "redis-cluster"
            broker = urlparse(s.broker_url).hostname
            assert broker in services and broker != "redis-cluster", f"{name}: Celery on its own Redis"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH; the YAML checks above still run")
def test_kubectl_kustomize_builds_the_cluster_overlay():
    built = subprocess.run(["kubectl", "kustomize", str(OVERLAY)], capture_output=True, text=True, timeout=60,
                           check=True).stdout
    docs = [d for d in yaml.safe_load_all(built) if d]
    sets = {d["metadata"]["name"]: d["spec"]["replicas"] for d in docs if d["kind"] == "StatefulSet"}
    assert sets["redis-cluster"] == 6 and "redis" in sets, "the Sentinel-managed Redis stays, as the broker"
    env = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "skyboard-env")["data"]
    assert env["REDIS_CLUSTER"] == env["GATEWAY_REDIS_CLUSTER"] == "true"
    assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"
