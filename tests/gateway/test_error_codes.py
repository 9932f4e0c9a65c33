"""Every error `code` docs/errors.md lists is one the server sends: one case per documented code, over real HTTP
against the real game-state service, Redis and SQL, asserting the documented status and code.

Why: a developer who wrote against the docs alone met 401 "unknown or revoked seat token" where the table promises
409 `game_over`, and never saw the documented `idempotency_mismatch` (the server sent `invalid_request`). The last
test fails when the docs list a code no case covers (or a case covers a code the docs no longer list).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from services.accounts.keys import Keys
from services.accounts.seats import Held
from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, free_port, gateway_settings, new_prefix
from tests.gateway.helpers import auth
from tests.gateway.test_matchmaking import matched_pair
from tests.gateway.webhook_receiver import Driver
from tests.service_secret import SERVICE_SECRET
from tests.services import toygame

ROOT = Path(__file__).resolve().parents[2]
#: a documented code that names a family: what the server's code must match
PATTERNS = {"challenge_<status>": r"challenge_(accepted|declined|cancelled|expired)",
            "tournament_<state>": r"tournament_(full|finished|started)"}


def documented() -> dict[str, int]:
    """code -> HTTP status, from the table of docs/errors.md (a row's first backticked word is its code)."""
    rows = re.findall(r"^\| (\d{3}) \| `([^`]+)`", (ROOT / "docs" / "errors.md").read_text(), re.M)
    assert rows, "docs/errors.md has its table of codes"
    return {code: int(status) for status, code in rows}


@dataclass
class Stack:
    """The module's game-state service (3 active games per player at most, no bot workers) and gateway (clocks of
    5 s per decision at least, 1 pending challenge per sender), and gateways of their own for the limits."""

    service: ServiceInstance
    gw: Gateway
    http: httpx.Client
    redis_url: str
    extra: list[Gateway]

    def gateway(self, **overrides) -> Gateway:
        made = Gateway(gateway_settings(self.redis_url, self.service, **overrides))
        self.extra.append(made)
        return made

    def player(self, name: str = "p", kind: str = "human", http: httpx.Client | None = None) -> tuple[str, str]:
        r = (http or self.http).post("/v1/players", json={"name": name, "kind": kind})
        assert r.status_code == 201, r.text
        return r.json()["player_id"], r.json()["api_key"]

    def game(self, key: str, seats: list[int] | None = None, **extra) -> dict:
        """A toybids game of `key`'s player holding `seats` (seat 0 by default), seat tokens by seat under `tokens`."""
        body = {"game": "toybids", "players": 2, "seed": 3, "account_seats": [0] if seats is None else seats, **extra}
        r = self.http.post("/v1/games", headers=auth(key), json=body)
        assert r.status_code == 201, r.text
        made = r.json()
        made["tokens"] = {s["seat"]: s["token"] for s in made["seats"] if s["token"]}
        return made

    def legal(self, game_id: str, bearer: str) -> dict:
        r = self.http.get(f"/v1/games/{game_id}/actions", headers=auth(bearer))
        assert r.status_code == 200, r.text
        return r.json()

    def bid(self, game_id: str, bearer: str, card: str | None = None, key: str | None = None) -> httpx.Response:
        legal = self.legal(game_id, bearer)
        action = {"type": "bid", "card": card} if card else legal["actions"][0]
        return self.http.post(f"/v1/games/{game_id}/actions", headers=auth(bearer) | (
            {"Idempotency-Key": key} if key else {}), json={"action": action, "expected_version": legal["version"]})


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, zombie_bot_level="",
        quota_active_games=3,
    )
    service = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
    gw = Gateway(gateway_settings(redis_url, service, min_seconds_per_decision=5.0, challenges_per_sender=1))
    extra: list[Gateway] = []
    with gw.client() as http:
        yield Stack(service, gw, http, redis_url, extra)
    for made in [gw, *extra]:
        made.stop()
    service.stop()


# ----------------------------------------------------------------------------------------- one case per code


def unauthenticated(s: Stack) -> httpx.Response:
    return s.http.get("/v1/players/me", headers=auth("sbk_" + "x" * 40))


def forbidden(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    one, other = s.game(key, seats=[]), s.game(key, seats=[])
    return s.http.get(f"/v1/games/{one['game_id']}/actions", headers=auth(other["tokens"][0]))


def key_retired(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    assert s.http.post("/v1/players/me/keys", headers=auth(key)).status_code == 201
    return s.http.post("/v1/players/me/keys", headers=auth(key))  # the replaced key, in its grace period


def game_active(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    return s.http.get(f"/v1/games/{s.game(key)['game_id']}/log")


def not_seated(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    _other, stranger = s.player()
    return s.http.get(f"/v1/games/{s.game(key)['game_id']}/actions", headers=auth(stranger))


def not_found(s: Stack) -> httpx.Response:
    return s.http.get("/v1/games/no_such_game")


def method_not_allowed(s: Stack) -> httpx.Response:
    return s.http.delete("/v1/catalog")


def stale_version(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    game = s.game(key)
    action = s.legal(game["game_id"], key)["actions"][0]
    return s.http.post(f"/v1/games/{game['game_id']}/actions", headers=auth(key),
                       json={"action": action, "expected_version": 7})


def game_over(s: Stack) -> httpx.Response:
    """The developer's case: the API key resigned its seat (two players: the game ends), then resigns again."""
    _pid, key = s.player()
    game = s.game(key)
    assert s.http.post(f"/v1/games/{game['game_id']}/resign", headers=auth(key)).status_code == 200
    assert s.http.get(f"/v1/games/{game['game_id']}").json()["status"] == "finished"
    return s.http.post(f"/v1/games/{game['game_id']}/resign", headers=auth(key))


def abort_not_allowed(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    game = s.game(key, bots={"1": "random"})  # no bot worker here: the bot never moves
    assert s.bid(game["game_id"], key).status_code == 200  # every human seat has decided
    return s.http.post(f"/v1/games/{game['game_id']}/abort", headers=auth(key))


def take_back_not_allowed(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    game = s.game(key)
    return s.http.post(f"/v1/games/{game['game_id']}/take-back", headers=auth(key),
                       json={"expected_version": 0})


def challenge_status(s: Stack) -> httpx.Response:
    _a, a_key = s.player()
    b_id, b_key = s.player()
    r = s.http.post("/v1/challenges", headers=auth(a_key), json={"to": b_id, "game": "toybids"})
    assert r.status_code == 201, r.text
    challenge = r.json()["challenge_id"]
    assert s.http.post(f"/v1/challenges/{challenge}/decline", headers=auth(b_key)).status_code == 200
    return s.http.post(f"/v1/challenges/{challenge}/accept", headers=auth(b_key))


def tournament_state(s: Stack) -> httpx.Response:
    """A tournament of two entrants at most, asked by a third."""
    keys = [s.player()[1] for _ in range(3)]
    r = s.http.post("/v1/tournaments", headers=auth(keys[0]), json={
        "name": "full", "game": "toybids", "players": 2, "rounds": 1, "max_players": 2,
        "starts_at": int(time.time() * 1000) + 3_600_000})
    assert r.status_code == 201, r.text
    tournament = r.json()["tournament_id"]
    for key in keys[:2]:
        assert s.http.post(f"/v1/tournaments/{tournament}/join", headers=auth(key)).status_code == 200
    return s.http.post(f"/v1/tournaments/{tournament}/join", headers=auth(keys[2]))


def conflict(s: Stack) -> httpx.Response:
    gw = s.gateway()
    with gw.client() as http:
        (_pid, key, polled), _other = matched_pair(http, gw.settings)
        assert polled["status"] == "matched", polled
        return http.delete(f"/v1/matchmaking/tickets/{polled['ticket_id']}", headers=auth(key))


def no_seat_credential(s: Stack) -> httpx.Response:
    """A seat held from before accounts kept seat credentials: the account's record of the game has no sealed token
    (written as such a release wrote it, through the record's own format)."""
    pid, key = s.player()
    game = s.game(key, seats=[])
    legacy = Held(game["game_id"], "toybids", [0], int(time.time() * 1000))
    redis = s.service.running.redis
    s.service._run(redis.hset(Keys(s.gw.settings.key_prefix).account_games(pid), game["game_id"], legacy.to_json()))
    return s.http.get(f"/v1/games/{game['game_id']}/actions", headers=auth(key))


def too_many_keys(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    for _ in range(s.gw.settings.api_keys_max - 1):
        r = s.http.post("/v1/players/me/keys", headers=auth(key))
        assert r.status_code == 201, r.text
        key = r.json()["api_key"]
    return s.http.post("/v1/players/me/keys", headers=auth(key))


def _webhook(s: Stack, key: str, url: str = "https://93.184.216.34/hook") -> httpx.Response:
    return s.http.post("/v1/players/me/webhooks", headers=auth(key), json={"url": url, "events": ["challenge"]})


def too_many_webhooks(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    for _ in range(s.gw.settings.webhooks_max):
        assert _webhook(s, key).status_code == 201
    return _webhook(s, key)


def webhook_url_refused(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    return _webhook(s, key, "https://169.254.169.254/latest/meta-data")


def webhook_disabled(s: Stack) -> httpx.Response:
    """A redelivery for a webhook its deliverer disabled (its receiver refuses connections; disabled at once)."""
    _a, a_key = s.player()
    b_id, b_key = s.player()
    hook = _webhook(s, b_key, f"http://127.0.0.1:{free_port()}/hook").json()
    assert s.http.post("/v1/challenges", headers=auth(a_key), json={"to": b_id, "game": "toybids"}).status_code == 201
    Driver(s.gw.settings, disable_after_s=0).run()
    [logged] = s.http.get(f"/v1/players/me/webhooks/{hook['webhook_id']}/deliveries",
                          headers=auth(b_key)).json()["deliveries"]
    return s.http.post(f"/v1/players/me/webhooks/{hook['webhook_id']}/deliveries/{logged['delivery_id']}/redeliver",
                       headers=auth(b_key))


def webhooks_unavailable(s: Stack) -> httpx.Response:
    """A gateway configured without GATEWAY_WEBHOOK_KEY."""
    gw = s.gateway(webhook_key=None)
    _pid, key = s.player(http=s.http)
    with gw.client() as http:
        return http.get("/v1/players/me/webhooks", headers=auth(key))


def payload_too_large(s: Stack) -> httpx.Response:
    return s.http.post("/v1/players", json={"name": "x" * (s.gw.settings.max_body_bytes + 1)})


def invalid_request(s: Stack) -> httpx.Response:
    return s.http.post("/v1/players", json={"name": 5})


def unknown_game(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    return s.http.post("/v1/games", headers=auth(key), json={"game": "no_such_title", "players": 2})


def idempotency_mismatch(s: Stack) -> httpx.Response:
    """The same key for another submission: the first outcome is kept (the first bid is accepted at version 0; the
    same key with another card at another version is refused, not replayed)."""
    _pid, key = s.player()
    game = s.game(key, options={"rounds": 3})
    first = s.bid(game["game_id"], key, key="same-key")
    assert first.status_code == 200, first.text
    hand = [a["card"] for a in s.legal(game["game_id"], game["tokens"][1])["actions"]]
    assert s.bid(game["game_id"], game["tokens"][1], card=hand[0]).status_code == 200  # the round ends: version 2
    return s.bid(game["game_id"], key, key="same-key")


def seat_ambiguous(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    return s.http.get(f"/v1/games/{s.game(key, seats=[0, 1])['game_id']}/actions", headers=auth(key))


def illegal_action(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    return s.bid(s.game(key)["game_id"], key, card="card-000000")  # TOY-3: not a card of the hand


def clock_too_fast(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    return s.http.post("/v1/games", headers=auth(key), json={
        "game": "toybids", "players": 2, "time_control": {"kind": "realtime", "seconds_per_decision": 1}})


def humans_only_for_humans(s: Stack) -> httpx.Response:
    _pid, key = s.player(kind="bot")
    return s.http.post("/v1/matchmaking/tickets", headers=auth(key),
                       json={"game": "toybids", "players": 2, "opponents": "humans"})


def rate_limited(s: Stack) -> httpx.Response:
    """Five calls of one key at two per window: the burst spans two windows at most, so one of them holds three."""
    gw = s.gateway(rate_limit_token=2)
    with gw.client() as http:
        _pid, key = s.player(http=http)
        answers = [http.get("/v1/players/me", headers=auth(key)) for _ in range(5)]
    return next((r for r in answers if r.status_code == 429), answers[-1])


def quota_exceeded(s: Stack) -> httpx.Response:
    _pid, key = s.player()
    for _ in range(3):
        s.game(key)
    return s.http.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2})


def too_many_accounts(s: Stack) -> httpx.Response:
    """Three accounts at one per window: the three span two windows at most, so one of them holds two."""
    gw = s.gateway(accounts_per_address=1)
    with gw.client() as http:
        answers = [http.post("/v1/players", json={"name": "many"}) for _ in range(3)]
    return next((r for r in answers if r.status_code == 429), answers[-1])


def too_many_challenges(s: Stack) -> httpx.Response:
    _a, a_key = s.player()
    sent = []
    for _ in range(2):  # one pending challenge per sender here
        to, _key = s.player()
        sent.append(s.http.post("/v1/challenges", headers=auth(a_key), json={"to": to, "game": "toybids"}))
    assert sent[0].status_code == 201, sent[0].text
    return sent[1]


def too_many_streams(s: Stack) -> httpx.Response:
    """A second account stream of one account where a credential may hold one open stream."""
    gw = s.gateway(stream_limit_token=1)
    with gw.client() as http:
        _pid, key = s.player(http=http)
        with http.stream("GET", "/v1/players/me/events", headers=auth(key)) as first:
            assert first.status_code == 200
            with http.stream("GET", "/v1/players/me/events", headers=auth(key)) as second:
                second.read()
                return second


def unavailable(s: Stack) -> httpx.Response:
    """A gateway whose game-state service does not answer (nothing listens at its address)."""
    gw = s.gateway(gamestate_addr=f"127.0.0.1:{free_port()}", gamestate_timeout_s=2.0)
    with gw.client() as http:
        return http.get("/v1/games/no_such_game")


#: the cases of a family of codes, by the family's documented name
FAMILIES = {"challenge_<status>": challenge_status, "tournament_<state>": tournament_state}
#: documented code -> its case (each case is named after its code, but the families')
CASES: dict[str, Callable[[Stack], httpx.Response]] = {
    next((name for name, fam in FAMILIES.items() if fam is case), case.__name__): case for case in (
        unauthenticated, forbidden, key_retired, game_active, not_seated, not_found, method_not_allowed,
        stale_version, game_over, abort_not_allowed, take_back_not_allowed, challenge_status, tournament_state,
        conflict, no_seat_credential, too_many_keys, too_many_webhooks, webhook_url_refused, webhook_disabled,
        webhooks_unavailable, payload_too_large, invalid_request, unknown_game, idempotency_mismatch,
        seat_ambiguous, illegal_action, clock_too_fast, humans_only_for_humans, rate_limited, quota_exceeded,
        too_many_accounts, too_many_challenges, too_many_streams, unavailable,
    )
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_documented_code_is_sent_with_its_documented_status(stack: Stack, code: str) -> None:
    status = documented().get(code)
    assert status is not None, f"{code} is no longer in docs/errors.md: drop its case"
    r = CASES[code](stack)
    assert r.status_code == status, (code, r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and body["error"]["message"], body
    assert re.fullmatch(PATTERNS.get(code, re.escape(code)), body["error"]["code"]), (code, body)


def test_every_code_the_docs_list_has_a_case() -> None:
    assert set(documented()) == set(CASES)


def test_every_write_of_a_seat_that_resigned_an_ended_game_is_told_it_is_over(stack: Stack) -> None:
    """After its seat resigned a two-player game (which ends it), neither the account's API key nor the seat's
    revoked token is told it is unknown (401): a move, a resignation and an abort are each 409 `game_over`."""
    _pid, key = stack.player()
    game = stack.game(key)
    gid, token = game["game_id"], game["tokens"][0]
    action = stack.legal(gid, key)["actions"][0]
    assert stack.http.post(f"/v1/games/{gid}/resign", headers=auth(key)).status_code == 200
    for bearer in (key, token):
        for r in (stack.http.post(f"/v1/games/{gid}/actions", headers=auth(bearer),
                                  json={"action": action, "expected_version": 1}),
                  stack.http.post(f"/v1/games/{gid}/resign", headers=auth(bearer)),
                  stack.http.post(f"/v1/games/{gid}/abort", headers=auth(bearer))):
            assert (r.status_code, r.json()["error"]["code"]) == (409, "game_over"), r.text
    assert stack.http.get(f"/v1/games/{gid}", headers=auth(token)).status_code == 401, "reads still refuse it"


def test_every_write_of_a_seat_that_resigned_a_game_that_goes_on_is_told_it_is_over(stack: Stack) -> None:
    """Three players: the game goes on after seat 0 resigns, but seat 0's part of it is over. A move, a resignation,
    an abort and a take-back with the account's API key or the seat's revoked token are each 409 `game_over`, not
    401 as if the credential were unknown; reads stay as documented (the key reads as a spectator, the revoked token
    is refused)."""
    _pid, key = stack.player()
    game = stack.game(key, players=3)
    gid, token = game["game_id"], game["tokens"][0]
    action = stack.legal(gid, key)["actions"][0]
    assert stack.http.post(f"/v1/games/{gid}/resign", headers=auth(key)).status_code == 200
    view = stack.http.get(f"/v1/games/{gid}").json()
    assert view["status"] == "active" and view["seats"][0]["status"] == "resigned", view
    version = view["version"]
    for bearer in (key, token):
        for r in (stack.http.post(f"/v1/games/{gid}/actions", headers=auth(bearer),
                                  json={"action": action, "expected_version": version}),
                  stack.http.post(f"/v1/games/{gid}/resign", headers=auth(bearer)),
                  stack.http.post(f"/v1/games/{gid}/abort", headers=auth(bearer)),
                  stack.http.post(f"/v1/games/{gid}/take-back", headers=auth(bearer),
                                  json={"expected_version": version})):
            assert (r.status_code, r.json()["error"]["code"]) == (409, "game_over"), r.text
    assert stack.http.get(f"/v1/games/{gid}", headers=auth(token)).status_code == 401, "reads still refuse it"
    mine = stack.http.get(f"/v1/games/{gid}", headers=auth(key))
    assert mine.status_code == 200 and mine.json().get("seat") is None, "the key reads as a spectator"
    other = stack.bid(gid, game["tokens"][1])
    assert other.status_code == 200, "the game goes on for the other seats"
