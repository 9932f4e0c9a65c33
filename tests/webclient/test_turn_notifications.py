"""Browser notifications of my turn in a correspondence game, in a real Chromium: a lobby tab of the player's account
shows one when `your_turn` of a correspondence game reaches the account stream (sent by the outcomes consumer after
the opponent's move over REST), none for a live (realtime-clocked) game, and none when the player did not turn the
setting on or the browser refused the permission.

What the page shows is read from the browser's own Notification API: an init script counts each notification the
page makes (title, body, tag) and still makes it with the real constructor."""

from __future__ import annotations

import httpx
import pytest

from tests.gateway.helpers import auth
from tests.gateway.test_challenges import challenge, events
from tests.gateway.test_matchmaking import new_player
from tests.webclient.test_languages import catalogue, set_language

pytestmark = pytest.mark.integration

CORRESPONDENCE = {"kind": "correspondence", "days_per_decision": 2}
LIVE = {"kind": "realtime", "seconds_per_decision": 600, "reserve_seconds": 0}

#: every notification the page makes, recorded in `window.__notes`, then made by the browser's own constructor
RECORD = """
(() => {
  window.__notes = [];
  if (!("Notification" in window)) return;
  const Real = window.Notification;
  window.Notification = new Proxy(Real, {
    construct(target, args) {
      window.__notes.push({ title: args[0], body: args[1]?.body ?? null, tag: args[1]?.tag ?? null });
      return Reflect.construct(target, args);
    },
    get(target, prop) {
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
})();
"""


def _lobby(browser, url: str, me: tuple[str, str], *, allowed: bool, lang: str = "en"):
    """A lobby tab of the account `me` (id, key) in a browser context of its own that allows notifications or not."""
    context = browser.new_context(base_url=url, permissions=["notifications"] if allowed else [])
    context.add_init_script(RECORD)
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    page.goto("/")
    set_language(page, lang)
    page.evaluate("(p) => localStorage.setItem('skyboard.player', JSON.stringify(p))",
                  {"name": "Ada", "player_id": me[0], "api_key": me[1]})
    page.reload()
    page.wait_for_selector("#catalog tbody tr")
    return context, page


def _turn_on(page) -> None:
    """The setting turned on, and the tab following the account's turns."""
    page.check("#notify-correspondence")
    page.wait_for_function("() => document.documentElement.dataset.turnStream === 'open'", timeout=15_000)


def _game(c: httpx.Client, me: tuple[str, str], them: tuple[str, str], time_control: dict) -> tuple[str, int]:
    """A 2-player Blue Skies game between `them` (who challenges) and `me` (who accepts): (game id, my seat)."""
    cid = challenge(c, them[1], me[0], game="blueskies", time_control=time_control)["challenge_id"]
    r = c.post(f"/v1/challenges/{cid}/accept", headers=auth(me[1]))
    assert r.status_code == 200, r.text
    game_id = r.json()["game_id"]
    seats = c.get(f"/v1/games/{game_id}").json()["seats"]
    return game_id, next(s["seat"] for s in seats if s["player_id"] == me[0])


def _until_my_turn(c: httpx.Client, game_id: str, seat: int, them: tuple[str, str]) -> None:
    """The opponent plays its first legal action until my seat must decide; then my `your_turn` of that game is on my
    account stream (the consumer put it there)."""
    for _ in range(50):
        g = c.get(f"/v1/games/{game_id}").json()
        if seat in g["to_act"]:
            return
        legal = c.get(f"/v1/games/{game_id}/actions", headers=auth(them[1])).json()
        if legal["actions"]:
            c.post(f"/v1/games/{game_id}/actions", headers=auth(them[1]),
                   json={"action": legal["actions"][0], "expected_version": legal["version"]})
    raise AssertionError(f"seat {seat} of {game_id} never came to act")


def _announced(c: httpx.Client, me: tuple[str, str], game_id: str) -> None:
    """My account stream holds a `your_turn` of `game_id` (read by the test over REST, from the kept history)."""
    events(c, me[1], lambda es: any(e.event == "your_turn" and e.json()["game_id"] == game_id for e in es))


def _notes(page) -> list[dict]:
    return page.evaluate("() => window.__notes")


def test_a_correspondence_turn_is_notified_and_a_live_one_is_not(browser, wc_gateway):
    with wc_gateway.client() as c:
        me, them = new_player(c, "Ada"), new_player(c, "Bob")
        context, page = _lobby(browser, wc_gateway.url, me, allowed=True)
        try:
            _turn_on(page)
            live, live_seat = _game(c, me, them, LIVE)
            _until_my_turn(c, live, live_seat, them)
            _announced(c, me, live)  # before the correspondence game's turn on the same stream, read in order
            corr, corr_seat = _game(c, me, them, CORRESPONDENCE)
            _until_my_turn(c, corr, corr_seat, them)
            page.wait_for_function("() => window.__notes.length > 0", timeout=20_000)
            ui = catalogue("en")["ui"]
            title = ui["notify_corr_title"].replace("{title}", ui["game_title_blueskies"])
            assert _notes(page) == [{"title": title, "body": ui["notify_corr_body"], "tag": f"skyboard-turn-{corr}"}]
            assert page.js_errors == []
        finally:
            context.close()


def test_no_notification_when_the_setting_is_off_or_the_browser_refuses(browser, wc_gateway):
    """Three tabs of one account, each in its own browser: one that turned the setting on (it sees the turn: the
    control), one whose browser allows notifications but the player never turned it on, and one whose browser
    refused the permission when the setting asked (the setting stays off and says why, in Italian)."""
    with wc_gateway.client() as c:
        me, them = new_player(c, "Ada"), new_player(c, "Bob")
        on = _lobby(browser, wc_gateway.url, me, allowed=True)
        off = _lobby(browser, wc_gateway.url, me, allowed=True)
        refused = _lobby(browser, wc_gateway.url, me, allowed=False, lang="it")
        try:
            _turn_on(on[1])
            page = refused[1]
            page.click("#notify-correspondence")
            said = catalogue("it")["ui"]["notify_corr_denied"]
            page.wait_for_function("(said) => document.querySelector('#notify-note').textContent === said", arg=said,
                                   timeout=15_000)
            assert not page.is_checked("#notify-correspondence")
            assert page.evaluate("() => Notification.permission") != "granted"

            corr, seat = _game(c, me, them, CORRESPONDENCE)
            _until_my_turn(c, corr, seat, them)
            on[1].wait_for_function("() => window.__notes.length > 0", timeout=20_000)
            assert [n["tag"] for n in _notes(on[1])] == [f"skyboard-turn-{corr}"]
            for _context, other in (off, refused):
                assert _notes(other) == []
                assert other.evaluate("() => document.documentElement.dataset.turnStream") is None
        finally:
            for context, _page in (on, off, refused):
                context.close()
