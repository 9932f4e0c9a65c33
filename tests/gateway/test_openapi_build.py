"""/openapi.json is built at the gateway's start from the engines' declared shapes, never inside a request, and
building it plays no game (the schemas come from the declarations, not from sampling games).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import engine
from services.gateway.openapi.declared import view_schemas
from tests.gateway.conftest import Gateway

ROOT = Path(__file__).resolve().parents[2]


def test_building_the_document_plays_no_game() -> None:
    """In a fresh process the whole document is built without playing the seeded games the documentation's
    tables sample (`vocabulary.vocabulary`)."""
    script = (
        "import json\n"
        "from services.gateway.app import create_app\n"
        "from services.gateway.settings import GatewaySettings\n"
        "from services.gateway.openapi.vocabulary import vocabulary\n"
        "app = create_app(GatewaySettings(service_secret='openapi-' + 'x' * 40, metrics_port=0,\n"
        "                                 archive_url='sqlite+aiosqlite:///:memory:'))\n"
        "doc = app.openapi()\n"
        "print(json.dumps({'played': vocabulary.cache_info().currsize,\n"
        "                  'views': 'OpenskyView' in doc['components']['schemas']}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"played": 0, "views": True}, result


def test_a_started_gateway_serves_the_document_it_built_at_start(make_gateway: Callable[..., Gateway]) -> None:
    """No warm-up fixture: a gateway just started already holds its document (built in its lifespan), and its first
    /openapi.json serves that very document, not one rebuilt inside the request, with each title's declared view in
    it. Checked by identity, not by a stopwatch: a loaded CI machine made a wall-clock budget flaky."""
    gw = make_gateway()
    app = gw.server.config.app
    built_at_start = app.openapi_schema
    assert built_at_start, "the gateway started without building its /openapi.json"
    with gw.client() as http:
        r = http.get("/openapi.json")
    assert r.status_code == 200, r.text
    assert app.openapi_schema is built_at_start, "the first request rebuilt the document"
    assert r.json() == json.loads(json.dumps(built_at_start))
    schemas = r.json()["components"]["schemas"]
    for name in engine.games():
        for component, schema in view_schemas(engine.get(name)).items():
            assert schemas[component] == schema, component
