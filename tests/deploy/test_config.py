"""The deployment files agree with the code: commands exist, ports and variables match the settings,
every metric a dashboard or alert names is exported, and the layout the issue asks for is there."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import redis
import yaml

from services.common.settings import Settings
from services.gateway.settings import GatewaySettings
from services.ops_exporter import ExporterSettings
from services.outcomes.settings import OutcomesSettings
from services.tournament_director.settings import DirectorSettings
from services.workers import WORKER_APP
from tests.deploy.conftest import (
    DEPLOY,
    ROOT,
    SETTINGS_MODELS,
    code_env,
    containers,
    entrypoint_env,
    entrypoint_roles,
    k8s_env,
    skyboard_services,
    workloads,
)
from tests.deploy.metrics_names import exported_metric_names

ROLES = {"gamestate", "gateway", "matchmaker", "worker", "exporter", "outcomes", "webhooks", "tournaments"}
# configured by GATEWAY_* (services/gateway/settings.py)
GATEWAY_ROLES = {"gateway", "matchmaker", "outcomes", "webhooks", "tournaments"}
# set by the entry point for the process it starts, not a setting
RUNTIME_ENV = {"PROMETHEUS_MULTIPROC_DIR"}


def _port(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1])


def _settings_for(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[Settings, GatewaySettings,
                                                                                   ExporterSettings]:
    """Every settings model as a process with exactly `env` would build it (validates the values too)."""
    for name in SETTINGS_MODELS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings(), GatewaySettings(), ExporterSettings()


# ---------------------------------------------------------------------------------------------- commands


def test_every_entrypoint_role_runs_a_real_module():
    roles = entrypoint_roles()
    assert roles.keys() >= ROLES
    for role in ROLES:
        body = roles[role]
        modules = re.findall(r"python -m ([\w.]+)", body)
        assert modules, f"role {role} runs no python module"
        for module in modules:
            assert importlib.util.find_spec(module) is not None, f"role {role}: no module {module}"
            if module == "celery":
                app_ref = re.search(r"-A ([\w.:]+)", body).group(1)
                assert app_ref == WORKER_APP, "the container and `make run` must run the same Celery app"


def test_the_worker_app_registers_the_bot_task():
    module, _, attr = WORKER_APP.partition(":")
    app = getattr(importlib.import_module(module), attr)
    assert "skyboard.bot_move" in app.tasks


def test_compose_and_k8s_run_only_entrypoint_roles(compose, k8s):
    roles = entrypoint_roles()
    for name, service in skyboard_services(compose).items():
        assert service["command"][0] in roles, f"compose service {name}"
        for check in (service["healthcheck"]["test"],):
            if check[:3] == ["CMD", "entrypoint.sh", "healthcheck"]:
                assert check[3] in {"grpc", "http", "celery", "redis"}
    seen = set()
    for name, workload in workloads(k8s).items():
        for c in containers(workload):
            if c["image"].startswith("skyboard"):
                assert c["args"][0] in roles, f"k8s {name}"
                seen.add(c["args"][0])
    assert seen == ROLES
    assert {s["command"][0] for s in skyboard_services(compose).values()} == ROLES


# ---------------------------------------------------------------------------------------------- environment


def _known(name: str) -> bool:
    return name in SETTINGS_MODELS or name in entrypoint_env() or name in RUNTIME_ENV or name in code_env()


def test_every_compose_variable_is_a_setting(compose, monkeypatch):
    for name, service in skyboard_services(compose).items():
        env = {k: str(v) for k, v in service["environment"].items()}
        unknown = sorted(k for k in env if not _known(k))
        assert not unknown, f"compose {name}: {unknown} are read by nothing"
        _settings_for({k: v for k, v in env.items() if k in SETTINGS_MODELS and not v.startswith("${")},
                      monkeypatch)


def test_every_k8s_variable_is_a_setting(k8s, monkeypatch):
    for name, workload in workloads(k8s).items():
        for c in containers(workload):
            if not c["image"].startswith("skyboard"):
                continue
            env = k8s_env(k8s, c)
            unknown = sorted(k for k in env if not _known(k))
            assert not unknown, f"k8s {name}: {unknown} are read by nothing"
            _settings_for({k: v for k, v in env.items() if k in SETTINGS_MODELS}, monkeypatch)


# ---------------------------------------------------------------------------------------------- ports


def _compose_env(compose, service: str) -> dict[str, str]:
    return {k: str(v) for k, v in compose["services"][service]["environment"].items()}


def test_compose_ports_match_the_settings(compose, prometheus, monkeypatch):
    s, _, _ = _settings_for(_compose_env(compose, "gamestate"), monkeypatch)
    gamestate_grpc, gamestate_metrics = _port(s.grpc_addr), s.metrics_port
    assert compose["services"]["gamestate"]["healthcheck"]["test"][-1].endswith(f":{gamestate_grpc}")
    _, gw, _ = _settings_for(_compose_env(compose, "gateway"), monkeypatch)
    assert gw.host == "0.0.0.0"
    # the REST port and the gRPC listener (TournamentService) are published, nothing else
    assert compose["services"]["gateway"]["ports"] == [f"{gw.port}:{gw.port}", f"{gw.grpc_port}:{gw.grpc_port}"]
    assert gw.grpc_host == "0.0.0.0" and gw.grpc_port not in (gw.port, gw.metrics_port, 0)
    assert f":{gw.port}/readyz" in compose["services"]["gateway"]["healthcheck"]["test"][-1]
    # every replica's internal listener (GameAdmin), round-robin per call; neither gRPC port is published
    assert gw.gamestate_addr == f"dns:///gamestate:{_port(s.admin_grpc_addr)}" != f"dns:///gamestate:{gamestate_grpc}"
    assert s.admin_grpc_addr.startswith("0.0.0.0:") and "ports" not in compose["services"]["gamestate"]
    worker = _compose_env(compose, "worker")
    assert worker["GAMESTATE_TARGET"] == f"dns:///gamestate:{_port(s.admin_grpc_addr)}"
    _, _, ex = _settings_for(_compose_env(compose, "exporter"), monkeypatch)
    assert f":{ex.port}/metrics" in compose["services"]["exporter"]["healthcheck"]["test"][-1]
    for service in ("gamestate", "worker", "gateway", "matchmaker", "outcomes", "webhooks", "exporter"):
        s, gw, _ = _settings_for(_compose_env(compose, service), monkeypatch)
        url = gw.redis_url if service in GATEWAY_ROLES else s.redis_url
        assert urlparse(url).hostname == "redis" and urlparse(url).port == 6379, service
    jobs = {j["job_name"]: j for j in prometheus["scrape_configs"]}
    assert jobs["gamestate"]["dns_sd_configs"][0] == {
        "names": ["gamestate"], "type": "A", "port": gamestate_metrics, "refresh_interval": "15s"}
    _, gw, _ = _settings_for(_compose_env(compose, "gateway"), monkeypatch)
    assert jobs["gateway"]["static_configs"][0]["targets"] == [f"gateway:{gw.metrics_port}"]
    assert gw.metrics_port != gw.port and gw.metrics_host == "0.0.0.0", "metrics stay off the public port"
    assert all(str(gw.metrics_port) not in p for p in compose["services"]["gateway"]["ports"]), "never published"
    assert jobs["exporter"]["static_configs"][0]["targets"] == [f"exporter:{ex.port}"]
    worker_port = int(_compose_env(compose, "worker")["WORKER_METRICS_PORT"])
    assert jobs["worker"]["dns_sd_configs"][0]["port"] == worker_port


def _outcomes_reads_the_outbox(env: dict[str, str], gamestate_env: dict[str, str],
                               monkeypatch: pytest.MonkeyPatch) -> OutcomesSettings:
    """The outcomes consumer's settings from `env`, after checking that it reads the outbox where the game-state
    service writes it (the service's Redis and key prefix: a mismatch would leave every outcome undone)."""
    s, _, _ = _settings_for({k: v for k, v in gamestate_env.items() if not v.startswith("${")}, monkeypatch)
    _settings_for({k: v for k, v in env.items() if k in SETTINGS_MODELS and not v.startswith("${")}, monkeypatch)
    outcomes = OutcomesSettings()
    assert (outcomes.gamestate_redis_url or outcomes.redis_url, outcomes.gamestate_key_prefix) == \
        (s.redis_url, s.key_prefix)
    assert outcomes.redis_cluster == s.redis_cluster
    return outcomes


def test_the_outcomes_consumer_reads_the_outbox_the_service_writes(compose, k8s, prometheus, monkeypatch):
    outcomes = _outcomes_reads_the_outbox(_compose_env(compose, "outcomes"), _compose_env(compose, "gamestate"),
                                          monkeypatch)
    jobs = {j["job_name"]: j for j in prometheus["scrape_configs"]}
    assert jobs["outcomes"]["dns_sd_configs"][0]["port"] == outcomes.outcomes_metrics_port
    _outcomes_reads_the_outbox(_compose_env(compose, "outcomes-cluster"),
                               _compose_env(compose, "gamestate-cluster"), monkeypatch)
    w = workloads(k8s)
    (oc,) = containers(w["outcomes"])
    outcomes = _outcomes_reads_the_outbox(k8s_env(k8s, oc), k8s_env(k8s, containers(w["gamestate"])[0]),
                                          monkeypatch)
    assert _container_port(oc, "metrics") == outcomes.outcomes_metrics_port
    assert int(w["outcomes"]["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"]) == \
        outcomes.outcomes_metrics_port


def test_the_tournament_director_exports_where_prometheus_scrapes(compose, k8s, prometheus, monkeypatch):
    """The director's metrics port (its own, not the outcomes consumer's it inherits) is the one its compose
    services, its pods and the scrape jobs name; it reads the outbox the game-state service writes."""
    jobs = {j["job_name"]: j for j in prometheus["scrape_configs"]}
    for service, gamestate in (("tournaments", "gamestate"), ("tournaments-cluster", "gamestate-cluster")):
        _outcomes_reads_the_outbox(_compose_env(compose, service), _compose_env(compose, gamestate), monkeypatch)
        director = DirectorSettings()
        assert director.tournaments_metrics_port != director.outcomes_metrics_port
        assert jobs["tournaments"]["dns_sd_configs"][0] == {
            "names": ["tournaments"], "type": "A", "port": director.tournaments_metrics_port,
            "refresh_interval": "15s"}
    w = workloads(k8s)
    (tc,) = containers(w["tournaments"])
    _outcomes_reads_the_outbox(k8s_env(k8s, tc), k8s_env(k8s, containers(w["gamestate"])[0]), monkeypatch)
    director = DirectorSettings()
    assert _container_port(tc, "metrics") == director.tournaments_metrics_port
    annotations = w["tournaments"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == director.tournaments_metrics_port


def _container_port(c: dict[str, Any], name: str) -> int:
    return next(p["containerPort"] for p in c["ports"] if p["name"] == name)


def test_k8s_ports_match_the_settings(k8s, monkeypatch):
    w = workloads(k8s)
    services = {d["metadata"]["name"]: d for d in k8s if d["kind"] == "Service"}

    (gs,) = containers(w["gamestate"])
    s, _, _ = _settings_for(k8s_env(k8s, gs), monkeypatch)
    assert _container_port(gs, "grpc") == _port(s.grpc_addr) == gs["readinessProbe"]["grpc"]["port"]
    assert _container_port(gs, "metrics") == s.metrics_port and s.metrics_addr == "0.0.0.0"
    annotations = w["gamestate"]["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == s.metrics_port

    (gwc,) = containers(w["gateway"])
    _, gw, _ = _settings_for(k8s_env(k8s, gwc), monkeypatch)
    assert _container_port(gwc, "http") == gw.port and gw.host == "0.0.0.0"
    assert _container_port(gwc, "grpc") == gw.grpc_port not in (gw.port, 0) and gw.grpc_host == "0.0.0.0"
    assert {p["port"] for p in services["gateway"]["spec"]["ports"]} == {gw.port, gw.grpc_port}
    assert int(w["gateway"]["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"]) == gw.metrics_port
    assert _container_port(gwc, "metrics") == gw.metrics_port != gw.port and gw.metrics_host == "0.0.0.0"
    # the gateway reaches every game-state pod's internal listener (GameAdmin) through the headless Service,
    # round-robin per call; only the platform's own pods may (the NetworkPolicy)
    assert _container_port(gs, "internal") == _port(s.admin_grpc_addr) != _port(s.grpc_addr)
    assert gw.gamestate_addr == f"dns:///gamestate-headless:{_port(s.admin_grpc_addr)}"
    headless = services["gamestate-headless"]["spec"]
    assert headless["clusterIP"] == "None"
    assert {p["port"] for p in headless["ports"]} == {_port(s.grpc_addr), _port(s.admin_grpc_addr), s.metrics_port}
    (policy,) = [d for d in k8s if d["kind"] == "NetworkPolicy" and d["metadata"]["name"] == "gamestate-internal"]
    rules = {tuple(p["port"] for p in r["ports"]): r.get("from") for r in policy["spec"]["ingress"]}
    assert rules[("internal",)] and ("internal",) not in [p for p in rules if rules[p] is None]
    allowed = {v for e in rules[("internal",)][0]["podSelector"]["matchExpressions"]
               if e["key"] == "app.kubernetes.io/component" for v in e["values"]}
    assert allowed == {"gateway", "matchmaker", "worker"}

    (ex,) = containers(w["exporter"])
    _, _, es = _settings_for(k8s_env(k8s, ex), monkeypatch)
    assert _container_port(ex, "metrics") == es.port
    assert int(w["exporter"]["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"]) == es.port

    (wk,) = containers(w["worker"])
    port = int(k8s_env(k8s, wk)["WORKER_METRICS_PORT"])
    assert _container_port(wk, "metrics") == port
    assert int(w["worker"]["spec"]["template"]["metadata"]["annotations"]["prometheus.io/port"]) == port

    for name in ("gamestate", "gateway", "worker", "matchmaker", "outcomes", "exporter"):
        for c in containers(w[name]):
            s, gw, _ = _settings_for(k8s_env(k8s, c), monkeypatch)
            url = gw.redis_url if name in GATEWAY_ROLES else s.redis_url
            assert urlparse(url).hostname == "redis", name
    assert services["redis"]["spec"]["ports"][0]["port"] == 6379


# ---------------------------------------------------------------------------------------------- layout


def test_compose_services_have_health_checks_restart_policies_and_agree_on_redis_addresses(compose):
    """Invariants a manifest edit can break: every service is probed and restarted; the Redis nodes, the
    Sentinels and HAProxy name the same fixed addresses (docker-compose.yml and deploy/redis/ must agree)."""
    services = compose["services"]
    for name, service in services.items():
        assert "healthcheck" in service and service["healthcheck"]["test"], f"{name} has no health check"
        assert service.get("restart") in ("unless-stopped", "always", "on-failure"), f"{name} has no restart policy"
    address = {name: services[name]["networks"]["default"]["ipv4_address"]
               for name in ("redis-0", "redis-1", "sentinel-1", "sentinel-2", "sentinel-3")}
    for name, service in services.items():
        if name in address:
            assert service["command"][-1] == address[name], name
            assert service["environment"]["REDIS_FIRST_MASTER"] == address["redis-0"]
            assert service["environment"]["SENTINELS"].split() == [address[f"sentinel-{i}"] for i in (1, 2, 3)]
    haproxy = (DEPLOY / "redis" / "haproxy.cfg").read_text(encoding="utf-8")
    servers = {f"server {n} {address[n]}:6379" for n in ("redis-0", "redis-1")}
    assert servers <= {x.strip() for x in haproxy.splitlines()}


def test_k8s_containers_have_resources_and_probes_and_kustomize_lists_every_manifest(k8s):
    w = workloads(k8s)
    for role in ("gamestate", "gateway", "worker", "matchmaker", "outcomes", "exporter", "redis", "redis-haproxy",
                 "prometheus"):
        assert role in w, f"no workload {role}"
        for c in containers(w[role]):
            res = c["resources"]
            assert {"cpu", "memory"} <= res["requests"].keys() and {"cpu", "memory"} <= res["limits"].keys()
            assert "livenessProbe" in c or "readinessProbe" in c, f"{role}/{c['name']} has no probe"
    kustomization = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text(encoding="utf-8"))
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in (DEPLOY / "k8s").glob("*.yaml")} - {"kustomization.yaml"}


def test_k8s_prometheus_alerts_are_the_same_file(k8s):
    cm = next(d for d in k8s if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "prometheus-config")
    assert cm["data"]["alerts.yml"] == (DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8")
    config = yaml.safe_load(cm["data"]["prometheus.yml"])
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]


# ---------------------------------------------------------------------------------------------- metrics


def _promql(alerts, dashboards) -> list[tuple[str, str]]:
    out = [(r["alert"], r["expr"]) for g in alerts["groups"] for r in g["rules"]]
    for dash in dashboards:
        for panel in dash["panels"]:
            out += [(f"{dash['title']} / {panel['title']}", t["expr"]) for t in panel.get("targets", [])]
    return out


def test_every_metric_named_by_a_dashboard_or_alert_is_exported(alerts, dashboards):
    exported = exported_metric_names()
    for where, expr in _promql(alerts, dashboards):
        for name in re.findall(r"\b(skyboard_[a-z0-9_]+)", expr):
            assert name in exported, f"{where}: {name} is exported by no process"


def test_dashboards_use_the_provisioned_datasource_and_the_mounted_path(dashboards, compose):
    provisioned = yaml.safe_load(
        (DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text(encoding="utf-8"))
    uid = provisioned["datasources"][0]["uid"]
    for dash in dashboards:
        for panel in dash["panels"]:
            assert panel["datasource"]["uid"] == uid
            for target in panel.get("targets", []):
                assert target["datasource"]["uid"] == uid
    provider = yaml.safe_load(
        (DEPLOY / "grafana" / "provisioning" / "dashboards" / "skyboard.yml").read_text(encoding="utf-8"))
    path = provider["providers"][0]["options"]["path"]
    mounts = [v.split(":")[1] for v in compose["services"]["grafana"]["volumes"]]
    assert path in mounts, "Grafana reads its dashboards from a directory compose does not mount"


# ---------------------------------------------------------------------------------------------- docker


def _docker_compose() -> list[str] | None:
    """`docker compose` (v2 plugin) when it works, else a standalone `docker-compose`, else None."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=30)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


def test_docker_compose_config_accepts_the_file(compose):
    command = _docker_compose()
    if command is None:
        pytest.skip("neither `docker compose` nor `docker-compose` works on this machine; "
                    "the YAML checks above still cover the file")
    path = str(ROOT / "docker-compose.yml")
    # the file requires its secrets (no defaults): give it throwaway ones
    env = {**os.environ, "SERVICE_SECRET": "s" * 40, "POSTGRES_PASSWORD": "p" * 24, "GRAFANA_ADMIN_PASSWORD": "g" * 16}
    result = subprocess.run([*command, "-f", path, "config", "--quiet"], capture_output=True, text=True,
                            timeout=60, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    # every profile's services (the `cluster` profile: docs/platform/redis-cluster.md)
    listed = subprocess.run([*command, "-f", path, "--profile", "cluster", "config", "--services"],
                            capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)
    assert sorted(listed.stdout.split()) == sorted(compose["services"])


def test_containers_bind_their_metrics_where_prometheus_can_reach_them():
    """Inside a container 127.0.0.1 is unreachable from Prometheus: every exporting role binds 0.0.0.0."""
    roles = entrypoint_roles()
    for role, variable in (("gamestate", "METRICS_ADDR"), ("worker", "METRICS_ADDR"), ("gateway", "GATEWAY_HOST"),
                           ("gateway", "GATEWAY_METRICS_HOST"), ("exporter", "EXPORTER_HOST")):
        assert f'{variable}="${{{variable}:-0.0.0.0}}"' in roles[role], role
    assert "METRICS_ADDR" in SETTINGS_MODELS


def _entrypoint(*args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    return subprocess.run(["sh", str(DEPLOY / "entrypoint.sh"), *args], capture_output=True, text=True,
                          timeout=60, env=env, cwd=ROOT)


def test_entrypoint_is_valid_shell_and_its_healthcheck_role_works():
    assert subprocess.run(["sh", "-n", str(DEPLOY / "entrypoint.sh")], capture_output=True).returncode == 0
    assert _entrypoint("nonsense").returncode == 2
    down = _entrypoint("healthcheck", "http", "http://127.0.0.1:9/readyz")
    assert down.returncode == 1 and "NOT healthy" in down.stdout
    assert _entrypoint("healthcheck", "grpc", "127.0.0.1:9").returncode == 1
    try:
        up = redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_connect_timeout=1).ping()
    except redis.RedisError:
        up = False
    assert _entrypoint("healthcheck", "redis", "redis://127.0.0.1:6379/0").returncode == (0 if up else 1)


def test_dockerfile_runs_as_non_root_and_builds_what_the_roles_import():
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    build, runtime = text.split("AS runtime")
    user = re.findall(r"^USER (\S+)$", runtime, re.M)
    assert user and user[-1] not in ("root", "0"), "the image must not run as root"
    assert "grpc_tools.protoc" in build  # stubs are never committed: the image generates them
    # every package a role imports is in the image (bench, the research tools and tests are not: no role imports
    # them, tests/test_research_layout.py)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]} - {
        "bench", "research"}
    for package in packages:
        assert re.search(rf"^COPY {package} {package}$", build, re.M), package
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", ".git", "**/*_pb2.py"} <= set(ignored)
    # the image compiles the search's hot modules itself, never taking the host's build (another Python)
    assert "python ai/native.py build" in build and {"*.so", "**/*.so"} <= set(ignored)


@pytest.fixture
def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        if os.environ.get("CI") == "true":  # `make test` installs it (the promtool target): CI never skips this
            pytest.fail("no promtool on the PATH (Debian package `prometheus`; `make promtool` installs it)")
        pytest.skip("no promtool on the PATH (Debian package `prometheus`; `make promtool`); PromQL syntax not checked")
    return path


def test_promtool_accepts_the_compose_config_and_the_alert_rules(promtool, tmp_path):
    (tmp_path / "alerts.yml").write_text((DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))
    config = (DEPLOY / "prometheus" / "prometheus.yml").read_text(encoding="utf-8")
    assert "/etc/prometheus/alerts.yml" in config
    (tmp_path / "prometheus.yml").write_text(config.replace("/etc/prometheus/alerts.yml", "alerts.yml"))
    result = subprocess.run([promtool, "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    groups = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))["groups"]
    rules = [r for g in groups for r in g["rules"]]
    assert f"SUCCESS: {len(rules)} rules found" in result.stdout


def test_promtool_fires_the_archive_quarantine_alert_only_while_games_are_set_aside(promtool, tmp_path):
    """promtool's rule unit test over the real alerts.yml: two game-state instances report the games the archive set
    aside; the alert fires once one is held for a minute, names how many, and clears once they are retried."""
    (tmp_path / "alerts.yml").write_text((DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))
    rule = next(r for g in yaml.safe_load((tmp_path / "alerts.yml").read_text())["groups"] for r in g["rules"]
                if r["alert"] == "SkyboardArchiveQuarantine")
    fired = [{"exp_labels": {"severity": "warning"},
              "exp_annotations": {k: v.replace("{{ $value }}", "2") for k, v in rule["annotations"].items()}}]
    test = {
        "rule_files": ["alerts.yml"],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [
                {"series": 'skyboard_archive_quarantined_games{instance="a"}', "values": "0 0 2 2 2 2 0 0"},
                {"series": 'skyboard_archive_quarantined_games{instance="b"}', "values": "0 0 0 2 2 2 0 0"},
            ],
            "alert_rule_test": [
                {"eval_time": "1m", "alertname": "SkyboardArchiveQuarantine", "exp_alerts": []},
                {"eval_time": "2m", "alertname": "SkyboardArchiveQuarantine", "exp_alerts": []},  # pending
                {"eval_time": "4m", "alertname": "SkyboardArchiveQuarantine", "exp_alerts": fired},
                {"eval_time": "7m", "alertname": "SkyboardArchiveQuarantine", "exp_alerts": []},
            ],
        }],
    }
    (tmp_path / "alerts_test.yml").write_text(yaml.safe_dump(test))
    result = subprocess.run([promtool, "test", "rules", "alerts_test.yml"], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout + result.stderr


def _alert_test(promtool: str, tmp_path: Path, series: list[dict[str, str]], checks: list[dict[str, Any]]) -> None:
    """promtool's rule unit test of the real alerts.yml with `series` (one a minute) and `checks`."""
    (tmp_path / "alerts.yml").write_text((DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))
    test = {"rule_files": ["alerts.yml"], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": checks}]}
    (tmp_path / "alerts_test.yml").write_text(yaml.safe_dump(test))
    result = subprocess.run([promtool, "test", "rules", "alerts_test.yml"], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout + result.stderr


def _stalled(at: str, fired: bool) -> dict[str, Any]:
    rule = next(r for g in yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))[
        "groups"] for r in g["rules"] if r["alert"] == "SkyboardTournamentDirectorStalled")
    return {"eval_time": at, "alertname": "SkyboardTournamentDirectorStalled",
            "exp_alerts": [{"exp_labels": {"severity": "critical"},
                            "exp_annotations": rule["annotations"]}] if fired else []}


def test_promtool_fires_the_director_stalled_alert_when_game_ends_wait(promtool, tmp_path):
    """Two directors report the same lag of their group: the oldest game end not done is over a minute old from
    minute 4 and done at minute 12; the alert fires after 5 minutes of it (minute 9 on) and clears."""
    age = "0 0 0 " + " ".join(str(60 * i) for i in range(1, 10)) + " 0 0 0"
    last_pass = " ".join(str(60 * i) for i in range(15))                      # both still pass each minute
    series = [{"series": f'skyboard_tournament_director_oldest_entry_age_seconds{{instance="{i}"}}',
               "values": age} for i in "ab"]
    series += [{"series": f'skyboard_tournament_director_last_pass_timestamp_seconds{{instance="{i}"}}',
                "values": last_pass} for i in "ab"]
    series += [{"series": 'skyboard_tournament_games_created_total{instance="a"}', "values": "0+1x14"}]
    _alert_test(promtool, tmp_path, series, [
        _stalled("2m", False), _stalled("6m", False), _stalled("8m", False),   # over a minute from 4m: pending
        _stalled("10m", True), _stalled("11m", True), _stalled("14m", False),
    ])


def test_promtool_fires_the_director_stalled_alert_when_its_loop_stops(promtool, tmp_path):
    """The directors' last good pass stays at minute 2 (their loop hangs, or each pass fails): over 2 minutes
    behind from minute 5, 5 minutes of it from minute 10; a director that passes again clears it."""
    stuck = " ".join(str(60 * min(i, 2)) for i in range(12)) + " 720 780 840"
    series = [{"series": 'skyboard_tournament_director_last_pass_timestamp_seconds{instance="a"}', "values": stuck},
              {"series": 'skyboard_tournament_director_oldest_entry_age_seconds{instance="a"}', "values": "0x14"}]
    _alert_test(promtool, tmp_path, series, [
        _stalled("4m", False), _stalled("9m", False), _stalled("10m", True), _stalled("11m", True),
        _stalled("13m", False),
    ])


def test_promtool_fires_the_director_stalled_alert_when_every_creation_fails(promtool, tmp_path):
    """Nothing is behind and the loop passes, but every game it tries to create fails (the game-state service
    unreachable) from minute 1 on: the alert fires after 5 minutes of it; a game created again clears it, and
    it stays clear once the failures stop."""
    series = [
        {"series": 'skyboard_tournament_director_last_pass_timestamp_seconds{instance="a"}',
         "values": " ".join(str(60 * i) for i in range(30))},
        {"series": 'skyboard_tournament_director_oldest_entry_age_seconds{instance="a"}', "values": "0x29"},
        {"series": 'skyboard_tournament_games_created_total{instance="a"}', "values": "5x14 6x14"},
        {"series": 'skyboard_tournament_game_creation_failures_total{instance="a",kind="call"}',
         "values": "0 " + " ".join(str(4 * i) for i in range(1, 15)) + " 56x14"},
    ]
    _alert_test(promtool, tmp_path, series, [
        _stalled("1m", False), _stalled("5m", False), _stalled("7m", True), _stalled("14m", True),
        _stalled("16m", False), _stalled("28m", False),
    ])


def test_promtool_parses_every_dashboard_query(promtool, tmp_path, dashboards):
    """Each panel query as a recording rule: promtool parses its PromQL (Grafana's $__rate_interval -> 5m)."""
    exprs = [t["expr"] for dash in dashboards for panel in dash["panels"] for t in panel["targets"]]
    rules = [{"record": f"dashboard:query_{i}", "expr": e.replace("$__rate_interval", "5m")}
             for i, e in enumerate(exprs)]
    path = tmp_path / "dashboard_rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(rules)} rules found" in result.stdout


def test_gamestate_liveness_survives_a_redis_outage_and_readiness_follows_it(k8s):
    """Readiness asks the overall health, which goes NOT_SERVING while Redis is down; liveness asks the
    `liveness` name, which does not, so an outage takes pods out of rotation without restarting them."""
    from services.gamestate.server import LIVENESS

    (container,) = [c for c in containers(workloads(k8s)["gamestate"]) if "grpc" in c.get("livenessProbe", {})]
    assert container["livenessProbe"]["grpc"].get("service") == LIVENESS
    assert container["readinessProbe"]["grpc"].get("service", "") == ""
