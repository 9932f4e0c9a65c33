"""`python -m services.gateway`: serve the REST gateway with uvicorn, and its gRPC listener (TournamentService) in the
same event loop (settings from GATEWAY_* variables)."""

from __future__ import annotations

import uvicorn

from services.common.entry import configure_logging, require_secret
from services.common.gctune import tune_gc
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings, proxy_options


def main() -> None:
    configure_logging()
    settings = GatewaySettings()
    require_secret("REST gateway", settings.service_secret)
    print(f"Skyboard REST gateway on http://{settings.host}:{settings.port} (docs at /docs)", flush=True)
    if settings.grpc_port:
        print(f"gRPC (skyboard.v1.TournamentService) on {settings.grpc_host}:{settings.grpc_port}", flush=True)
    if settings.metrics_port:
        print(f"metrics on http://{settings.metrics_host}:{settings.metrics_port}/metrics", flush=True)
    # uvloop + httptools: the C event loop and parser (uvicorn[standard]) cost far less CPU per request
    app = create_app(settings)
    tune_gc()  # after the app and its routes exist: they are frozen out of later collections
    uvicorn.run(
        app, host=settings.host, port=settings.port, log_level="info", loop="uvloop",
        http="httptools", access_log=settings.access_log, **proxy_options(settings),
    )


if __name__ == "__main__":
    main()
