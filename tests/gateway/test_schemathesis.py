"""Property-based requests generated from /openapi.json (schemathesis) against the gateway over real HTTP:
no input produces a 5xx, and every error carries the uniform error body. Bounded to keep the suite fast.

Valid (positive) and invalid (negative) cases are both generated for every operation; schemathesis's
pytest plugin does not load under this pytest, so the operations are driven with Hypothesis directly.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.gateway.conftest import Gateway

EXAMPLES = 12


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
                    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "rule"}, body

            try:
                run()
            except Unsatisfiable:
                assert mode == GenerationMode.NEGATIVE, operation.label  # nothing to break, e.g. no parameters
    assert checked >= len(operations) * 2
