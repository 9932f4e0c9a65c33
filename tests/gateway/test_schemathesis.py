"""Property-based requests generated from /openapi.json (schemathesis) against the gateway over real HTTP:
no input produces a 5xx, and every error carries the uniform error body. Bounded to keep the suite fast.

Valid (positive) and invalid (negative) cases are both generated for every operation; schemathesis's
pytest plugin does not load under this pytest, so the operations are driven with Hypothesis directly.
Hostile JSON (tests/hostile_json.py) is put into schema-valid bodies of every operation that takes one.
The conformance checks (documented statuses and content types, response schemas, 405s with the right
`Allow`, schema-valid data accepted) run through schemathesis's own runner (`schemathesis run`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests import hostile_json
from tests.gateway.conftest import Gateway

#: minutes of wall clock: run by `make test-slow` (in CI), not by `make test`
pytestmark = pytest.mark.slow

EXAMPLES = 12
HOLE = "__hostile__"


def test_no_5xx_and_uniform_errors(gateway: Gateway) -> None:
    schema = schemathesis.openapi.from_url(f"{gateway.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    checked = 0
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            def run(case) -> None:
                nonlocal checked
                response = case.call(timeout=10)
                checked += 1
                assert response.status_code < 500, (case.method, case.formatted_path, response.text)
                if response.status_code >= 400:
                    body = response.json()
                    assert set(body) == {"error"} and {"code", "message", "rule"} <= set(body["error"]), body
                    assert set(body["error"]) - {"code", "message", "rule"} <= {"current_version"}, body

            try:
                run()
            except Unsatisfiable:
                assert mode == GenerationMode.NEGATIVE, operation.label  # nothing to break, e.g. no parameters
    assert checked >= len(operations) * 2


def _json_body_operations(gateway: Gateway) -> list:
    schema = schemathesis.openapi.from_url(f"{gateway.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    return [op for op in operations if any(body.media_type == "application/json" for body in op.body)]


def test_hostile_json_in_any_schema_valid_body_is_422(gateway: Gateway) -> None:
    operations = _json_body_operations(gateway)
    assert len(operations) >= 4  # create game, submit, create player, create ticket
    with httpx.Client(base_url=gateway.url, timeout=10) as http:
        for operation in operations:

            @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
                   value=hostile_json.hostile_values(), pick=st.integers(0, 10**6))
            @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            def run(case, value: str, pick: int) -> None:
                body = dict(case.body) if isinstance(case.body, dict) else {}
                keys = sorted(body) or ["field"]
                body[keys[pick % len(keys)]] = HOLE  # one field of a schema-valid body made hostile
                raw = json.dumps(body).replace(json.dumps(HOLE), value)
                # the body is what is under test: no generated credential (an empty "Bearer " is no header at all)
                headers = {k: v for k, v in (case.headers or {}).items()
                           if k.lower() not in ("content-type", "authorization")}
                r = http.request(case.method, case.formatted_path, params=case.query, content=raw.encode(),
                                 headers={**headers, "content-type": "application/json"})
                assert r.status_code == 422, (case.method, case.formatted_path, raw[:200], r.text[:300])
                error = r.json()["error"]
                assert set(error) == {"code", "message", "rule"} and error["code"] == "invalid_request", error

            run()


#: schemathesis's conformance checks; its default for schema-valid data also takes 5xx, and not 422: this API
#: answers 422 (documented on every operation) for schema-valid requests naming what the catalog does not
#: have (an unknown game, option or bot level, a player count the game does not take), which no static schema
#: can tell apart.
#: The two event streams publish each frame with its `data` parsed from JSON (the SDKs' typed frames); a raw SSE
#: validator reads `data` as the string on the wire, so their frames are checked where they are parsed instead:
#: tests/sdk/test_published_schemas.py validates every frame of three whole games against the published schemas.
CONFORMANCE = """
[checks]
positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429"]

[[operations]]
include-path = "/v1/games/{game_id}/events"
checks.response_schema_conformance.enabled = false

[[operations]]
include-path = "/v1/players/me/events"
checks.response_schema_conformance.enabled = false
"""
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
          "response_headers_conformance,negative_data_rejection,positive_data_acceptance,missing_required_header,"
          "unsupported_method,allow_header_conformance")


def test_schemathesis_conformance_checks_pass(gateway: Gateway, tmp_path: Path) -> None:
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFORMANCE)
    cli = Path(sys.executable).with_name("schemathesis")
    run = subprocess.run(
        [str(cli), "--config-file", str(config), "run", f"{gateway.url}/openapi.json", "--phases", "coverage,fuzzing",
         "--checks", CHECKS, "--max-examples", str(EXAMPLES), "--workers", "1", "--no-color",
         "--generation-database", "none", "--request-timeout", "10", "--seed", "35"],
        cwd=tmp_path, capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
