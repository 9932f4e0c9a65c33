"""Accounts: kinds (human or bot), GET /v1/players/me, the bot rate budget, humans-only tickets and API-key
rotation, over real HTTP, Redis and the game-state service."""

from __future__ import annotations

import time

import httpx

from tests.gateway.helpers import auth
from tests.gateway.test_basics import assert_error
from tests.gateway.test_matchmaking import poll, run_matcher, ticket
from tests.rate_windows import HOUR, fresh_window
from tests.redis_required import test_redis as redis_client


def new_account(c: httpx.Client, name: str, kind: str | None = None) -> tuple[str, str]:
    body = {"name": name} if kind is None else {"name": name, "kind": kind}
    r = c.post("/v1/players", json=body)
    assert r.status_code == 201, r.text
    assert set(r.json()) == {"player_id", "api_key"}
    return r.json()["player_id"], r.json()["api_key"]


def test_an_account_is_human_by_default_or_a_flagged_bot(http: httpx.Client) -> None:
    human_id, human_key = new_account(http, "ada")
    bot_id, bot_key = new_account(http, "robo", "bot")
    assert human_key.startswith("sbk_") and not human_key.startswith("sbk_bot_")
    assert bot_key.startswith("sbk_bot_")
    me = http.get("/v1/players/me", headers=auth(bot_key)).json()
    assert me["player_id"] == bot_id and me["name"] == "robo" and me["kind"] == "bot" and me["ratings"] == {}
    assert http.get("/v1/players/me", headers=auth(human_key)).json()["kind"] == "human"
    assert http.get(f"/v1/players/{bot_id}").json()["kind"] == "bot"
    assert http.get(f"/v1/players/{human_id}").json()["kind"] == "human"
    assert_error(http.get("/v1/players/me"), 401)
    assert_error(http.get("/v1/players/me", headers=auth("sbk_nope")), 401)
    assert_error(http.post("/v1/players", json={"name": "x", "kind": "robot"}), 422)


def test_a_bot_account_key_has_its_own_budget(make_gateway) -> None:
    gw = make_gateway(rate_limit_token=3, rate_limit_bot_token=8, rate_limit_window_s=HOUR)
    with gw.client() as c:
        fresh_window()  # the counts below share one window: a boundary among them would refill both budgets
        _hid, human = new_account(c, "h")
        _bid, bot = new_account(c, "b", "bot")
        human_codes = [c.get("/v1/players/me", headers=auth(human)).status_code for _ in range(4)]
        assert human_codes == [200, 200, 200, 429]
        answers = [c.get("/v1/players/me", headers=auth(bot)) for _ in range(9)]
        assert [r.status_code for r in answers] == [200] * 8 + [429]
        assert answers[0].headers["RateLimit-Limit"] == "8"


def test_humans_only_tickets_never_meet_a_bot_account_nor_get_bot_fill(make_gateway) -> None:
    gw = make_gateway(default_bots_after_s=0)
    with gw.client() as c:
        _a, alice = new_account(c, "alice")
        _r, robo = new_account(c, "robo", "bot")
        assert_error(c.post("/v1/matchmaking/tickets", headers=auth(robo),
                            json={"game": "toybids", "players": 2, "opponents": "humans"}), 422,
                     "humans_only_for_humans")
        mine = ticket(c, alice, "toybids", 2, opponents="humans", bots_after_s=0)
        theirs = ticket(c, robo, "toybids", 2, bots_after_s=3600)
        run_matcher(gw.settings)
        assert poll(c, alice, mine)["status"] == "queued"  # no bot fill, and not seated with the bot account
        assert poll(c, robo, theirs)["status"] == "queued"
        _b, bob = new_account(c, "bob")
        other = ticket(c, bob, "toybids", 2, opponents="humans")
        run_matcher(gw.settings)
        a, b = poll(c, alice, mine), poll(c, bob, other)
        assert a["status"] == b["status"] == "matched" and a["game_id"] == b["game_id"]
        assert c.get(f"/v1/games/{a['game_id']}").json()["bots"] == {}
        assert poll(c, robo, theirs)["status"] == "queued"


def test_a_rotated_key_replaces_the_old_one_after_the_grace_period(make_gateway) -> None:
    gw = make_gateway(api_key_grace_s=1)
    with gw.client() as c:
        pid, old = new_account(c, "rot", "bot")
        r = c.post("/v1/players/me/keys", headers=auth(old))
        assert r.status_code == 201, r.text
        new = r.json()["api_key"]
        assert new != old and new.startswith("sbk_bot_") and r.json()["previous_key_valid_s"] == 1
        assert c.get("/v1/players/me", headers=auth(old)).json()["player_id"] == pid  # within the grace period
        assert c.get("/v1/players/me", headers=auth(new)).json()["player_id"] == pid
        time.sleep(1.3)
        assert_error(c.get("/v1/players/me", headers=auth(old)), 401)
        assert c.get("/v1/players/me", headers=auth(new)).json()["player_id"] == pid
        # a second rotation with the newest key: that one goes into its grace, the first stays gone
        newer = c.post("/v1/players/me/keys", headers=auth(new)).json()["api_key"]
        assert c.get("/v1/players/me", headers=auth(new)).status_code == 200
        assert c.get("/v1/players/me", headers=auth(newer)).status_code == 200
        assert_error(c.post("/v1/players/me/keys", headers=auth(old)), 401)


def test_without_a_grace_period_the_old_key_stops_at_once(make_gateway) -> None:
    gw = make_gateway(api_key_grace_s=0)
    with gw.client() as c:
        _pid, old = new_account(c, "now")
        new = c.post("/v1/players/me/keys", headers=auth(old)).json()["api_key"]
        assert_error(c.get("/v1/players/me", headers=auth(old)), 401)
        assert c.get("/v1/players/me", headers=auth(new)).status_code == 200


def test_keys_are_stored_only_hashed(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        _pid, key = new_account(c, "hash")
        new = c.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]
    rdb = redis_client(gw.settings.redis_url, decode_responses=True)
    try:
        for k in rdb.scan_iter(match=f"{gw.settings.key_prefix}*"):
            kind = rdb.type(k)
            values = ([rdb.get(k)] if kind == "string" else list(rdb.hgetall(k).values()) if kind == "hash" else [])
            assert not any(secret in (v or "") for v in values for secret in (key, new))
            assert key not in k and new not in k
    finally:
        rdb.close()
