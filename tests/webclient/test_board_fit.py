"""The whole board on a phone, and the bot-level table readable at every width.

- A phone opens each board whole ("Fit": the board as wide as its frame, no taller than the window), where OpenSky
  opened cut off and Blue Skies could not be drawn narrower than 899 px; "Readable" zooms to where every label is
  11 px and "Fit" comes back; two real fingers (Chromium's touch pipeline through CDP `Input.dispatchTouchEvent`)
  pinch the board larger and back to the whole board.
- The lobby's bot-level table on a phone and a desktop: no cell is squeezed to a letter a line, no word is broken.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webclient.test_browser import create_in_lobby
from tests.webclient.test_phone import context_for  # noqa: F401  (the fixture: a phone or desktop in a language)
from tests.webclient.test_touch import Fingers, frame_centre

#: the board's drawn box, its frame's and the window's, in CSS px
BOX = """() => {
    const svg = document.querySelector('#board svg'), frame = document.querySelector('#board');
    const b = svg.getBoundingClientRect();
    return {width: b.width, height: b.height, frame: frame.clientWidth, scroll: frame.scrollWidth,
            window: innerHeight};
}"""

SMALLEST_LABEL = """() => Math.min(...[...document.querySelectorAll('#board svg text')]
    .filter(t => t.textContent.trim())
    .map(t => { const m = t.getScreenCTM();
                return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); }))"""


def whole(box: dict) -> bool:
    return box["width"] <= box["frame"] + 1 and box["scroll"] <= box["frame"] + 1 and box["height"] <= box["window"]


@pytest.mark.parametrize(("game", "lang"), [("opensky", "ru"), ("blueskies", "pl")])
def test_a_phone_opens_the_whole_board_and_pinches_it_larger_and_back(context_for, game, lang,  # noqa: F811
                                                                     artifacts: Path):
    page = context_for("phone", lang)
    create_in_lobby(page, game, 2, {0: "human", 1: "human"})
    page.wait_for_selector("#board svg .clickable")
    page.locator("#board").scroll_into_view_if_needed()
    opened = page.evaluate(BOX)
    assert whole(opened), f"the board opens whole on a phone: {opened}"
    page.screenshot(path=str(artifacts / f"board-fit-{game}-{lang}.png"))

    page.click("#zoom-read")  # labels at 11 px: wider than the screen, a finger pans it
    assert page.evaluate(SMALLEST_LABEL) >= 11 - 0.05
    assert page.evaluate(BOX)["width"] > opened["frame"] + 1
    page.click("#zoom-reset")
    assert whole(page.evaluate(BOX)), "Fit shows the whole board again"

    fingers = Fingers(page)
    cx, cy = frame_centre(page)
    fingers.gesture([(cx - 30, cy), (cx + 30, cy)], [(cx - 90, cy), (cx + 90, cy)])
    spread = page.evaluate(BOX)
    assert spread["width"] == pytest.approx(3 * opened["width"], rel=0.05), (opened, spread)
    cx, cy = frame_centre(page)
    fingers.gesture([(cx - 150, cy), (cx + 150, cy)], [(cx - 10, cy), (cx + 10, cy)])
    assert page.evaluate(BOX)["width"] == pytest.approx(opened["width"], rel=0.01), "pinched back to the whole board"


#: every cell of the bot-level table with text: its width, its longest word's width and its rendered lines
CELLS = """() => [...document.querySelectorAll('details.bot-levels th, details.bot-levels td')]
    .filter(c => c.textContent.trim() && c.offsetParent !== null)
    .filter(c => !(c.closest('thead') && getComputedStyle(c.closest('thead')).position === 'absolute'))  // cards' heads
    .map(c => {
        const range = document.createRange();
        range.selectNodeContents(c);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        const words = c.innerText.trim().split(/[\\s-]+/);  // a line may end at a space or a hyphen
        return {text: c.textContent.trim(), width: c.getBoundingClientRect().width, lines, words: words.length,
                letters: Math.max(...words.map(w => w.length))};
    })"""


@pytest.mark.parametrize(("size", "lang"), [("phone", "ru"), ("desktop", "it")])
def test_the_bot_level_table_keeps_its_words_whole(context_for, size, lang, artifacts: Path):  # noqa: F811
    page = context_for(size, lang)
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    for game in ("aeroplanes", "opensky", "blueskies"):
        page.select_option("#create-game", game)
        page.dispatch_event("#create-game", "change")
        page.click("details.bot-levels summary")
        cells = page.evaluate(CELLS)
        assert cells, "the table has cells"
        squeezed = [c for c in cells if c["width"] < 40 or c["lines"] > c["words"]]
        assert squeezed == [], f"{game} on a {size}: cells narrower than a word or with words broken: {squeezed[:4]}"
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"], \
            "the table does not push the page wider than the screen"
    page.locator("details.bot-levels").screenshot(path=str(artifacts / f"bot-levels-{size}-{lang}.png"))
