"""Every operation of /openapi.json has an example answer (and an example request where it takes a body), and
every example validates against the schema it illustrates."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from tests.service_secret import SERVICE_SECRET


def openapi() -> dict[str, Any]:
    # only the document is read: the SQL URL is never connected to
    settings = GatewaySettings(service_secret=SERVICE_SECRET, metrics_port=0, archive_url="sqlite+aiosqlite:///:memory:")
    return create_app(settings).openapi()


DOC = openapi()
OPERATIONS = [(method, path) for path, item in DOC["paths"].items() for method in item]


def validate(schema: dict[str, Any], value: Any) -> None:
    jsonschema.Draft202012Validator({**schema, "components": DOC["components"]}).validate(value)


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_operation_has_valid_examples(method: str, path: str) -> None:
    op = DOC["paths"][path][method]
    if "requestBody" in op:
        media = op["requestBody"]["content"]["application/json"]
        assert "example" in media, "no request example"
        validate(media["schema"], media["example"])
    ok = next(s for s in op["responses"] if s.startswith("2"))
    content = op["responses"][ok]["content"]
    assert content and all("example" in media for media in content.values()), f"no example answer for {ok}"
    for kind, media in content.items():
        if kind == "application/json":
            validate(media.get("schema", {}), media["example"])
        else:
            assert kind == "text/event-stream" and "data: " in media["example"]
    for status, answer in op["responses"].items():
        media = answer.get("content", {}).get("application/json")
        if status >= "400" and media and "example" in media:
            validate(media["schema"], media["example"])


def test_a_wrong_example_would_fail() -> None:
    op = DOC["paths"]["/v1/games/{game_id}"]["get"]["responses"]["200"]["content"]["application/json"]
    with pytest.raises(jsonschema.ValidationError):
        validate(op["schema"], {**op["example"], "status": "paused"})
    body = DOC["paths"]["/v1/games/{game_id}/actions"]["post"]["requestBody"]["content"]["application/json"]
    with pytest.raises(jsonschema.ValidationError):
        validate(body["schema"], {"action": {"type": "bid", "fare": "300"}, "expected_version": 1})
