"""Small state errors of the game page and the lobby, in a real browser on a 390 px phone and a desktop, in Polish and
Italian:

- the New game form's first-player menu offers "random" and the seats of the game being made, as the form names its
  seats (Blue Skies, 3 players: Player 1-3), never 0-4 whatever the player count (BS-2.5);
- Blue Skies has no dice (BS-2): its chance panel says it shows the cards and passengers drawn, while Aeroplanes'
  keeps "Dice and reveals";
- the status bar (whose turn it is) stays in view on a desktop when the page scrolls: the sticky player strip once
  covered it; on a phone the strip and the bar scroll with the page and the strip never covers the bar.

Every wait is on a condition of the page, never a fixed sleep.
"""

from __future__ import annotations

import json

import pytest

from tests.webclient.test_browser import create_in_lobby
from tests.webclient.test_phone import I18N, context_for, words  # noqa: F401  (the fixture)

pytestmark = pytest.mark.integration


def catalogue(lang: str) -> dict:
    return json.loads((I18N / f"{lang}.json").read_text())


@pytest.mark.parametrize(("size", "lang"), [("phone", "pl"), ("desktop", "it")])
def test_the_first_player_menu_offers_the_games_seats_only(context_for, size, lang):  # noqa: F811
    page = context_for(size, lang)
    ui = words(lang)
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    page.select_option("#create-game", "blueskies")
    page.dispatch_event("#create-game", "change")
    menu = "select[data-option=first_player] option"
    for players in (3, 5, 2):
        page.fill("#create-players", str(players))
        page.dispatch_event("#create-players", "change")
        page.wait_for_function("n => document.querySelectorAll('#create-seats select').length === n", arg=players)
        values = page.eval_on_selector_all(menu, "os => os.map(o => o.value)")
        labels = page.eval_on_selector_all(menu, "os => os.map(o => o.textContent)")
        assert values == ['"random"', *map(str, range(players))], players
        assert labels == [ui["choice_random"], *(ui["player_n"].replace("{n}", str(n + 1)) for n in range(players))]
        seats = page.eval_on_selector_all("#create-seats label", "ls => ls.map(l => l.textContent)")
        assert labels[1:] == seats, "the menu names the seats as the form does"
    # a seat chosen, the game starts with that seat's marker (the engine's view says who holds it)
    page.select_option("select[data-option=first_player]", "1")
    page.select_option("#seat-kind-1", "human")
    page.click("#create-submit")
    page.wait_for_url("**/game.html?id=*")
    page.wait_for_selector("#action-list button.action")
    first = catalogue(lang)["blueskies"]["state"]["first_player"]
    assert page.inner_text("#table-info").count(first) == 1
    assert page.evaluate("""label => { const dts = [...document.querySelectorAll('#table-info dt')];
        return dts.find(d => d.textContent === label).nextElementSibling.textContent; }""", first) == \
        page.inner_text('#players .player-card[data-seat="1"] .pc-name')


@pytest.mark.parametrize(("size", "lang"), [("phone", "pl"), ("desktop", "it")])
def test_blue_skies_has_no_dice_panel(context_for, size, lang):  # noqa: F811
    page = context_for(size, lang)
    cat = catalogue(lang)
    create_in_lobby(page, "blueskies", 2, {0: "human", 1: "human"})
    page.wait_for_selector("#action-list button.action")
    assert page.inner_text("#chance-h") == cat["blueskies"]["text"]["chance_heading"]
    assert page.inner_text("#chance-h") != cat["ui"]["chance"]
    create_in_lobby(page, "aeroplanes", 3, {0: "human", 1: "human", 2: "human"})
    page.wait_for_selector("#action-list button.action")
    assert page.inner_text("#chance-h") == cat["ui"]["chance"], "Aeroplanes rolls dice"


@pytest.mark.parametrize(("size", "lang"), [("phone", "pl"), ("desktop", "it")])
def test_the_status_bar_stays_uncovered_when_the_page_scrolls(context_for, size, lang):  # noqa: F811
    page = context_for(size, lang)
    create_in_lobby(page, "aeroplanes", 3, {0: "human", 1: "human", 2: "human"})
    page.wait_for_selector("#action-list button.action")
    uncovered = """() => { const t = document.querySelector('#turn').getBoundingClientRect();
        if (t.bottom <= 0 || t.top >= innerHeight) return 'out of view';
        const x = t.left + Math.min(t.width / 2, 40), y = t.top + t.height / 2;
        const hit = document.elementFromPoint(x, y);
        return hit && hit.closest('.bar') ? 'shown' : `covered by ${hit && (hit.closest('[id]') || hit).id}`; }"""
    assert page.evaluate(uncovered) == "shown"
    height = page.evaluate("document.documentElement.scrollHeight - innerHeight")
    assert height > 400, "the page scrolls"
    for y in (150, 400, height):
        page.evaluate("y => window.scrollTo(0, y)", y)
        page.wait_for_function(
            "y => Math.abs(scrollY - Math.min(y, document.documentElement.scrollHeight - innerHeight)) < 2", arg=y)
        state = page.evaluate(uncovered)
        if size == "desktop":  # the players and the bar stay in view together
            assert state == "shown", (y, state)
            strip = page.evaluate("document.querySelector('#players').getBoundingClientRect().bottom")
            bar = page.evaluate("document.querySelector('.bar').getBoundingClientRect().top")
            assert strip <= bar + 1, "the strip ends where the bar begins"
        else:  # one scroll on a phone: the bar goes out of view with the page, it is never under the strip
            assert state in ("shown", "out of view"), (y, state)
    if size == "phone":
        assert page.evaluate("getComputedStyle(document.querySelector('.game-head')).position") == "static"
