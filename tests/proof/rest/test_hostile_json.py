"""Hostile input through REST (tests/hostile_json.py): deep nesting, huge integers, lone surrogates and NaN in
any JSON body are 422 with the error body before any route (hot path included) sees them, with no token
needed, no traceback logged and nothing changed; Unicode digits where the gateway reads a number from text
(bot seats, Last-Event-ID) are 422 too, never a 500 and never read as a number."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import hostile_json
from tests.gateway.helpers import api_key, auth, create

JSON = {"content-type": "application/json"}

#: (path, body template with one `{}` for the hostile value, needs a seat token / api key)
BODIES = [
    ("/v1/games/{gid}/actions", '{{"action": {}, "expected_version": 0}}', None),
    ("/v1/games/{gid}/actions", '{{"action": {{"type": "bid", "card": {}}}, "expected_version": 0}}', None),
    ("/v1/games/{gid}/actions", '{{"action": {{"type": "bid", "card": {}}}, "expected_version": 0}}', "seat"),
    ("/v1/games/{gid}/actions", '{{"action": {{}}, "expected_version": {}}}', "seat"),
    ("/v1/games", '{{"game": "toybids", "players": 2, "options": {}}}', None),
    ("/v1/games", '{{"game": "toybids", "players": 2, "options": {{"rounds": {}}}}}', None),
    ("/v1/games", '{{"game": {}, "players": 2}}', None),
    ("/v1/games", '{{"game": "toybids", "players": 2, "seed": {}}}', None),
    ("/v1/games", '{{"game": "toybids", "players": 2, "bots": {{"1": {}}}}}', None),
    ("/v1/players", '{{"name": {}}}', None),
    ("/v1/matchmaking/tickets", '{{"game": "toybids", "players": 2, "options": {{"rounds": {}}}}}', "player"),
]


class Errors(logging.Handler):
    """Collects ERROR records (tracebacks) from the root, uvicorn and service loggers."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def no_errors_logged() -> Iterator[None]:
    handler = Errors()
    loggers = [logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "services")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        yield
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
    assert not handler.records, [r.getMessage() for r in handler.records]


@pytest.fixture
def target(http: httpx.Client) -> dict:
    game = create(http, "toybids", 2, seed=91)
    player = http.post("/v1/players", json={"name": "hostile"}).json()
    return {"gid": game["game_id"], "seat": game["seats"][0]["token"], "player": player["api_key"]}


def _post(http: httpx.Client, target: dict, path: str, template: str, who: str | None, value: str):
    headers = {**JSON, **(auth(target[who]) if who else {})}
    return http.post(path.format(gid=target["gid"]), content=template.format(value).encode(), headers=headers)


def _assert_422(r: httpx.Response, what: str) -> None:
    assert r.status_code == 422, (what, r.status_code, r.text[:300])
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "rule"}, body
    assert body["error"]["code"] == "invalid_request" and body["error"]["message"]


@pytest.mark.parametrize("name", sorted(hostile_json.EXAMPLES))
def test_each_hostile_class_is_422_on_every_json_body(http: httpx.Client, target: dict, name: str) -> None:
    value = hostile_json.EXAMPLES[name]
    with no_errors_logged():
        for path, template, who in BODIES:
            _assert_422(_post(http, target, path, template, who, value), f"{path} {template} {name}")
    assert http.get(f"/v1/games/{target['gid']}").json()["version"] == 0


def test_a_2kb_deep_body_without_token_is_422_on_the_hot_path(http: httpx.Client, target: dict) -> None:
    body = "[" * 2048
    with no_errors_logged():
        r = http.post(f"/v1/games/{target['gid']}/actions", content=body, headers=JSON)
    _assert_422(r, "2 KB of [")
    assert "deeper than 32" in r.json()["error"]["message"]


def test_generated_hostile_bodies_are_422(http: httpx.Client, target: dict) -> None:
    @given(value=hostile_json.hostile_values(), where=st.sampled_from(BODIES))
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(value: str, where: tuple[str, str, str | None]) -> None:
        _assert_422(_post(http, target, *where, value), f"{where} {value[:80]}")

    with no_errors_logged():
        run()
    assert http.get(f"/v1/games/{target['gid']}").json()["version"] == 0


def test_unicode_digit_bot_seats_are_422_not_seats(http: httpx.Client) -> None:
    """`"²".isdigit()` is true and `int("²")` fails (a 500); `int("\u0661")` (ARABIC-INDIC DIGIT ONE) is 1: a
    bot seat nobody asked for."""
    key = auth(api_key(http))

    @given(digits=hostile_json.unicode_digits())
    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(digits: str) -> None:
        body = f'{{"game": "toybids", "players": 2, "bots": {{{digits}: "random"}}}}'
        r = http.post("/v1/games", content=body.encode(), headers={**JSON, **key})
        _assert_422(r, body)
        assert "is not a seat" in r.json()["error"]["message"]

    with no_errors_logged():
        run()
        for digit in ("²", "\u0661", "\u0660"):
            _assert_422(http.post("/v1/games", json={"game": "toybids", "players": 2, "bots": {digit: "random"}},
                                  headers=key),
                        digit)


def test_unicode_digit_last_event_id_is_422(http: httpx.Client, target: dict) -> None:
    """Header values arrive as latin-1: "²", "³" and "¹" are the digits a client can send there."""
    with no_errors_logged():
        for raw in (b"\xb2", b"\xb3", b"1\xb9", b"\xb2\xb2"):
            r = http.get(f"/v1/games/{target['gid']}/events", headers={"Last-Event-ID": raw})
            _assert_422(r, repr(raw))
