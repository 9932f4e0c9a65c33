"""The metric names the code exports, read from the prometheus_client registries after importing the modules."""

from __future__ import annotations

import importlib
import pkgutil

from prometheus_client import REGISTRY, CollectorRegistry

from services.workers import WORKER_APP

# the suffixes prometheus_client adds to a family's samples, per type
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "summary": ("", "_sum", "_count", "_created"),
    "gauge": ("",),
    "info": ("_info",),
    "enum": ("",),
}


def names_in(registry: CollectorRegistry) -> set[str]:
    names: set[str] = set()
    for family in registry.collect():
        names |= {family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",))}
        names |= {sample.name for sample in family.samples}
    return names


def _import_package(name: str) -> None:
    """Import a package and every module under it (metrics are declared at import time)."""
    module = importlib.import_module(name)
    for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{name}."):
        importlib.import_module(info.name)


def exported_metric_names() -> set[str]:
    from services.gateway.metrics import GatewayMetrics
    from services.ops_exporter import OpsMetrics
    from services.tournament_director.metrics import REGISTRY as DIRECTOR

    _import_package("services.gamestate")
    _import_package("services.outcomes")
    _import_package("services.webhooks")
    _import_package(WORKER_APP.split(":")[0].rsplit(".", 1)[0])
    return (names_in(REGISTRY) | names_in(GatewayMetrics().registry) | names_in(OpsMetrics().registry)
            | names_in(DIRECTOR))
