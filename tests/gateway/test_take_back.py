"""POST /v1/games/{id}/take-back over real HTTP and a real game-state service: the mover (by seat token or by its
account's API key) takes back its last decision; the view says when it may; refusals are the usual error bodies; the
stream carries the `take_back` version. Blue Skies purchases can be taken back until "done" (BS-5.8)."""

from __future__ import annotations

import httpx

from tests.gateway.helpers import api_key, auth, create, read_sse
from tests.gateway.test_basics import assert_error


def _game(http: httpx.Client) -> tuple[str, str, dict[int, str]]:
    key = api_key(http)
    body = create(http, "blueskies", 2, seed=71, key=key, options={"first_player": 0}, account_seats=[0, 1])
    return body["game_id"], key, {s["seat"]: s["token"] for s in body["seats"]}


def _view(http: httpx.Client, gid: str, token: str | None = None) -> dict:
    return http.get(f"/v1/games/{gid}", headers=auth(token) if token else {}).json()


def _buy(http: httpx.Client, gid: str, token: str) -> dict:
    legal = http.get(f"/v1/games/{gid}/actions", headers=auth(token)).json()
    gate = next(a for a in legal["actions"] if a["type"] == "buy_gate")
    r = http.post(f"/v1/games/{gid}/actions", headers=auth(token),
                  json={"action": gate, "expected_version": legal["version"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_mover_takes_back_a_purchase_and_the_game_is_as_before(http: httpx.Client) -> None:
    gid, _key, tokens = _game(http)
    mover = _view(http, gid)["to_act"][0]
    other = 1 - mover
    before = _view(http, gid, tokens[mover])
    assert before["take_back"] is False
    bought = _buy(http, gid, tokens[mover])
    assert _view(http, gid, tokens[mover])["take_back"] is True
    assert _view(http, gid, tokens[other])["take_back"] is False and _view(http, gid)["take_back"] is False
    url = f"/v1/games/{gid}/take-back"

    assert_error(http.post(url, json={"expected_version": bought["version"]}), 401, "unauthenticated")
    assert_error(http.post(url, json={"expected_version": bought["version"]}, headers=auth(tokens[other])), 409,
                 "take_back_not_allowed")
    assert_error(http.post(url, json={"expected_version": bought["version"] - 1}, headers=auth(tokens[mover])), 409,
                 "stale_version")
    assert_error(http.post(url, json={"expected_version": "one"}, headers=auth(tokens[mover])), 422)
    assert_error(http.post(url, json={"expected_version": 1, "seat": 0}, headers=auth(tokens[mover])), 422)

    keyed = {**auth(tokens[mover]), "Idempotency-Key": "undo-a"}
    r = http.post(url, json={"expected_version": bought["version"]}, headers=keyed)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == {"version": bought["version"] + 1, "to_act": [mover], "status": "active", "replayed": False,
                    "events": [{"type": "taken_back", "seat": mover, "restores": before["version"]}]}
    again = http.post(url, json={"expected_version": bought["version"]}, headers=keyed).json()
    assert again == {**body, "replayed": True}

    after = _view(http, gid, tokens[mover])
    assert after["version"] == bought["version"] + 1 and after["view"] == before["view"]
    assert after["take_back"] is False  # the purchase was the turn's first decision: nothing earlier to take back
    assert_error(http.post(url, json={"expected_version": after["version"]}, headers=auth(tokens[mover])), 409,
                 "take_back_not_allowed")

    stream = read_sse(http, f"/v1/games/{gid}/events?after={bought['version']}", auth(tokens[other]), stop_after=2)
    assert stream[0].json() == {"type": "taken_back", "seat": mover, "restores": before["version"],
                                "version": after["version"]}
    assert stream[1].event == "state" and stream[1].json()["kind"] == "take_back"
    assert stream[1].json()["actor"] == mover


def test_an_account_api_key_takes_back_for_its_seat(http: httpx.Client) -> None:
    """The game's creator holds both seats (`account_seats`) with one API key: `?seat=N` names the mover's."""
    gid, key, tokens = _game(http)
    mover = _view(http, gid)["to_act"][0]
    bought = _buy(http, gid, tokens[mover])
    assert _view(http, gid, tokens[mover])["take_back"] is True
    r = http.post(f"/v1/games/{gid}/take-back?seat={mover}", json={"expected_version": bought["version"]},
                  headers=auth(key))
    assert r.status_code == 200, r.text
    assert r.json()["events"][0]["type"] == "taken_back"
