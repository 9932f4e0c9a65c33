"""A sign-up refused by the per-address bound, as a player meets it (a classroom, an office, a café behind one
address): the refusal is said at once beside "Create game", in the page's language, with the time to wait, never
retried in silence for minutes; and a browser that has an account keeps it, so it goes on creating games against
bots however many sign-ups its address has spent. The API key travels only as a header: never in a URL.

The gateway here has a small bound of its own (1 sign-up per hour from the address), so the second browser's
sign-up is refused whatever ran before.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.gateway.conftest import Gateway, gateway_settings
from tests.rate_windows import fresh_window
from tests.webclient.test_languages import catalogue

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}
#: the phone's language and the desktop's: neither is English
PHONE_LANG, DESKTOP_LANG = "ru", "it"


@pytest.fixture(scope="module")  # made before the module's browser: starting a gateway needs no running event loop
def capped(redis_url: str, wc_service) -> Iterator[Gateway]:
    gw = Gateway(gateway_settings(redis_url, wc_service, accounts_per_address=1, accounts_window_s=3600,
                                  accounts_per_address_daily=0))
    yield gw
    gw.stop()


class Browser:
    """A browser context on the capped gateway: its requests' URLs and sign-ups are recorded."""

    def __init__(self, browser, url: str, viewport: dict, lang: str):
        self.context = browser.new_context(base_url=url, viewport=viewport,
                                           has_touch=viewport is PHONE, is_mobile=viewport is PHONE)
        self.page = self.context.new_page()
        self.urls: list[str] = []
        self.signups = 0
        self.errors: list[str] = []
        self.page.on("request", self._request)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto("/")
        self.page.evaluate("(lang) => localStorage.setItem('skyboard.lang', lang)", lang)

    def _request(self, request) -> None:
        self.urls.append(request.url)
        if request.method == "POST" and request.url.endswith("/v1/players"):
            self.signups += 1

    def account(self) -> dict | None:
        return self.page.evaluate("() => JSON.parse(localStorage.getItem('skyboard.player') || 'null')")

    def create_bot_game(self) -> None:
        """Open the lobby afresh and press Create game for OpenSky, seat 0 this browser's, seat 1 a bot."""
        page = self.page
        page.goto("/")
        page.reload()
        page.wait_for_selector("#catalog tbody tr")
        page.select_option("#create-game", "opensky")
        page.dispatch_event("#create-game", "change")
        page.select_option("#seat-kind-1", "bot:random")
        page.click("#create-submit")


def test_a_refused_sign_up_is_said_beside_the_button_and_a_kept_account_still_plays_bots(capped, browser):
    fresh_window(3600, room_s=120)  # both sign-ups in one window of the bound
    phone = Browser(browser, capped.url, PHONE, PHONE_LANG)
    desk = Browser(browser, capped.url, DESKTOP, DESKTOP_LANG)
    try:
        phone.create_bot_game()  # the address's one sign-up of the hour: the phone's account
        phone.page.wait_for_url("**/game.html?id=*")
        kept = phone.account()
        assert kept and kept["api_key"] and phone.signups == 1

        # another player on the same address: the sign-up is refused, and said at once beside the button
        started = time.monotonic()
        desk.create_bot_game()
        error = desk.page.locator("#create-error")
        error.wait_for(state="visible", timeout=15_000)
        assert time.monotonic() - started < 15, "the refusal is said at once, not after minutes of retries"
        ui = catalogue(DESKTOP_LANG)["ui"]
        text = error.inner_text()
        assert ui["error_too_many_accounts"] in text, text
        wait_words = ui["error_wait"].split("{wait}")[0].replace("{message} ", "").strip()  # "Riprova tra"
        assert wait_words in text and any(ch.isdigit() for ch in text.split(wait_words)[1]), text
        assert "accounts per" not in text, "the server's English is the tooltip, not the text"
        assert "accounts per" in (error.get_attribute("title") or "")
        assert desk.signups == 1, "a sign-up refused for an hour is not retried in silence"
        assert desk.page.is_enabled("#create-submit"), "the button is not left greyed"
        assert ui["error_too_many_accounts"] not in desk.page.inner_text("#lobby-status"), "not at the page's top"
        button = desk.page.locator("#create-submit").bounding_box()
        said = error.bounding_box()
        assert button and said and 0 <= said["y"] - (button["y"] + button["height"]) < 40, (button, said)
        assert desk.account() is None, "no account was made"

        # the phone, reloaded, creates another game against a bot with the account it kept: no sign-up needed
        phone.create_bot_game()
        phone.page.wait_for_url("**/game.html?id=*")
        assert phone.signups == 1, "the kept account played: no second sign-up"
        assert phone.account() == kept
        games = phone.page.evaluate("() => JSON.parse(localStorage.getItem('skyboard.games') || '[]')")
        assert len(games) == 2 and {g["player"] for g in games} == {kept["name"]}

        # the key travels as a header only
        for b in (phone, desk):
            assert not [u for u in b.urls if kept["api_key"] in u], "the API key appeared in a URL"
            assert not b.errors, b.errors
        assert kept["api_key"] not in phone.page.content()
    finally:
        phone.context.close()
        desk.context.close()


def test_a_kept_account_the_platform_no_longer_knows_is_made_afresh_once(wc_gateway, browser):
    """A browser's stored key that the platform refuses (401: revoked, a reset platform) is replaced by a new
    account once, and the game is created: the player is not stuck with a dead key."""
    b = Browser(browser, wc_gateway.url, DESKTOP, "pl")
    try:
        stale = {"name": "Ola", "player_id": "0" * 32, "api_key": "sbk_" + "x" * 43}
        b.page.evaluate("(p) => localStorage.setItem('skyboard.player', JSON.stringify(p))", stale)
        b.create_bot_game()
        b.page.wait_for_url("**/game.html?id=*")
        fresh = b.account()
        assert fresh and fresh["api_key"] != stale["api_key"] and fresh["name"] == "Ola"
        assert b.signups == 1
        assert not b.errors, b.errors
    finally:
        b.context.close()
