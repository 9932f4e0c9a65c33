"""What a client generated from /openapi.json with the generators' default flags needs from the document.

A third-party developer generated clients from the published document alone and found: request fields that
have a default came out required under openapi-typescript's defaults; `/v1/openapi.json` was 404 beside the
`/v1` routes; no response declared the `RateLimit-*` or `Retry-After` headers, and only one operation its 503;
two thirds of the operations had no tag, so generators filed them under "default". Each is checked here, the
headers against what a running gateway sends.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import services.gateway.models as gateway_models
from services.gateway.http.limits import EXEMPT_PATHS
from tests.rate_windows import HOUR, fresh_window
from tests.sdk.test_generated_clients import TS, write_openapi

RATE_LIMIT_HEADERS = {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return write_openapi.document()


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method, path, op) for path, item in doc["paths"].items() for method, op in item.items()]


def test_every_operation_has_exactly_one_tag_and_the_document_describes_each(openapi: dict[str, Any]) -> None:
    untagged = [f"{m.upper()} {p}" for m, p, op in operations(openapi) if len(op.get("tags", [])) != 1]
    assert not untagged, f"operations without exactly one tag (generators file them under 'default'): {untagged}"
    described = {t["name"]: t.get("description") for t in openapi.get("tags", [])}
    used = {op["tags"][0] for _m, _p, op in operations(openapi)}
    assert used == set(described) and all(described.values()), (used, described)


def test_every_operation_declares_503_and_retry_after_where_the_gateway_may_send_it(openapi: dict[str, Any]) -> None:
    """docs/rate-limits.md: any request may be answered 503 (storage or the game-state service restarting), and a
    429 or a 503 may carry Retry-After."""
    for method, path, op in operations(openapi):
        responses = op["responses"]
        assert "503" in responses, f"{method.upper()} {path} declares no 503"
        for status in ("429", "503"):
            headers = responses[status].get("headers", {})
            assert "Retry-After" in headers, f"{method.upper()} {path} {status}: no Retry-After"
            assert not headers["Retry-After"].get("required", False)


def header_schema(doc: dict[str, Any], header: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in header:
        header = doc["components"]["headers"][header["$ref"].rsplit("/", 1)[1]]
    return header["schema"]


def test_every_rate_limited_operation_declares_the_rate_limit_headers_on_its_answers(openapi: dict[str, Any]) -> None:
    """The gateway reports the tightest bucket on every answer it counted (all but /healthz and /readyz, and a
    413, refused before counting): typed, so that a generated client reads them without parsing by hand."""
    for method, path, op in operations(openapi):
        for status, response in op["responses"].items():
            declared = set(response.get("headers", {})) & RATE_LIMIT_HEADERS
            if path in EXEMPT_PATHS or status == "413":
                assert not declared, f"{method.upper()} {path} {status} is never counted: {declared}"
                continue
            assert declared == RATE_LIMIT_HEADERS, f"{method.upper()} {path} {status}: {declared}"
            for name in RATE_LIMIT_HEADERS | ({"Retry-After"} & set(response["headers"])):
                assert header_schema(openapi, response["headers"][name])["type"] == "integer", name


def test_the_declared_rate_limit_headers_are_the_ones_the_gateway_sends(openapi: dict[str, Any],
                                                                       make_sdk_gateway) -> None:
    gw = make_sdk_gateway(rate_limit_ip=1, rate_limit_window_s=HOUR)  # the 2nd anonymous call is refused
    fresh_window()  # both calls in one window
    with httpx.Client(base_url=gw.url, timeout=20) as http:
        answers = [http.get("/v1/catalog") for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 429]
    catalog = openapi["paths"]["/v1/catalog"]["get"]["responses"]
    for answer, declared in zip(answers, (catalog["200"], catalog["429"])):
        sent = {name.lower() for name in answer.headers if name.lower().startswith(("ratelimit-", "retry-after"))}
        assert sent == {name.lower() for name in declared["headers"]}, (answer.status_code, sent)
        assert all(re.fullmatch(r"\d+", answer.headers[name]) for name in sent), answer.headers


def test_the_document_is_served_under_v1_too(sdk_gateway) -> None:
    """Every API route is under /v1: a developer looked for the document there first."""
    with httpx.Client(base_url=sdk_gateway.url, timeout=20) as http:
        root, v1 = http.get("/openapi.json"), http.get("/v1/openapi.json")
    assert v1.status_code == 200 and v1.headers["content-type"] == "application/json", v1.text[:300]
    assert v1.json() == root.json()


def request_schemas(doc: dict[str, Any]) -> set[str]:
    """The component schemas a request body refers to, directly or through other schemas."""
    schemas, seen = doc["components"]["schemas"], set()
    pending = [op["requestBody"] for _m, _p, op in operations(doc) if "requestBody" in op]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            name = node.get("$ref", "").rsplit("/", 1)[-1]
            if name and name not in seen:
                seen.add(name)
                pending.append(schemas[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return seen


def gateway_model(name: str) -> type[BaseModel] | None:
    """The gateway's pydantic model a component schema is generated from (None: one made otherwise, an action)."""
    for info in pkgutil.iter_modules(gateway_models.__path__):
        module = importlib.import_module(f"{gateway_models.__name__}.{info.name}")
        found = getattr(module, name, None)
        if inspect.isclass(found) and issubclass(found, BaseModel):
            return found
    return None


def defaulted_request_fields(doc: dict[str, Any]) -> dict[str, set[str]]:
    """Per request schema, its fields that have a default in the model the server validates with."""
    fields = {}
    for name in sorted(request_schemas(doc)):
        model = gateway_model(name)
        if model is not None:
            fields[name] = {f.alias or n for n, f in model.model_fields.items() if not f.is_required()}
    return fields


def test_request_fields_with_a_default_are_not_required(openapi: dict[str, Any]) -> None:
    defaulted = defaulted_request_fields(openapi)
    assert {"NewPlayer", "CreateGame", "NewTicket", "NewChallenge"} <= set(defaulted), sorted(defaulted)
    for name, fields in defaulted.items():
        schema = openapi["components"]["schemas"][name]
        assert fields <= set(schema["properties"]), name
        assert not fields & set(schema.get("required", [])), f"{name}: {fields & set(schema['required'])}"


def ts_properties(source: str, schema: str) -> dict[str, bool]:
    """The properties of `components["schemas"][schema]` in openapi-typescript's output: name -> optional."""
    block = re.search(rf"^(\s+){re.escape(schema)}: \{{\n(.*?)^\1\}};$", source, re.M | re.S)
    assert block, f"{schema} is not in the generated types"
    indent = len(block.group(1)) + 4
    return {m.group(1): m.group(2) == "?" for m in re.finditer(rf"^ {{{indent}}}(\w+)(\??): ", block.group(2), re.M)}


def test_openapi_typescript_with_its_default_flags_makes_every_defaulted_request_field_optional(
        openapi: dict[str, Any], tmp_path: Path) -> None:
    """openapi-typescript's default `--default-non-nullable` makes a property with a `default` required wherever it
    is not inline in a request body: a developer got six required request fields that the server defaults."""
    npx = shutil.which("npx")
    assert npx and (TS / "node_modules" / ".bin" / "openapi-typescript").exists(), "run `make sdk-tools`"
    (tmp_path / "openapi.json").write_text(write_openapi.text(openapi))
    subprocess.run([npx, "--no-install", "openapi-typescript", tmp_path / "openapi.json", "-o", tmp_path / "s.ts"],
                   cwd=TS, check=True, capture_output=True, timeout=300)
    source = (tmp_path / "s.ts").read_text()
    required = {f"{name}.{field}" for name, fields in defaulted_request_fields(openapi).items()
                for field, optional in ts_properties(source, name).items() if field in fields and not optional}
    assert not required, f"required in the generated types although the server defaults them: {sorted(required)}"
    assert ts_properties(source, "NewPlayer") == {"name": False, "kind": True}  # the parser reads the output
