"""A bot that is to act says so on its seat, in the page's language, while the player waits: its card shows it
thinking (a spinner and the seconds it has taken so far) and the status bar says which bot is thinking, where before
a wait for a bot read like a wait for nobody ("To act: Mcts-hard bot 1").

The platform here dispatches no bot move (a game-state service of its own, no worker), so the bot stays to act for
as long as the test looks: nothing depends on how fast a bot answers.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.service_secret import SERVICE_SECRET
from tests.webclient.test_languages import catalogue
from tests.webclient.test_signup_limit import DESKTOP, PHONE, Browser


@pytest.fixture(scope="module")  # made before the module's browser: starting them needs no running event loop
def idle(redis_url: str) -> Iterator[Gateway]:
    """A game-state service that queues no bot move, and its gateway: a bot seat stays to act."""
    prefix = new_prefix()
    service = ServiceInstance(Settings(redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=prefix,
                                       dispatch_bots=False, service_secret=SERVICE_SECRET, watch_block_ms=200,
                                       shutdown_grace_s=0.5), Registry())
    gw = Gateway(gateway_settings(redis_url, service, sse_ping_s=1.0))
    yield gw
    gw.stop()
    service.stop()


@pytest.mark.parametrize(("viewport", "lang"), [(PHONE, "ru"), (DESKTOP, "it")])
def test_a_bot_to_act_shows_it_is_thinking_on_its_seat(idle, browser, viewport, lang):
    b = Browser(browser, idle.url, viewport, lang)
    try:
        page = b.page
        page.goto("/")
        page.reload()
        page.wait_for_selector("#catalog tbody tr")
        page.select_option("#create-game", "blueskies")
        page.dispatch_event("#create-game", "change")
        page.fill("#create-players", "3")
        page.dispatch_event("#create-players", "change")
        for seat in range(3):  # three bots: whichever plays first, a bot is to act (this page watches)
            page.select_option(f"#seat-kind-{seat}", "bot:greedy")
        page.click("#create-submit")
        page.wait_for_url("**/game.html?id=*")
        ui = catalogue(lang)["ui"]
        card = page.locator(".player-card.acting")
        card.first.wait_for(timeout=15_000)
        thinking = page.locator(".player-card.bot-thinking")
        assert thinking.count() == card.count() >= 1, "every bot to act, and only those, shows it is thinking"
        assert thinking.first.locator(".spinner").count() == 1
        assert ui["thinking"] in thinking.first.inner_text()
        # the seconds it has been thinking, counted on the card
        counted = "() => /\\d/.test(document.querySelector('.player-card.bot-thinking .thinking').textContent)"
        page.wait_for_function(counted, timeout=10_000)
        # the status bar names the bot that is thinking, in the page's language
        turn = page.inner_text("#turn")
        thinking_words = ui["bots_thinking"].split("{names}")[1].split("}")[0].strip()  # "думает…", "sta pensando…"
        assert thinking_words in turn, turn
        assert not b.errors, b.errors
    finally:
        b.context.close()
