"""Seat isolation through REST: every game endpoint and the event stream, called with the tokens of the
seat itself, another seat, a seat of another game, the API key of an account holding no seat of the game (it
reads as a spectator and acts for no seat: docs/decisions/accounts.md), garbage and no token at all.

Only the seat's own token reads its hand or acts for it (TOY-1, TOY-3); everything else is a clean 401,
403 or 422 (or a spectator's public answer), never a 5xx, and changes nothing.
"""

from __future__ import annotations

import httpx

from tests.gateway.helpers import auth, create, read_sse

TOY = "toybids"


def _credentials(http: httpx.Client) -> tuple[dict, dict, dict]:
    a = create(http, TOY, 3, seed=71)
    b = create(http, TOY, 2, seed=72)
    player = http.post("/v1/players", json={"name": "mallory"})
    assert player.status_code == 201, player.text
    creds = {
        "own": a["seats"][0]["token"],
        "other_seat": a["seats"][1]["token"],
        "other_game": b["seats"][0]["token"],
        "api_key": player.json()["api_key"],
        "garbage": "x" * 40,
        "huge": "y" * 6000,
        "none": None,
    }
    return a, b, creds


def test_every_endpoint_and_stream_isolates_seats(http: httpx.Client, gateway) -> None:
    a, _b, creds = _credentials(http)
    gid = a["game_id"]
    hand = http.get(f"/v1/games/{gid}", headers=auth(creds["own"])).json()["view"]["hand"]
    assert hand
    bid = {"action": {"type": "bid", "card": hand[0]}, "expected_version": 0}
    expected = {  # credential -> (GET game, GET actions, POST seat 0's bid, GET events)
        "other_seat": (200, 200, 422, 200),
        "other_game": (403, 403, 403, 403),
        "api_key": (200, 403, 403, 200),  # an account holding no seat of the game reads as a spectator
        "garbage": (401, 401, 401, 401),
        "huge": (401, 401, 401, 401),
        "none": (200, 401, 401, 200),
    }
    with gateway.client() as stream_client:
        for name, codes in expected.items():
            token = creds[name]
            headers = auth(token) if token else {}
            answers = [
                http.get(f"/v1/games/{gid}", headers=headers),
                http.get(f"/v1/games/{gid}/actions", headers=headers),
                http.post(f"/v1/games/{gid}/actions", headers=headers, json=bid),
            ]
            if codes[3] == 200:
                events = read_sse(stream_client, f"/v1/games/{gid}/events", headers, stop_after=1)
                texts = [e.data for e in events]
            else:
                answers.append(stream_client.get(f"/v1/games/{gid}/events", headers=headers))
                texts = []
            got = tuple(r.status_code for r in answers) + ((200,) if codes[3] == 200 else ())
            assert got == codes, (name, [r.text[:200] for r in answers])
            for i, r in enumerate(answers):
                if r.status_code >= 400:
                    assert set(r.json()) == {"error"}, r.text
                if i != 2:  # the refused bid's message may quote the card the caller itself sent
                    texts.append(r.text)
            for card in hand:
                assert not any(card in text for text in texts), f"{name} saw seat 0's {card}"
            assert http.get(f"/v1/games/{gid}").json()["version"] == 0, f"{name} changed the game"
            assert http.get(f"/v1/games/{gid}/log", headers=headers).status_code == 403, "no log while active"
    r = http.post(f"/v1/games/{gid}/actions", headers=auth(creds["own"]), json=bid)
    assert r.status_code == 200 and r.json()["version"] == 1, "the seat's own token acts"


def test_tickets_are_isolated_between_players(http: httpx.Client) -> None:
    alice = http.post("/v1/players", json={"name": "alice"}).json()
    bob = http.post("/v1/players", json={"name": "bob"}).json()
    r = http.post("/v1/matchmaking/tickets", headers=auth(alice["api_key"]),
                  json={"game": TOY, "players": 2, "bots_after_s": 3600})
    assert r.status_code == 201, r.text
    tid = r.json()["ticket_id"]
    game_token = create(http, TOY, 2, seed=73)["seats"][0]["token"]
    for token, code in ((bob["api_key"], 403), (game_token, 401), ("garbage", 401), (None, 401)):
        headers = auth(token) if token else {}
        assert http.get(f"/v1/matchmaking/tickets/{tid}", headers=headers).status_code == code
        assert http.delete(f"/v1/matchmaking/tickets/{tid}", headers=headers).status_code == code
    mine = http.get(f"/v1/matchmaking/tickets/{tid}", headers=auth(alice["api_key"])).json()
    assert mine["status"] == "queued", "nobody else cancelled it"
    assert http.delete(f"/v1/matchmaking/tickets/{tid}", headers=auth(alice["api_key"])).status_code == 200
