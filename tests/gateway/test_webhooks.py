"""Webhooks (services/webhooks/, docs/webhooks.md) over the real gateway, Redis, SQL, outcomes consumer and a real
HTTP receiver: registration and its refusals (SSRF, the cap), secrets sealed at rest, Standard Webhooks signatures
checked by the `standardwebhooks` library and by the spec's algorithm written out here, retries on a backoff
schedule read at injected clock values, disabling, the delivery log, redelivery and secret rotation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
import redis
from prometheus_client import REGISTRY
from standardwebhooks.webhooks import Webhook as StandardWebhook
from standardwebhooks.webhooks import WebhookVerificationError

from services.accounts.events import ADD, append_keys, webhook_type
from services.accounts.keys import Keys
from services.webhooks.schedule import step_s
from tests import redis_required
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_challenges import challenge, events
from tests.gateway.test_matchmaking import run_matcher, ticket
from tests.gateway.webhook_receiver import Driver, Receiver
from tests.redis_required import CLUSTER


@pytest.fixture
def gw(make_gateway):
    return make_gateway(challenge_ttl_s=600, challenges_per_sender=0, challenges_per_recipient=0)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def register(c: httpx.Client, key: str, url: str, kinds: list[str] | None = None) -> dict:
    r = c.post("/v1/players/me/webhooks", headers=auth(key), json={"url": url, "events": kinds or ["challenge"]})
    assert r.status_code == 201, r.text
    return r.json()


def spec_verify(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """The Standard Webhooks check written from the spec, independent of the server's code and of the library."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(sig == f"v1,{expected}" for sig in headers["webhook-signature"].split(" "))


def log_of(c: httpx.Client, key: str, hook_id: str) -> list[dict]:
    r = c.get(f"/v1/players/me/webhooks/{hook_id}/deliveries", headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()["deliveries"]


def test_a_challenge_reaches_the_webhook_signed_as_the_standard_says(gw, receiver: Receiver, rdb: redis.Redis):
    with gw.client() as c:
        a_id, a_key = new_account(c, "wh-a")
        b_id, b_key = new_account(c, "wh-b")
        made = register(c, b_key, receiver.url)
        secret = made["secret"]
        assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
        listed = c.get("/v1/players/me/webhooks", headers=auth(b_key)).json()["webhooks"]
        assert [h["webhook_id"] for h in listed] == [made["webhook_id"]] and "secret" not in listed[0]
        stored = rdb.hgetall(Keys(gw.settings.key_prefix).webhooks(b_id))
        assert secret not in json.dumps(stored) and secret[6:] not in json.dumps(stored), "sealed at rest"

        ch = challenge(c, a_key, b_id)
        Driver(gw.settings).until(lambda: receiver.received)
        got = receiver.received[0]
        assert StandardWebhook(secret).verify(got.body, got.headers) == json.loads(got.body)
        assert spec_verify(secret, got.headers, got.body)
        payload = json.loads(got.body)
        assert payload["type"] == "challenge" and payload["data"]["challenge"]["challenge_id"] == ch["challenge_id"]
        stream = events(c, b_key, lambda es: any(e.event == "challenge" for e in es))
        entry = next(e for e in stream if e.event == "challenge")
        assert got.headers["webhook-id"] == f"msg_{made['webhook_id']}_{entry.id}", (
            "the webhook-id names the webhook and the account-stream entry")
        assert payload["data"] == entry.json(), "the webhook carries what the account stream carries"
        tampered = got.body.replace(b"challenge", b"challengE", 1)
        with pytest.raises(WebhookVerificationError):
            StandardWebhook(secret).verify(tampered, got.headers)
        assert not spec_verify(secret, got.headers, tampered)
        [entry_log] = log_of(c, b_key, made["webhook_id"])
        assert entry_log["status_code"] == 204 and entry_log["attempt"] == 1 and entry_log["outcome"] == "delivered"
        assert entry_log["latency_ms"] >= 0 and entry_log["delivery_id"] == got.headers["webhook-id"]
        assert not receiver.received[1:], "the challenger's stream has no webhook: nothing else was sent"
        assert a_id


def test_your_turn_and_game_end_follow_the_game_through_the_outcomes_consumer(gw, receiver: Receiver):
    with gw.client() as c:
        _pid, key = new_account(c, "wh-game")
        register(c, key, receiver.url, ["your_turn", "game_end"])
        r = c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": 3,
                                                         "account_seats": [0, 1]})
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        driver = Driver(gw.settings)
        driver.until(lambda: any(json.loads(x.body)["type"] == "your_turn" for x in receiver.received))
        first = json.loads(receiver.received[0].body)
        assert first["data"]["game_id"] == game_id and first["data"]["seat"] in (0, 1)
        for seat in (0, 1):
            assert c.post(f"/v1/games/{game_id}/resign?seat={seat}", headers=auth(key)).status_code == 200
            if c.get(f"/v1/games/{game_id}", headers=auth(key), params={"seat": 1}).json()["status"] != "active":
                break
        driver.until(lambda: any(json.loads(x.body)["type"] == "game_end" for x in receiver.received))
        ends = [json.loads(x.body)["data"] for x in receiver.received if json.loads(x.body)["type"] == "game_end"]
        assert {e["game_id"] for e in ends} == {game_id} and {e["seat"] for e in ends} == {0, 1}


def test_a_match_found_by_the_matchmaker_reaches_the_webhook(gw, receiver: Receiver):
    """`match_found` is the account stream's `game_start` that the matchmaker writes (it names the ticket); a
    challenge's `game_start` is no `match_found`."""
    with gw.client() as c:
        players = [new_account(c, f"wh-mm-{i}") for i in range(2)]
        hooks = [register(c, key, receiver.url, ["match_found"]) for _pid, key in players]
        tickets = [ticket(c, key, "toybids", 2) for _pid, key in players]
        assert len(run_matcher(gw.settings)) == 1
        Driver(gw.settings).until(lambda: len(receiver.received) >= 2)
        got = [(r, json.loads(r.body)) for r in receiver.received]
        assert {b["type"] for _r, b in got} == {"match_found"}
        assert {b["data"]["ticket_id"] for _r, b in got} == set(tickets)
        assert len({b["data"]["game_id"] for _r, b in got}) == 1
        secrets_by_ticket = {t: h["secret"] for t, h in zip(tickets, hooks, strict=True)}
        for r, b in got:
            StandardWebhook(secrets_by_ticket[b["data"]["ticket_id"]]).verify(r.body, r.headers)


def test_the_webhook_event_type_of_each_account_event() -> None:
    assert webhook_type("game_start", {"ticket_id": "t", "game_id": "g"}) == "match_found"
    assert webhook_type("game_start", {"challenge_id": "c", "game_id": "g"}) == ""
    assert webhook_type("game_start", {"game_id": "g", "ongoing": True}) == ""
    for kind in ("your_turn", "game_end", "challenge"):
        assert webhook_type(kind, {}) == kind
    for kind in ("challenge_closed", "webhook_disabled"):
        assert webhook_type(kind, {}) == ""


def test_failures_are_retried_on_the_backoff_schedule_then_delivered(gw, rdb: redis.Redis):
    receiver = Receiver(status=[500, 503, 200])
    try:
        with gw.client() as c:
            _a, a_key = new_account(c, "wh-r-a")
            b_id, b_key = new_account(c, "wh-r-b")
            hook = register(c, b_key, receiver.url)
            challenge(c, a_key, b_id)
            driver = Driver(gw.settings, seed=11)
            t0 = int(time.time() * 1000) + 1000
            before = {o: _counted(o) for o in ("retry", "delivered")}
            assert driver.run(t0) == 1
            [first] = log_of(c, b_key, hook["webhook_id"])
            assert (first["outcome"], first["status_code"], first["attempt"]) == ("retry", 500, 1)
            wait = first["next_attempt_ms"] - t0
            assert step_s(1) * 500 <= wait <= step_s(1) * 1000, "the first retry: 2.5-5 s later (equal jitter)"
            assert driver.run(first["next_attempt_ms"] - 1) == 0, "nothing is tried before it is due"
            t1 = first["next_attempt_ms"]
            assert driver.run(t1) == 1
            second = log_of(c, b_key, hook["webhook_id"])[0]
            assert (second["outcome"], second["status_code"], second["attempt"]) == ("retry", 503, 2)
            assert step_s(2) * 500 <= second["next_attempt_ms"] - t1 <= step_s(2) * 1000, "5-10 s: doubled"
            assert driver.run(second["next_attempt_ms"]) == 1
            third = log_of(c, b_key, hook["webhook_id"])[0]
            assert (third["outcome"], third["status_code"], third["attempt"]) == ("delivered", 200, 3)
            assert len({r.headers["webhook-id"] for r in receiver.received}) == 1, "one webhook-id on every retry"
            assert (_counted("retry") - before["retry"], _counted("delivered") - before["delivered"]) == (2, 1)
            assert len({r.body for r in receiver.received}) == 1, "the same body on every retry"
            keys = Keys(gw.settings.key_prefix)
            assert rdb.zcard(keys.webhook_due(b_id)) == 0 and not rdb.hgetall(keys.webhook_failing(b_id))
    finally:
        receiver.close()


def _counted(outcome: str) -> float:
    """skyboard_webhook_deliveries_total{outcome} of this process (the in-process deliverer's)."""
    return REGISTRY.get_sample_value("skyboard_webhook_deliveries_total", {"outcome": outcome}) or 0.0


def test_the_schedule_doubles_up_to_two_hours_and_gives_up_after_a_day() -> None:
    import random

    from services.webhooks.schedule import next_due_ms, retry_delay_s

    rng = random.Random(1)
    assert [step_s(n) for n in (1, 2, 3, 11, 12, 20)] == [5, 10, 20, 5120, 7200, 7200]
    for n in range(1, 30):
        assert step_s(n) / 2 <= retry_delay_s(n, rng) <= step_s(n)
    since, now, attempt = 0, 0, 0
    while (due := next_due_ms(since, attempt + 1, now, 86_400, rng)) is not None:
        attempt, now = attempt + 1, due
    assert now <= 86_400_000 and attempt >= 12, (attempt, now)


def test_a_webhook_that_keeps_failing_is_disabled_and_the_account_is_told(gw, rdb: redis.Redis):
    receiver = Receiver(status=500)
    try:
        with gw.client() as c:
            _a, a_key = new_account(c, "wh-d-a")
            b_id, b_key = new_account(c, "wh-d-b")
            hook = register(c, b_key, receiver.url)
            challenge(c, a_key, b_id)
            driver = Driver(gw.settings, disable_after_s=600, retry_for_s=86_400)
            t0 = int(time.time() * 1000) + 1000
            driver.run(t0)
            assert c.get(f"/v1/players/me/webhooks/{hook['webhook_id']}", headers=auth(b_key)).json()["enabled"]
            driver.run(t0 + 600_000)
            got = c.get(f"/v1/players/me/webhooks/{hook['webhook_id']}", headers=auth(b_key)).json()
            assert not got["enabled"] and got["disabled"]["failing_since_ms"] == t0, got
            told = events(c, b_key, lambda es: any(e.event == "webhook_disabled" for e in es))
            [said] = [e.json() for e in told if e.event == "webhook_disabled"]
            assert said["webhook_id"] == hook["webhook_id"] and said["url"] == receiver.url
            keys = Keys(gw.settings.key_prefix)
            assert rdb.zcard(keys.webhook_due(b_id)) == 0, "its queue is dropped"
            challenge(c, a_key, b_id)
            assert rdb.zcard(keys.webhook_due(b_id)) == 0, "a disabled webhook is sent nothing new"
            r = c.post(f"/v1/players/me/webhooks/{hook['webhook_id']}/deliveries/"
                       f"{log_of(c, b_key, hook['webhook_id'])[0]['delivery_id']}/redeliver", headers=auth(b_key))
            assert (r.status_code, r.json()["error"]["code"]) == (409, "webhook_disabled")
            r = c.post(f"/v1/players/me/webhooks/{hook['webhook_id']}/enable", headers=auth(b_key))
            assert r.status_code == 200 and r.json()["enabled"] and r.json()["disabled"] is None
            challenge(c, a_key, b_id)
            assert rdb.zcard(keys.webhook_due(b_id)) == 1, "enabled again: new events are queued"
    finally:
        receiver.close()


def test_a_delivery_failing_for_the_retry_window_is_given_up(gw):
    receiver = Receiver(status=502)
    try:
        with gw.client() as c:
            _a, a_key = new_account(c, "wh-g-a")
            b_id, b_key = new_account(c, "wh-g-b")
            hook = register(c, b_key, receiver.url)
            challenge(c, a_key, b_id)
            driver = Driver(gw.settings, retry_for_s=30, disable_after_s=86_400)
            t0 = int(time.time() * 1000) + 1000
            driver.run(t0)
            driver.run(t0 + 29_000)
            last = log_of(c, b_key, hook["webhook_id"])[0]
            assert (last["outcome"], last["attempt"], last["next_attempt_ms"]) == ("gave_up", 2, None)
            assert driver.run(t0 + 3_600_000) == 0, "nothing left to try"
    finally:
        receiver.close()


def test_the_log_lists_attempts_newest_first_and_a_redelivery_sends_the_same_event_again(gw, receiver: Receiver):
    with gw.client() as c:
        _a, a_key = new_account(c, "wh-l-a")
        b_id, b_key = new_account(c, "wh-l-b")
        hook = register(c, b_key, receiver.url)
        for _ in range(3):
            challenge(c, a_key, b_id)
        driver = Driver(gw.settings)
        driver.run()
        receiver.wait(3)
        logged = log_of(c, b_key, hook["webhook_id"])
        assert len(logged) == 3 and all(e["outcome"] == "delivered" for e in logged)
        assert [e["at_ms"] for e in logged] == sorted((e["at_ms"] for e in logged), reverse=True)
        target = logged[-1]["delivery_id"]
        r = c.post(f"/v1/players/me/webhooks/{hook['webhook_id']}/deliveries/{target}/redeliver",
                   headers=auth(b_key))
        assert r.status_code == 202 and r.json() == {"queued": True, "delivery_id": target}
        driver.run()
        again = receiver.wait(4)[3]
        assert again.headers["webhook-id"] == target and again.body == receiver.received[
            receiver.ids().index(target)].body
        newest = log_of(c, b_key, hook["webhook_id"])[0]
        assert newest["manual"] and newest["delivery_id"] == target and newest["attempt"] == 1
        r = c.post(f"/v1/players/me/webhooks/{hook['webhook_id']}/deliveries/msg_1-0/redeliver", headers=auth(b_key))
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


@pytest.mark.slow
def test_the_log_keeps_the_last_100_attempts(gw, receiver: Receiver):
    with gw.client() as c:
        b_id, b_key = new_account(c, "wh-100")
        hook = register(c, b_key, receiver.url)
        entries = publish_challenges(gw.settings, b_id, 103)  # the account stream's own append, as the route's
        Driver(gw.settings).until(lambda: len(receiver.received) >= 103)
        logged = log_of(c, b_key, hook["webhook_id"])
        assert len(logged) == 100 and {e["event"] for e in logged} <= set(entries)


def publish_challenges(settings, player_id: str, count: int) -> list[str]:
    """`count` `challenge` entries appended to the account's stream by its append script (what the challenge routes
    run), each queueing its deliveries; their entry ids."""
    keys = Keys(settings.key_prefix)
    client = redis_required.test_redis(settings.redis_url, decode_responses=True)
    add = ADD.register(client)
    try:
        return [add(keys=append_keys(keys, player_id), args={
            "type": "challenge", "data": json.dumps({"challenge": {"challenge_id": f"c{i}"}}), "maxlen": 1000,
            "minid": "0-0", "ttl": 3600, "hook": "challenge"}) for i in range(count)]
    finally:
        client.close()


def test_a_rotated_secret_signs_beside_the_previous_one_for_the_grace(gw, receiver: Receiver):
    with gw.client() as c:
        _a, a_key = new_account(c, "wh-s-a")
        b_id, b_key = new_account(c, "wh-s-b")
        hook = register(c, b_key, receiver.url)
        r = c.post(f"/v1/players/me/webhooks/{hook['webhook_id']}/rotate-secret", headers=auth(b_key))
        assert r.status_code == 200, r.text
        new = r.json()["secret"]
        assert new != hook["secret"] and r.json()["previous_secret_valid_s"] == gw.settings.webhook_secret_grace_s
        challenge(c, a_key, b_id)
        Driver(gw.settings).until(lambda: receiver.received)
        got = receiver.received[0]
        assert len(got.headers["webhook-signature"].split(" ")) == 2
        for secret in (new, hook["secret"]):
            StandardWebhook(secret).verify(got.body, got.headers)
            assert spec_verify(secret, got.headers, got.body)


def test_an_account_holds_at_most_five_webhooks(gw, receiver: Receiver):
    with gw.client() as c:
        _pid, key = new_account(c, "wh-cap")
        made = [register(c, key, receiver.url) for _ in range(5)]
        r = c.post("/v1/players/me/webhooks", headers=auth(key), json={"url": receiver.url, "events": ["game_end"]})
        assert r.status_code == 409 and r.json()["error"]["code"] == "too_many_webhooks", r.text
        r = c.delete(f"/v1/players/me/webhooks/{made[0]['webhook_id']}", headers=auth(key))
        assert r.status_code == 200 and r.json() == {"webhook_id": made[0]["webhook_id"], "deleted": True}
        assert c.delete(f"/v1/players/me/webhooks/{made[0]['webhook_id']}", headers=auth(key)).status_code == 404
        register(c, key, receiver.url)
        assert len(c.get("/v1/players/me/webhooks", headers=auth(key)).json()["webhooks"]) == 5


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8700/hook",  # http:// without the development setting
    "https://127.0.0.1/hook", "https://localhost/hook", "https://[::1]/hook",  # loopback
    "https://10.1.2.3/hook", "https://192.168.0.5/hook", "https://172.16.0.1/hook",  # private
    "https://169.254.169.254/latest/meta-data", "https://[fe80::1]/hook",  # link-local (cloud metadata)
    "https://0.0.0.0/hook", "https://[::ffff:10.0.0.1]/hook", "https://100.64.0.1/hook",  # unspecified, mapped, CGN
    "ftp://example.com/hook", "https://user:pw@93.184.216.34/hook", "https://no-such-host.invalid/hook",
    "not a url", "https:///nohost",
])
def test_urls_the_platform_must_not_send_to_are_refused(make_gateway, url: str):
    gw = make_gateway(webhooks_allow_http_loopback=False)
    with gw.client() as c:
        _pid, key = new_account(c, "wh-ssrf")
        r = c.post("/v1/players/me/webhooks", headers=auth(key), json={"url": url, "events": ["your_turn"]})
        assert r.status_code == 422 and r.json()["error"]["code"] == "webhook_url_refused", (url, r.text)
        assert r.json()["error"]["message"].startswith("url:")
        assert c.get("/v1/players/me/webhooks", headers=auth(key)).json()["webhooks"] == []


def test_a_public_https_url_is_accepted_and_bad_bodies_are_422(gw):
    with gw.client() as c:
        _pid, key = new_account(c, "wh-ok")
        made = register(c, key, "https://93.184.216.34/hook", ["your_turn", "match_found"])
        assert made["events"] == ["match_found", "your_turn"] and made["enabled"]
        for body in ({"url": "https://93.184.216.34/", "events": ["nope"]},
                     {"url": "https://93.184.216.34/", "events": []},
                     {"url": "https://93.184.216.34/"}, {"url": "https://93.184.216.34/", "events": ["your_turn"],
                                                          "extra": 1}):
            r = c.post("/v1/players/me/webhooks", headers=auth(key), json=body)
            assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text
        assert c.get("/v1/players/me/webhooks/nope", headers=auth(key)).status_code == 404
        assert c.post("/v1/players/me/webhooks/nope/rotate-secret", headers=auth(key)).status_code == 404
        assert c.get("/v1/players/me/webhooks", headers=auth("sbk_" + "x" * 40)).status_code == 401


def test_without_a_server_key_the_routes_say_webhooks_are_unavailable(make_gateway):
    gw = make_gateway(webhook_key=None)
    with gw.client() as c:
        _pid, key = new_account(c, "wh-nokey")
        r = c.get("/v1/players/me/webhooks", headers=auth(key))
        assert r.status_code == 503 and r.json()["error"]["code"] == "webhooks_unavailable"


def _deliverer(settings, concurrency: int) -> subprocess.Popen:
    """`python -m services.webhooks` for the gateway's accounts, with a short lease (what a kill leaves leased is
    due again after it)."""
    env = {**os.environ, "GATEWAY_REDIS_URL": settings.redis_url, "GATEWAY_KEY_PREFIX": settings.key_prefix,
           "GATEWAY_WEBHOOK_KEY": settings.webhook_key, "GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK": "true",
           "GATEWAY_WEBHOOKS_LEASE_S": "1", "GATEWAY_WEBHOOKS_POLL_S": "0.05",
           "GATEWAY_WEBHOOKS_CONCURRENCY": str(concurrency), "GATEWAY_WEBHOOKS_BATCH": "8",
           "GATEWAY_WEBHOOKS_METRICS_PORT": "0", "REDIS_CLUSTER": "true" if CLUSTER else "false"}
    return subprocess.Popen([sys.executable, "-m", "services.webhooks"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


@pytest.mark.slow
def test_a_deliverer_killed_mid_batch_loses_nothing_and_each_event_is_handled_once(gw, rdb: redis.Redis):
    """SIGKILL while deliveries are in flight: a second deliverer sends what the first had leased, after its lease,
    under the same webhook-id. Every event arrives; an event arrives twice only if it was in flight at the kill
    (at most the first deliverer's concurrency), and the log records each event delivered once."""
    receiver = Receiver(status=200, delay_s=0.15)
    concurrency, count = 4, 40
    try:
        with gw.client() as c:
            b_id, b_key = new_account(c, "wh-kill")
            hook = register(c, b_key, receiver.url)
            expected = {f"msg_{hook['webhook_id']}_{entry}" for entry in publish_challenges(gw.settings, b_id, count)}
            first = _deliverer(gw.settings, concurrency)
            try:
                receiver.wait(6, timeout=30)
            finally:
                first.send_signal(signal.SIGKILL)
                first.wait(10)
            seen_at_kill = len(receiver.ids())
            assert seen_at_kill < count, "killed mid-batch"
            second = _deliverer(gw.settings, concurrency)
            try:
                deadline = time.monotonic() + 60
                while set(receiver.ids()) != expected or rdb.zcard(Keys(gw.settings.key_prefix).webhook_due(b_id)):
                    assert time.monotonic() < deadline, (len(set(receiver.ids())), count)
                    assert second.poll() is None, second.stderr.read()
                    time.sleep(0.05)
            finally:
                second.terminate()
                second.wait(10)
            ids = receiver.ids()
            assert set(ids) == expected, "nothing lost"
            twice = {i for i in ids if ids.count(i) > 1}
            assert len(twice) <= concurrency and len(ids) - len(expected) == len(twice), (len(ids), twice)
            delivered = [e["delivery_id"] for e in log_of(c, b_key, hook["webhook_id"])
                         if e["outcome"] == "delivered"]
            assert sorted(delivered) == sorted(expected), "each event recorded delivered once"
    finally:
        receiver.close()
