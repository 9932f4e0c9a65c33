"""Board text a player can read on a phone (docs/decisions/webclient-trial.md, item 2: at a 390 px phone's Fit the
board's labels were 5-7 px). At 390x844 every label drawn on each title's board, at the start and after a few moves
(callsigns, home airports and slot stages appear), is at least 11 CSS px as rendered at the "Readable" zoom: it draws
the board at the width that keeps its smallest label at 11 px, and a finger pans what is wider than the screen. (The
phone opens at "Fit", the whole board: test_board_fit.py.)
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.webclient.test_browser import create_in_lobby, play_button, wait_for_change
from tests.webclient.test_phone import context_for  # noqa: F401  (the fixture: a phone in a language)

#: Browser suite (every board's label sizes): `make test-integration`, which CI runs; `make test` keeps the
#: web client's representative ones (test_browser, test_archived_games, test_languages, test_csp_pages; make test's
#: ten-minute budget)
pytestmark = pytest.mark.integration

FLOOR_PX = 11

# each drawn label's text and its size as rendered (its font size times the scale its element is drawn at)
LABEL_SIZES = """() => [...document.querySelectorAll('#board svg text')].filter(t => t.textContent.trim()).map(t => {
    const m = t.getScreenCTM();
    return {text: t.textContent, cls: t.getAttribute('class'),
            px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)};
})"""


def too_small(page) -> list[dict]:
    labels = page.evaluate(LABEL_SIZES)
    assert labels, "the board draws labels"
    return [label for label in labels if label["px"] < FLOOR_PX - 0.05]


@pytest.mark.parametrize(("game", "options", "lang"), [
    ("opensky", {"map": "europe"}, "en"), ("opensky", {"map": "north_america"}, "ru"),
    ("aeroplanes", {}, "it"), ("blueskies", {}, "pl")])
def test_every_board_label_is_at_least_11_px_on_a_390_px_phone(context_for, game, options, lang,  # noqa: F811
                                                                 artifacts: Path):
    page = context_for("phone", lang)
    players = 3 if game == "aeroplanes" else 2  # Aeroplanes is for 3 to 5
    create_in_lobby(page, game, players, dict.fromkeys(range(players), "human"), options)
    page.wait_for_selector("#action-list button.action")
    page.wait_for_selector("#board svg text")
    assert page.evaluate("document.documentElement.clientWidth") == 390
    page.click("#zoom-read")  # the phone opens the whole board (test_board_fit.py); "Readable" zooms to read it
    assert too_small(page) == [], "labels under 11 px at the phone's Readable zoom"
    for _ in range(4):  # a few moves from the list: callsigns, home airports, gates and slot stages are drawn
        before = page.evaluate("document.body.dataset.version")
        page.wait_for_selector("#action-list button.action")
        play_button(page, random.Random(38))
        wait_for_change(page, before)
        page.wait_for_selector("#board svg text")
        assert too_small(page) == [], "labels under 11 px after a move (the zoom stays)"
    # the page itself stays 390 px wide: only the board's frame scrolls sideways, under a finger
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    frame = page.evaluate("""() => { const f = document.querySelector('#board');
        return {client: f.clientWidth, scroll: f.scrollWidth}; }""")
    assert frame["client"] <= 390
    page.locator("#board").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"board-text-{game}-{options.get('map', '')}-{lang}.png"))
