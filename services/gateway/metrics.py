"""Prometheus metrics of the gateway: latency per route, request and domain counters.

Each app gets its own registry (tests build many apps in one process); `/metrics`
exposes it in the text format.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send


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
        self.matches = Counter(
            "skyboard_gateway_ratings_settled", "Rated games whose ratings were updated", registry=self.registry
        )


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


class MetricsMiddleware:
    """Observes every HTTP request; the route label is the template, never the raw path."""

    def __init__(self, app: ASGIApp, metrics: GatewayMetrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def observing_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, observing_send)
        finally:
            route = route_template(scope)
            method = scope.get("method", "")
            self.metrics.latency.labels(method, route).observe(time.perf_counter() - start)
            self.metrics.requests.labels(method, route, str(status)).inc()
            if status == 429:
                self.metrics.rate_limited.inc()
