"""The pages work under the gateway's Content-Security-Policy (no inline script or style): the `page` fixture
fails a test on any violation the browser reports."""

from __future__ import annotations

import pytest


@pytest.mark.integration  # make test-integration (CI); make test keeps the CSP's refusal test (the 10-minute budget)
def test_swagger_ui_renders_the_api_under_the_csp(page):
    """Its bundle and start-up script (files, not inline) run, and it renders the OpenAPI 3.1 document (Swagger UI
    4, packaged before, answered "Unable to render this definition")."""
    with page.expect_response("**/openapi.json", timeout=60_000):
        page.goto("/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert page.locator(".swagger-ui .info .title").inner_text().startswith("Skyboard REST gateway")
    assert page.locator(".swagger-ui .opblock").count() > 20


def test_an_inline_script_is_refused_and_reported(page):
    """The check above can fail: a script injected as markup is blocked, and the violation is reported."""
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    page.evaluate("""() => { const f = document.createElement('iframe'); f.srcdoc = '';
        document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.pwned=1">'); }""")
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.pwned") is None
    violations = [e for e in page.js_errors if "Content Security Policy" in e]
    assert violations, "the browser reported the blocked inline handler"
    page.js_errors.clear()
