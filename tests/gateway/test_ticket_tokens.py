"""A matched ticket's seat token: never in clear in Redis, handed out by exactly one poll, then gone."""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import redis

from services.accounts.keys import Keys
from services.accounts.sealing import seal, unseal
from tests.gateway.helpers import auth
from tests.gateway.test_matchmaking import new_player, poll, run_matcher, ticket
from tests.run_id import RUN

#: A seat token in clear: `sbt_` that starts a value or follows a character outside base64url (a quote, a colon).
#: A sealed token is base64url text, in which the four characters `sbt_` turn up by chance (a CI run met one).
CLEAR_TOKEN = re.compile(r"(?<![A-Za-z0-9_-])sbt_")


def clear_tokens(rdb: redis.Redis) -> list[str]:
    """Every key of this test run holding a seat token in clear (they start with sbt_), in any value type."""
    found = []
    for key in rdb.scan_iter(match=f"sbgwtest{RUN}:*", count=1000):
        kind = rdb.type(key)
        if kind == "string":
            texts = [rdb.get(key) or ""]
        elif kind == "hash":
            texts = [x for kv in rdb.hgetall(key).items() for x in kv]
        elif kind == "list":
            texts = rdb.lrange(key, 0, -1)
        elif kind == "set":
            texts = list(rdb.smembers(key))
        elif kind == "zset":
            texts = rdb.zrange(key, 0, -1)
        elif kind == "stream":
            texts = [x for _id, fields in rdb.xrange(key) for kv in fields.items() for x in kv]
        else:
            texts = []
        if any(CLEAR_TOKEN.search(t) for t in [key, *texts]):
            found.append(key)
    return found


def matched_pair(c, settings) -> tuple[tuple[str, str], tuple[str, str], str]:
    """Two players' (api key, ticket id) matched into one game, and its id."""
    (_a, ka), (_b, kb) = new_player(c, "ta"), new_player(c, "tb")
    ta, tb = ticket(c, ka, "toybids", 2), ticket(c, kb, "toybids", 2)
    (game_id,) = run_matcher(settings)
    return (ka, ta), (kb, tb), game_id


def test_the_token_is_never_in_clear_in_redis_and_only_the_first_poll_gets_it(make_gateway, rdb) -> None:
    gw = make_gateway()
    with gw.client() as c:
        (ka, ta), (kb, tb), game_id = matched_pair(c, gw.settings)
        assert clear_tokens(rdb) == [], "a matched ticket keeps its seat token in clear"
        first = poll(c, ka, ta)
        assert first["status"] == "matched" and first["game_id"] == game_id and first["token_delivered"]
        assert first["token"].startswith("sbt_") and first["note"] is None
        assert c.get(f"/v1/games/{game_id}", headers=auth(first["token"])).json()["seat"] == first["seat"]
        second = poll(c, ka, ta)
        assert (second["status"], second["game_id"], second["seat"]) == ("matched", game_id, first["seat"])
        assert second["token"] is None and second["token_delivered"] and "earlier poll" in second["note"]
        other = poll(c, kb, tb)
        assert other["token"].startswith("sbt_") and other["seat"] == 1 - first["seat"]
        assert clear_tokens(rdb) == []
        ticket_hash = rdb.hgetall(Keys(gw.settings.key_prefix).ticket(ta))
        assert ticket_hash and not any("token" in f for f in ticket_hash if f != "token_delivered_ms"), ticket_hash
        described = c.get("/openapi.json").json()["paths"]["/v1/matchmaking/tickets/{ticket_id}"]["get"]
        assert "once" in described["description"]


def test_concurrent_first_polls_hand_the_token_out_once(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        (ka, ta), _b, _game_id = matched_pair(c, gw.settings)
    start = threading.Barrier(8)

    def one(_i: int) -> dict:
        with gw.client() as client:
            start.wait(10)
            return poll(client, ka, ta)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(8)))
    assert all(r["status"] == "matched" and r["token_delivered"] for r in results)
    assert len([r for r in results if r["token"]]) == 1


def test_a_ticket_matched_before_the_seal_hands_its_clear_token_out_once_too(make_gateway, rdb) -> None:
    """Tickets a matchmaker of the previous release matched keep the token in clear (`token`): the first poll
    takes it off Redis as well."""
    gw = make_gateway()
    with gw.client() as c:
        (ka, ta), _b, _game_id = matched_pair(c, gw.settings)
        key = Keys(gw.settings.key_prefix).ticket(ta)
        rdb.hdel(key, "token_sealed")
        rdb.hset(key, "token", "sbt_from-the-previous-release")
        assert poll(c, ka, ta)["token"] == "sbt_from-the-previous-release"
        assert poll(c, ka, ta)["token"] is None
        assert not rdb.hexists(key, "token")


def test_a_sealed_token_opens_only_with_its_secret_and_ticket() -> None:
    ticket_id, other = "a" * 32, "b" * 32
    sealed = seal("secret-1", ticket_id, "sbt_xyz")
    assert not CLEAR_TOKEN.search(sealed)
    assert sealed != seal("secret-1", ticket_id, "sbt_xyz")  # a fresh nonce each time
    assert unseal("secret-1", ticket_id, sealed) == "sbt_xyz"
    assert unseal("secret-2", ticket_id, sealed) is None
    assert unseal("secret-1", other, sealed) is None
    flipped = sealed[:-5] + ("A" if sealed[-5] != "A" else "B") + sealed[-4:]
    assert unseal("secret-1", ticket_id, flipped) is None
    assert unseal("secret-1", ticket_id, "not sealed") is None
