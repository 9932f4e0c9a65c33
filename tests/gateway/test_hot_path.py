"""The hot path of the two move calls (services/gateway/http/hot.py) answers exactly as the FastAPI routes do.

Plain requests are served by the hot path; anything it declines (another content type, a body FastAPI
would coerce or refuse) goes to the FastAPI route. Both must give the same statuses and bodies.
"""

from __future__ import annotations

import json

import httpx
import pytest

from services.common.boundedjson import JsonRefused
from services.gateway.http import jsonbody
from services.gateway.http.hot import plain_submission
from tests.gateway.helpers import auth, create
from tests.gateway.test_basics import assert_error

JSON = "application/json"


@pytest.mark.parametrize(("body", "ctype", "plain"), [
    (b'{"action": {"type": "bid", "card": "c"}, "expected_version": 3}', JSON, ({"type": "bid", "card": "c"}, 3)),
    (b'{"expected_version": 0, "action": {}}', "Application/JSON ", ({}, 0)),
    (b'{"action": {}, "expected_version": 3}', "application/json; charset=utf-8", None),
    (b'{"action": {}, "expected_version": 3}', "text/plain", None),
    (b'{"action": {}, "expected_version": 3}', None, None),
    (b"", JSON, None),
    (b"{not json", JSON, None),
    (b'[{"action": {}, "expected_version": 3}]', JSON, None),
    (b'{"action": {}, "expected_version": 3, "extra": 1}', JSON, None),
    (b'{"action": {}}', JSON, None),
    (b'{"action": [], "expected_version": 3}', JSON, None),
    (b'{"action": {}, "expected_version": "3"}', JSON, None),
    (b'{"action": {}, "expected_version": 3.0}', JSON, None),
    (b'{"action": {}, "expected_version": true}', JSON, None),
    (b'{"action": {}, "expected_version": -1}', JSON, None),
    (b'{"action": {}, "expected_version": 4611686018427387905}', JSON, None),
])
def test_only_plainly_valid_bodies_take_the_hot_path(body: bytes, ctype: str | None, plain) -> None:
    scope = {"headers": [(b"content-type", ctype.encode())] if ctype is not None else []}
    try:
        document = jsonbody.parse(scope, body, 64 * 1024)  # what the edge hands the hot path
    except JsonRefused:
        return  # refused at the edge (422), never reaches the hot path
    assert plain_submission(document, ctype) == plain


@pytest.fixture
def game(http: httpx.Client) -> dict:
    created = create(http, "toybids", 2, seed=21)
    created["tokens"] = {s["seat"]: s["token"] for s in created["seats"]}
    return created


def _hand(http: httpx.Client, game: dict, seat: int) -> list[str]:
    return http.get(f"/v1/games/{game['game_id']}", headers=auth(game["tokens"][seat])).json()["view"]["hand"]


def test_the_route_and_the_hot_path_answer_byte_for_byte_alike(http: httpx.Client, game: dict) -> None:
    gid, token = game["game_id"], game["tokens"][0]
    legal = http.get(f"/v1/games/{gid}/actions", headers=auth(token))
    assert legal.status_code == 200 and legal.headers["content-type"] == JSON
    assert legal.json() == {"version": 0, "seat": 0,
                            "actions": [{"type": "bid", "card": c} for c in _hand(http, game, 0)]}
    body = json.dumps({"action": legal.json()["actions"][0], "expected_version": 0}).encode()
    headers = {**auth(token), "Idempotency-Key": "same-move"}
    hot = http.post(f"/v1/games/{gid}/actions", content=body, headers={**headers, "content-type": JSON})
    # the same keyed request again, but through the FastAPI route (a charset parameter is not taken hot)
    routed = http.post(f"/v1/games/{gid}/actions", content=body,
                       headers={**headers, "content-type": f"{JSON}; charset=utf-8"})
    assert hot.status_code == routed.status_code == 200
    # byte for byte, but for the replay flag: the routed request is the keyed retry of the hot one
    assert hot.content.replace(b'"replayed":false', b'"replayed":true') == routed.content
    assert hot.headers["content-type"] == routed.headers["content-type"] == JSON
    answer = hot.json()
    assert answer["version"] == 1 and answer["status"] == "active" and answer["to_act"] == [1]
    assert set(answer) == {"version", "events", "status", "to_act", "replayed"} and isinstance(answer["events"], list)
    assert answer["replayed"] is False and routed.json()["replayed"] is True


def test_declined_bodies_get_the_routes_answers(http: httpx.Client, game: dict) -> None:
    gid, token = game["game_id"], game["tokens"][0]
    url = f"/v1/games/{gid}/actions"
    action = {"type": "bid", "card": _hand(http, game, 0)[0]}
    for body in ({"action": action, "expected_version": 0, "extra": 1}, {"action": action},
                 {"action": [action], "expected_version": 0}, [action]):
        assert_error(http.post(url, json=body, headers=auth(token)), 422, "invalid_request")
    assert_error(http.post(url, content=b"{not json", headers={**auth(token), "content-type": JSON}), 422)
    assert_error(http.post(url, content=json.dumps({"action": action, "expected_version": 0}),
                           headers={**auth(token), "content-type": "text/plain"}), 422)
    assert http.get(f"/v1/games/{gid}").json()["version"] == 0, "nothing applied"
    # a version FastAPI coerces ("0" -> 0) is accepted through the route, as before
    r = http.post(url, json={"action": action, "expected_version": "0"}, headers=auth(token))
    assert r.status_code == 200 and r.json()["version"] == 1


def test_refusals_on_the_hot_path_keep_their_order_and_error_body(http: httpx.Client, game: dict) -> None:
    gid, token = game["game_id"], game["tokens"][0]
    good = {"action": {"type": "bid", "card": _hand(http, game, 0)[0]}, "expected_version": 0}
    assert_error(http.post("/v1/games/bad%20id!/actions", json=good), 401, "unauthenticated")
    assert_error(http.post("/v1/games/bad%20id!/actions", json=good, headers=auth(token)), 404, "not_found")
    assert_error(http.get("/v1/games/bad%20id!/actions", headers=auth(token)), 404, "not_found")
    assert_error(http.get(f"/v1/games/{gid}/actions", headers={"Authorization": "Token x"}), 401)
    bad_key = {**auth(token), "Idempotency-Key": "has space"}
    assert_error(http.post(f"/v1/games/{gid}/actions", json=good, headers=bad_key), 422, "invalid_request")
    stale = assert_error(http.post(f"/v1/games/{gid}/actions", json={**good, "expected_version": 3},
                                   headers=auth(token)), 409, "stale_version")
    assert "version" in stale["message"]
    illegal = assert_error(http.post(f"/v1/games/{gid}/actions", json={**good, "action": {"type": "bid",
                                     "card": "nope"}}, headers=auth(token)), 422)
    assert illegal["rule"]
    assert http.get(f"/v1/games/{gid}").json()["version"] == 0, "nothing applied"


def test_hot_path_requests_are_measured_per_route_template(http: httpx.Client, gateway, game: dict) -> None:
    gid, token = game["game_id"], game["tokens"][1]
    http.get(f"/v1/games/{gid}/actions", headers=auth(token))
    http.get(f"/v1/games/{gid}/actions")  # 401
    text = gateway.metrics()
    route = 'route="/v1/games/{game_id}/actions"'
    assert f'skyboard_gateway_requests_total{{method="GET",{route},status="200"}}' in text
    assert f'skyboard_gateway_requests_total{{method="GET",{route},status="401"}}' in text
    assert f'skyboard_gateway_request_seconds_count{{method="GET",{route}}}' in text
