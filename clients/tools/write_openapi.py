"""Write the gateway's /openapi.json to clients/openapi.json: the committed document the SDKs are generated from.

`make sdk-generate` runs this, then openapi-typescript; tests/sdk/test_generated_clients.py fails while the
committed document or the types generated from it are stale. Only the document is built: nothing is connected to.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "clients" / "openapi.json"


def document() -> dict[str, Any]:
    """The gateway's OpenAPI document, as GET /openapi.json serves it."""
    from services.gateway.app import create_app
    from services.gateway.settings import GatewaySettings

    settings = GatewaySettings(service_secret="openapi-" + "x" * 40, metrics_port=0,
                               archive_url="sqlite+aiosqlite:///:memory:")  # never connected: the schema only
    return create_app(settings).openapi()


def text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    TARGET.write_text(text(document()))
    print(f"wrote {TARGET.relative_to(ROOT)}")
