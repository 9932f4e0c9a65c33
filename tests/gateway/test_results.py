"""A resigned player never wins, wherever the result is shown (services/common/standings.py): the game view, the account
stream's `game_end`, the player's history and the ratings agree; an aborted game has one shape everywhere (no
scores, no winners). Over the real gateway, service, Redis and SQL archive."""

from __future__ import annotations

import time

import httpx
import pytest

from services.accounts.ratings import DEFAULT
from tests.gateway.helpers import auth
from tests.gateway.test_challenges import challenge, events, new_account


def _wait(cond, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "not within the wait"
        time.sleep(0.05)


@pytest.fixture
def gw(make_gateway):
    return make_gateway(challenge_ttl_s=60)


def _accepted(c: httpx.Client, a: str, b: str, b_id: str, **extra) -> tuple[str, dict[int, str]]:
    """A challenge from `a` to `b`, accepted: the game id and each seat's token (a's from its account stream)."""
    cid = challenge(c, a, b_id, options={"rounds": 2}, **extra)["challenge_id"]
    accepted = c.post(f"/v1/challenges/{cid}/accept", headers=auth(b)).json()
    start = next(e.json() for e in events(c, a, lambda es: any(e.event == "game_start" for e in es))
                 if e.event == "game_start")
    return accepted["game_id"], {accepted["seat"]: accepted["token"], start["seat"]: start["token"]}


def test_a_resignation_is_a_loss_on_every_surface_that_shows_the_result(gw) -> None:
    with gw.client() as c:
        a_id, a = new_account(c, "stays")
        b_id, b = new_account(c, "resigns")
        game_id, tokens = _accepted(c, a, b, b_id, rated=True)
        b_seat = c.get("/v1/players/me/games", headers=auth(b)).json()["games"][0]["seat"]
        a_seat = 1 - b_seat
        assert c.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[b_seat])).status_code == 200
        game = c.get(f"/v1/games/{game_id}").json()
        assert (game["status"], game["winners"]) == ("finished", [a_seat])
        for key, seat in ((a, a_seat), (b, b_seat)):
            got = events(c, key, lambda es: any(e.event == "game_end" for e in es))
            end = [e.json() for e in got if e.event == "game_end"]
            assert end == [{"game_id": game_id, "seat": seat, "status": "finished", "scores": game["scores"],
                            "winners": [a_seat]}]
        ratings = lambda pid: c.get(f"/v1/players/{pid}").json()["ratings"].get("toybids", {})  # noqa: E731
        _wait(lambda: ratings(a_id).get("games") == ratings(b_id).get("games") == 1)  # the consumer settles it
        stays, leaves = ratings(a_id), ratings(b_id)
        assert stays["games"] == leaves["games"] == 1 and stays["mu"] > DEFAULT.mu > leaves["mu"]


def test_an_aborted_game_ends_on_the_account_stream_with_no_scores_and_no_winners(gw) -> None:
    with gw.client() as c:
        _a_id, a = new_account(c, "aborter")
        b_id, b = new_account(c, "other")
        game_id, tokens = _accepted(c, a, b, b_id)
        seat = next(iter(tokens))
        assert c.post(f"/v1/games/{game_id}/abort", headers=auth(tokens[seat])).status_code == 200
        game = c.get(f"/v1/games/{game_id}").json()
        got = events(c, a, lambda es: any(e.event == "game_end" for e in es))
        end = next(e.json() for e in got if e.event == "game_end")
        assert (end["status"], end["scores"], end["winners"]) == ("aborted", None, None)
        assert (game["status"], game["scores"], game["winners"]) == ("aborted", None, None)
