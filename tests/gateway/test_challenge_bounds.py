"""Challenges cannot flood (docs/decisions/abuse-bounds.md): pending ones are bounded per sender and per recipient, and
however many events an account stream gets, the `game_start` that carries a challenger's only seat token is never
trimmed."""

from __future__ import annotations

import json

from services.accounts import events as account_events
from services.accounts.keys import Keys
from tests.gateway.conftest import new_prefix
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_basics import assert_error
from tests.gateway.test_challenges import challenge, events


def test_pending_challenges_are_bounded_per_sender(make_gateway) -> None:
    gw = make_gateway(challenges_per_sender=3, challenges_per_recipient=100)
    with gw.client() as c:
        _a, ka = new_account(c, "sender")
        targets = [new_account(c, f"t{i}")[0] for i in range(5)]
        sent = [challenge(c, ka, to) for to in targets[:3]]
        r = c.post("/v1/challenges", headers=auth(ka), json={"to": targets[3], "game": "toybids"})
        assert_error(r, 429, "too_many_challenges")
        assert c.delete(f"/v1/challenges/{sent[0]['challenge_id']}", headers=auth(ka)).status_code == 200
        challenge(c, ka, targets[4])  # a cancelled one no longer counts


def test_pending_challenges_are_bounded_per_recipient(make_gateway) -> None:
    gw = make_gateway(challenges_per_sender=100, challenges_per_recipient=2)
    with gw.client() as c:
        to, kt = new_account(c, "popular")
        senders = [new_account(c, f"s{i}")[1] for i in range(3)]
        first = challenge(c, senders[0], to)
        challenge(c, senders[1], to)
        assert_error(c.post("/v1/challenges", headers=auth(senders[2]), json={"to": to, "game": "toybids"}),
                     429, "too_many_challenges")
        assert c.post(f"/v1/challenges/{first['challenge_id']}/decline", headers=auth(kt)).status_code == 200
        challenge(c, senders[2], to)


def test_a_flood_never_trims_the_game_start_that_carries_a_seat_token(make_gateway) -> None:
    gw = make_gateway(account_events_maxlen=10, challenges_per_sender=0, challenges_per_recipient=0)
    with gw.client() as c:
        _a, ka = new_account(c, "challenger")
        b, kb = new_account(c, "accepter")
        cid = challenge(c, ka, b)["challenge_id"]
        accepted = c.post(f"/v1/challenges/{cid}/accept", headers=auth(kb))
        assert accepted.status_code == 200, accepted.text
        game_id = accepted.json()["game_id"]
        _flooder, kf = new_account(c, "flooder")
        for _ in range(300):  # each is a `challenge` event on the challenger's stream
            r = c.post("/v1/challenges", headers=auth(kf), json={"to": _a, "game": "toybids"})
            assert r.status_code == 201, r.text
        kept = events(c, ka, lambda es: sum(e.event == "challenge" for e in es) >= 9)
        assert len(kept) <= 12, f"the stream stays bounded: {len(kept)} events"
        starts = [e.json() for e in kept if e.event == "game_start"]
        assert len(starts) == 1 and starts[0]["game_id"] == game_id
        assert starts[0]["token"], "the seat token was delivered, not trimmed away"


def test_the_turn_followers_events_never_trim_a_pending_seat_token(rdb) -> None:
    """The follower publishes `your_turn` / `game_end` with its own script; it trims the same way."""
    keys = Keys(new_prefix())
    stream, sent = keys.account_events("p1"), keys.follow_sent("p1", "g2")
    appended = account_events.append_keys(keys, "p1")
    start = json.dumps({"game_id": "g1", "seat": 0, "token_pending": True}, separators=(",", ":"))
    add = {"type": "game_start", "data": start, "maxlen": 10, "minid": "0-0", "ttl": 3600, "hook": ""}
    account_events.ADD.register(rdb)(keys=appended, args=add)
    publish = account_events.PUBLISH_TURNS.register(rdb)
    for version in range(1, 301):
        turn = json.dumps({"game_id": "g2", "seat": 1, "version": version, "deadline": None})
        assert publish(keys={"sent": sent, **appended},
                       args={"version": version, "minid": "0-0", "maxlen": 10, "keep": 3600,
                             "events": ["your_turn", turn]}) == 1
    assert publish(keys={"sent": sent, **appended}, args={
        "version": 300, "minid": "0-0", "maxlen": 10, "keep": 3600, "events": ["your_turn", "{}"]}) == 0, \
        "a version already published to this account is never published again"
    kept = rdb.xrange(stream)
    assert len(kept) == 10
    assert kept[0][1] == {"type": "game_start", "data": start}, "the pending token's entry survived 300 turns"
    assert json.loads(kept[-1][1]["data"])["version"] == 300
