"""Prometheus metrics of the gateway: latency per route, request and domain counters (observed by `edge.Edge`), and
per RPC of its gRPC listener (services/gateway/rpc/server.py), as the game-state service's per RPC.

Each app gets its own registry (tests build many apps in one process). It is exported on a port of its own
(GATEWAY_METRICS_PORT), never on the public API port: operational figures are not for the internet.
"""

from __future__ import annotations

from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from starlette.types import Scope


class GatewayMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "skyboard_gateway_request_seconds",
            "Time to the end of the response, per route template",
            ["method", "route"],
            registry=self.registry,
            buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.requests = Counter(
            "skyboard_gateway_requests", "Requests by route and status", ["method", "route", "status"],
            registry=self.registry,
        )
        self.actions = Counter(
            "skyboard_gateway_actions", "Action submissions by outcome", ["outcome"], registry=self.registry
        )
        self.rate_limited = Counter(
            "skyboard_gateway_rate_limited", "Requests refused with 429", registry=self.registry
        )
        self.readiness_checks = Counter(
            "skyboard_gateway_readiness_checks", "Probes of the backends for /readyz (the other calls shared one)",
            registry=self.registry,
        )
        self.rpc_latency = Histogram(
            "skyboard_gateway_rpc_seconds", "Time to the end of each gRPC call (a stream: while it was open), per RPC",
            ["rpc"], registry=self.registry,
            buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.rpc_calls = Counter(
            "skyboard_gateway_rpc_calls", "gRPC calls by RPC and status code", ["rpc", "code"], registry=self.registry,
        )
        self.rpc_streams = Gauge(
            "skyboard_gateway_rpc_streams", "Open WatchTournament streams", registry=self.registry,
        )
        self.replays_computed = Counter(
            "skyboard_gateway_replays_computed", "Replay steps computed (/webclient/replay; the others were cached)",
            registry=self.registry,
        )


def serve_metrics(metrics: GatewayMetrics, host: str, port: int) -> WSGIServer | None:
    """Export `metrics` on http://host:port/metrics in a daemon thread (None when port is 0). A taken port is
    an error at startup, not a silently missing exporter."""
    if not port:
        return None
    server, _thread = start_http_server(port, addr=host, registry=metrics.registry)
    return server


#: scope key where the hot path (services/gateway/hot.py) names the route template it served
HOT_ROUTE_KEY = "skyboard.route"


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    return scope.get(HOT_ROUTE_KEY, "unmatched")
