"""The pages a browser loads (the web client, /docs) carry a Content-Security-Policy without inline script,
refuse framing, never sniff, and leak no URL to other origins; nothing is loaded from a CDN
(docs/decisions/abuse-bounds.md)."""

from __future__ import annotations

import re

import pytest

from tests.gateway.conftest import Gateway

PAGES = ["/", "/game.html", "/tournaments.html", "/docs", "/v1/catalog", "/no-such-route"]


def _directives(csp: str) -> dict[str, list[str]]:
    out = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


@pytest.mark.parametrize("path", PAGES)
def test_every_answer_has_a_strict_csp_nosniff_and_a_referrer_policy(gateway: Gateway, path: str):
    with gateway.client() as http:
        r = http.get(path)
    csp = _directives(r.headers.get("content-security-policy", ""))
    assert csp.get("frame-ancestors") == ["'none'"], r.headers
    script = csp.get("script-src", csp.get("default-src"))
    assert script is not None and "'unsafe-inline'" not in script and "'unsafe-eval'" not in script
    assert all(s.startswith("'") for s in script), f"scripts only from this origin: {script}"
    assert csp.get("object-src") == ["'none'"] and csp.get("base-uri") == ["'none'"]
    assert r.headers.get("x-content-type-options") == "nosniff"
    assert r.headers.get("referrer-policy") == "no-referrer"


@pytest.mark.parametrize("path", ["/", "/game.html", "/tournaments.html", "/docs"])
def test_pages_hold_no_inline_script_and_load_nothing_from_another_origin(gateway: Gateway, path: str):
    with gateway.client() as http:
        html = http.get(path).text
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I)
    assert scripts, "the page has scripts"
    for attrs, body in scripts:
        assert "src=" in attrs and not body.strip(), f"inline script in {path}: {body[:80]!r}"
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), f"{path} loads from another origin"
    assert not re.search(r"\son[a-z]+=", html, re.I), f"inline event handler in {path}"


def test_redoc_is_not_served(gateway: Gateway):
    """/redoc loaded its script from a CDN without integrity; /docs (packaged Swagger UI) is the API page."""
    with gateway.client() as http:
        assert http.get("/redoc").status_code == 404
        assert http.get("/docs").status_code == 200
