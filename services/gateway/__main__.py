"""`python -m services.gateway`: serve the REST gateway with uvicorn (settings from GATEWAY_* variables)."""

from __future__ import annotations

import logging

import uvicorn

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = GatewaySettings()
    print(f"Skyboard REST gateway on http://{settings.host}:{settings.port} (docs at /docs)", flush=True)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")


if __name__ == "__main__":
    main()
