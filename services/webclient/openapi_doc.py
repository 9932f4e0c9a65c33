"""The gateway's OpenAPI document as JSON on stdout, for the web client's generated types (gen_api_types.sh).

Why not fetch /openapi.json: the document is the app's, so building the app is enough; no Redis, database or
game-state service is connected (the SQL URL is an in-memory one the document never opens).
"""

from __future__ import annotations

import json
import sys

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings


def document() -> dict:
    """The OpenAPI document /openapi.json serves."""
    settings = GatewaySettings(service_secret="webclient-types-" + "x" * 40, metrics_port=0,
                               archive_url="sqlite+aiosqlite:///:memory:")
    return create_app(settings).openapi()


if __name__ == "__main__":
    json.dump(document(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
