"""Hostile text a client writes where a number or a name goes: answered 4xx with the error body, never 500,
never a stream that tells the client to reconnect forever (docs/decisions/abuse-bounds.md, "Hostile input and
headers")."""

from __future__ import annotations

import base64

import pytest

from tests.gateway.conftest import Gateway
from tests.gateway.helpers import auth


def _cursor(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize("raw", [
    f"{2**63}:{'a' * 32}",            # a time past PostgreSQL's BIGINT: was a 500 with two tracebacks
    f"{2**64 + 5}:{'a' * 32}",
    f"\u0661\u0667\u0660\u0660:{'a' * 32}",  # Arabic-Indic digits, which int() reads as 1700
    f"-5:{'a' * 32}",
    f" 17:{'a' * 32}",
])
def test_a_history_cursor_out_of_range_or_not_ascii_is_a_422(gateway: Gateway, raw: str):
    with gateway.client() as http:
        player = http.post("/v1/players", json={"name": "cursor"}).json()
        r = http.get(f"/v1/players/{player['player_id']}/games", params={"cursor": _cursor(raw)})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("last_id", [
    f"{2**64}-0", f"0-{2**64}", f"{2**64 + 1}-{2**64 + 1}", "\u0661-0", "1-\u0661\u0662",
])
def test_an_account_stream_last_event_id_beyond_a_redis_id_is_a_422_before_the_stream(gateway: Gateway,
                                                                                        last_id: str):
    with gateway.client() as http:
        key = http.post("/v1/players", json={"name": "streamer"}).json()["api_key"]
        with http.stream("GET", "/v1/players/me/events",
                         headers={**auth(key), "Last-Event-ID": last_id.encode()}) as r:
            r.read()
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["error"]["code"] == "invalid_request"


def test_the_largest_redis_stream_id_is_still_a_valid_last_event_id(gateway: Gateway):
    with gateway.client() as http:
        key = http.post("/v1/players", json={"name": "streamer"}).json()["api_key"]
        with http.stream("GET", "/v1/players/me/events",
                         headers={**auth(key), "Last-Event-ID": f"{2**64 - 1}-{2**64 - 1}"}) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize("name", [
    "ev\u202eil",          # RIGHT-TO-LEFT OVERRIDE
    "a\u2066b\u2069",      # bidi isolates
    "zero\u200bwidth",     # ZERO WIDTH SPACE (Cf)
    "soft\u00adhyphen",    # SOFT HYPHEN (Cf)
    "nel\u0085",           # NEXT LINE (Cc)
    "mark\u200f",          # RIGHT-TO-LEFT MARK
    "tag\U000e0041",       # TAG LATIN CAPITAL LETTER A (Cf)
])
def test_player_names_refuse_control_and_format_characters(gateway: Gateway, name: str):
    with gateway.client() as http:
        r = http.post("/v1/players", json={"name": name})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_request"


def test_player_names_are_nfkc_normalised(gateway: Gateway):
    with gateway.client() as http:
        created = http.post("/v1/players", json={"name": "\uff21\uff44\uff41 \ufb01"}).json()  # fullwidth "Ada", fi
        shown = http.get(f"/v1/players/{created['player_id']}").json()
    assert shown["name"] == "Ada fi"
