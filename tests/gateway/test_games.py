"""Game endpoints over real HTTP and a real game-state service, on the service tests' sealed-bid toy game
(TOY-n rules in tests/services/toygame.py): hidden hands, simultaneous decisions, chance."""

from __future__ import annotations

import random
import threading

import httpx
import pytest

from tests.gateway.helpers import api_key, auth, create, play_random, read_sse
from tests.gateway.test_basics import assert_error

TOY = "toybids"


def snapshot(http: httpx.Client, game_id: str, token: str) -> dict:
    return http.get(f"/v1/games/{game_id}", headers=auth(token)).json()


@pytest.fixture
def toy(http: httpx.Client) -> dict:
    created = create(http, TOY, 2, seed=11)
    created["tokens"] = {s["seat"]: s["token"] for s in created["seats"]}
    return created


def test_create_returns_a_token_per_human_seat_and_none_for_bots(http: httpx.Client) -> None:
    body = create(http, TOY, 3, bots={"2": "random"})
    assert [s["seat"] for s in body["seats"]] == [0, 1, 2]
    assert body["seats"][2] == {"seat": 2, "token": None, "bot": "random"}
    assert all(s["token"] and s["bot"] is None for s in body["seats"][:2])
    assert len({s["token"] for s in body["seats"][:2]}) == 2


@pytest.mark.parametrize("payload", [
    {"game": TOY, "players": 2, "bots": {"1": "mcts-impossible"}},
    {"game": TOY, "players": 2, "bots": {"7": "random"}},
    {"game": TOY, "players": 2, "bots": {"one": "random"}},
    {"game": "no-such-game", "players": 2},
    {"game": TOY, "players": 9},
    {"game": TOY, "players": 2, "options": {"rounds": 99}},
    {"game": TOY, "players": 2, "options": {"colour": "red"}},
    {"game": TOY, "players": 2, "seed": -1},
    {"game": TOY, "players": 2, "surprise": 1},
])
def test_bad_creations_are_422(http: httpx.Client, payload: dict) -> None:
    assert_error(http.post("/v1/games", json=payload, headers=auth(api_key(http))), 422)


def test_a_seat_sees_its_hand_and_a_spectator_does_not(http: httpx.Client, toy: dict) -> None:
    gid, tokens = toy["game_id"], toy["tokens"]
    spectator = http.get(f"/v1/games/{gid}").json()
    assert spectator["seat"] is None and "hand" not in spectator["view"]
    assert spectator["status"] == "active" and spectator["to_act"] == [0, 1] and spectator["winners"] is None
    me = snapshot(http, gid, tokens[0])
    assert me["seat"] == 0 and len(me["view"]["hand"]) == 3 and me["version"] == spectator["version"]
    legal = http.get(f"/v1/games/{gid}/actions", headers=auth(tokens[0])).json()
    assert legal == {"version": me["version"], "seat": 0,
                     "actions": [{"type": "bid", "card": c} for c in me["view"]["hand"]]}


def test_every_error_code_leaves_the_game_unchanged(http: httpx.Client, toy: dict) -> None:
    gid, tokens = toy["game_id"], toy["tokens"]
    other = create(http, TOY, 2, seed=12)["seats"][0]["token"]
    before = [snapshot(http, gid, t) for t in tokens.values()]
    version = before[0]["version"]
    card = before[0]["view"]["hand"][0]
    url = f"/v1/games/{gid}/actions"
    good = {"action": {"type": "bid", "card": card}, "expected_version": version}

    assert_error(http.post(url, json=good), 401, "unauthenticated")
    assert_error(http.get(url), 401, "unauthenticated")
    assert_error(http.post(url, json=good, headers=auth("not-a-token")), 401, "unauthenticated")
    assert_error(http.post(url, json=good, headers={"Authorization": "Basic abc"}), 401)
    assert_error(http.post(url, json=good, headers=auth(other)), 403, "forbidden")
    assert_error(http.get(url, headers=auth(other)), 403, "forbidden")
    assert_error(http.get(f"/v1/games/{gid}", headers=auth(other)), 403)
    assert_error(http.post(url, json={**good, "expected_version": version + 5}, headers=auth(tokens[0])), 409,
                 "stale_version")
    assert_error(http.post(url, json={"action": {"type": "fly"}, "expected_version": version},
                           headers=auth(tokens[0])), 422)
    assert_error(http.post(url, json={"action": {"type": "bid", "card": 7}, "expected_version": version},
                           headers=auth(tokens[0])), 422)
    assert_error(http.post(url, json={"action": {"type": "bid", "card": card}}, headers=auth(tokens[0])), 422)
    illegal = assert_error(http.post(url, json={"action": {"type": "bid", "card": "card-1"},
                                                "expected_version": version}, headers=auth(tokens[0])), 422)
    assert illegal["rule"] == "TOY-3"
    assert_error(http.post("/v1/games/nosuchgame/actions", json=good, headers=auth(tokens[0])), 404, "not_found")
    assert_error(http.get("/v1/games/nosuchgame"), 404, "not_found")
    assert_error(http.get("/v1/games/bad%20id!"), 404)
    assert_error(http.post(url, json=good, headers={**auth(tokens[0]), "Idempotency-Key": "bad key"}), 422)
    assert [snapshot(http, gid, t) for t in tokens.values()] == before

    # not your turn (TOY-2): seat 0 bids, then tries again in the same round
    r = http.post(url, json=good, headers=auth(tokens[0]))
    assert r.status_code == 200
    mid = [snapshot(http, gid, t) for t in tokens.values()]
    again = {"action": {"type": "bid", "card": mid[0]["view"]["hand"][0]}, "expected_version": mid[0]["version"]}
    assert assert_error(http.post(url, json=again, headers=auth(tokens[0])), 422)["rule"] == "TOY-2"
    assert http.get(url, headers=auth(tokens[0])).json()["actions"] == []
    assert [snapshot(http, gid, t) for t in tokens.values()] == mid


def test_idempotent_retries_apply_once(http: httpx.Client, toy: dict) -> None:
    gid, tokens = toy["game_id"], toy["tokens"]
    me = snapshot(http, gid, tokens[1])
    body = {"action": {"type": "bid", "card": me["view"]["hand"][-1]}, "expected_version": me["version"]}
    headers = {**auth(tokens[1]), "Idempotency-Key": "retry-1"}
    first = http.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
    second = http.post(f"/v1/games/{gid}/actions", json=body, headers=headers)
    assert first.status_code == second.status_code == 200
    assert {**first.json(), "replayed": True} == second.json() and first.json()["replayed"] is False
    after = snapshot(http, gid, tokens[1])
    assert after["version"] == me["version"] + 1 and len(after["view"]["hand"]) == 2


def test_log_is_forbidden_while_active_and_replayable_after(http: httpx.Client, toy: dict) -> None:
    gid, tokens = toy["game_id"], toy["tokens"]
    assert_error(http.get(f"/v1/games/{gid}/log"), 403, "game_active")
    steps = play_random(http, gid, tokens, random.Random(3))
    log = http.get(f"/v1/games/{gid}/log").json()
    assert log["seed"] == 11 and len(log["actions"]) == steps and log["game"] == TOY
    final = http.get(f"/v1/games/{gid}").json()
    assert final["status"] == "finished" and final["winners"] and final["to_act"] == []
    assert final["scores"] == log["scores"]
    assert_error(http.get("/v1/games/nosuchgame/log"), 404)


def test_seat_isolation_across_endpoints_and_streams(http: httpx.Client, gateway) -> None:
    """No endpoint or stream shows a seat's cards (hand, sealed bid) to another seat or a spectator
    before the bids are revealed (TOY-1, TOY-4)."""
    players = 3
    created = create(http, TOY, players, seed=21)
    gid = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    hands = {s: set(snapshot(http, gid, t)["view"]["hand"]) for s, t in tokens.items()}
    seen: dict[int | None, list[tuple[int, str]]] = {s: [] for s in [*tokens, None]}
    rng = random.Random(5)
    status = "active"
    while status == "active":
        for s, t in tokens.items():
            r = http.get(f"/v1/games/{gid}", headers=auth(t))
            seen[s].append((r.json()["version"], r.text))
            r = http.get(f"/v1/games/{gid}/actions", headers=auth(t))
            seen[s].append((r.json()["version"], r.text))
        r = http.get(f"/v1/games/{gid}")
        seen[None].append((r.json()["version"], r.text))
        seat = rng.choice(r.json()["to_act"])
        legal = http.get(f"/v1/games/{gid}/actions", headers=auth(tokens[seat])).json()
        r = http.post(f"/v1/games/{gid}/actions", headers=auth(tokens[seat]),
                      json={"action": rng.choice(legal["actions"]), "expected_version": legal["version"]})
        seen[seat].append((r.json()["version"], r.text))
        status = r.json()["status"]
    with gateway.client() as c:
        for s, t in tokens.items():
            seen[s] += [(int(e.id), e.data) for e in read_sse(c, f"/v1/games/{gid}/events", auth(t))]
        seen[None] += [(int(e.id), e.data) for e in read_sse(c, f"/v1/games/{gid}/events")]
    log = http.get(f"/v1/games/{gid}/log").json()["actions"]
    revealed_at = {}
    for start in range(0, len(log), players):  # each round is one bid per seat, revealed by its last bid
        round_ = log[start:start + players]
        for entry in round_:
            revealed_at[entry["action"]["card"]] = round_[-1]["v"]
    for owner, cards in hands.items():
        assert any(card in text for _v, text in seen[owner] for card in cards), "the owner sees its cards"
        for viewer, texts in seen.items():
            if viewer == owner:
                continue
            for card in cards:
                leaks = [v for v, text in texts if card in text and v < revealed_at[card]]
                assert not leaks, f"{viewer} saw seat {owner}'s {card} at versions {leaks}"


def test_sse_streams_events_with_version_ids_and_resumes(http: httpx.Client, gateway, toy: dict) -> None:
    gid, tokens = toy["game_id"], toy["tokens"]
    received: list = []
    with gateway.client() as c:
        reader = threading.Thread(target=lambda: received.extend(read_sse(c, f"/v1/games/{gid}/events",
                                                                          auth(tokens[0]))))
        reader.start()
        play_random(http, gid, tokens, random.Random(8))
        reader.join(20)
        assert not reader.is_alive(), "the stream ends after the game ends"
        assert received[-1].event == "end" and received[-1].json()["status"] == "finished"
        states = [e for e in received if e.event == "state"]
        versions = [int(e.id) for e in states]
        final = http.get(f"/v1/games/{gid}").json()["version"]
        assert versions == list(range(versions[0], final + 1)), "one state event per version, no gaps"
        for e in received:
            if e.event == "message":
                assert e.json()["version"] == int(e.id)
        cut = versions[len(versions) // 2]
        resumed = read_sse(c, f"/v1/games/{gid}/events", {**auth(tokens[0]), "Last-Event-ID": str(cut)})
        tail = [(e.event, e.id, e.data) for e in received if int(e.id) > cut]
        assert [(e.event, e.id, e.data) for e in resumed] == tail
        by_query = read_sse(c, f"/v1/games/{gid}/events?after={cut}", auth(tokens[0]))
        assert [(e.event, e.id, e.data) for e in by_query] == tail
        assert_error(c.get(f"/v1/games/{gid}/events", headers=auth("nope")), 401)
        assert_error(c.get("/v1/games/nosuchgame/events"), 404)
        assert_error(c.get(f"/v1/games/{gid}/events", headers={"Last-Event-ID": "x"}), 422)


def test_sse_sends_keep_alive_comments(gateway, toy: dict) -> None:
    with gateway.client() as c:
        got = []
        with c.stream("GET", f"/v1/games/{toy['game_id']}/events") as r:
            for line in r.iter_lines():
                got.append(line)
                if line.startswith(":"):
                    break
        assert any(line.startswith(":") for line in got)


def test_submit_answers_say_whether_they_were_replayed_and_a_stale_409_names_the_version(
    http: httpx.Client, toy: dict
) -> None:
    gid, token = toy["game_id"], toy["tokens"][0]
    hand = http.get(f"/v1/games/{gid}", headers=auth(token)).json()["view"]["hand"]
    body = {"action": {"type": "bid", "card": hand[0]}, "expected_version": 0}
    headers = {**auth(token), "Idempotency-Key": "k-1"}
    first = http.post(f"/v1/games/{gid}/actions", json=body, headers=headers).json()
    again = http.post(f"/v1/games/{gid}/actions", json=body, headers=headers).json()
    assert first["replayed"] is False and again["replayed"] is True and again["version"] == first["version"]
    stale = http.post(f"/v1/games/{gid}/actions", json={**body, "expected_version": 0}, headers=auth(toy["tokens"][1]))
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "stale_version"
    assert stale.json()["error"]["current_version"] == first["version"]


def test_games_are_listed_by_status_and_title_over_rest(http: httpx.Client) -> None:
    """What gRPC ListGames gives, over REST too: newest first, filtered, bounded, bad filters refused."""
    first = create(http, TOY, 2, seed=31)["game_id"]
    second = create(http, TOY, 2, seed=32, bots={"1": "random"})["game_id"]
    listed = http.get("/v1/games", params={"status": "active", "game": TOY, "limit": 500}).json()["games"]
    ids = [g["game_id"] for g in listed]
    assert ids.index(second) < ids.index(first), "newest first"
    mine = next(g for g in listed if g["game_id"] == second)
    assert mine["status"] == "active" and mine["players"] == 2 and mine["bots"] == {"1": "random"}
    assert len(http.get("/v1/games", params={"limit": 1}).json()["games"]) == 1
    assert_error(http.get("/v1/games", params={"status": "paused"}), 422)
    assert_error(http.get("/v1/games", params={"game": "no-such-game"}), 422)
    assert_error(http.get("/v1/games", params={"limit": 0}), 422)
