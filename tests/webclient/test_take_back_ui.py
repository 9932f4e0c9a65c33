"""Confirm and take back on the game page, on a 390 px phone and a desktop, in Italian:

- "Confirm moves" (on by default on a phone, off on a desktop, remembered in the browser): a choice from the action
  list then waits for the same Confirm step as a board choice; Cancel sends nothing;
- Take back: shown while the game lets my seat take back its last decision (a Blue Skies purchase until "done",
  BS-5.8); it puts the game back as it was, the log says so, and it goes once nothing is left to take back.

Every wait is on a condition of the page, never a fixed sleep.
"""

from __future__ import annotations

import json

import pytest

from tests.webclient.test_browser import create_in_lobby, wait_for_change
from tests.webclient.test_phone import FINGERTIP, I18N, context_for, version, words  # noqa: F401  (the fixture)

pytestmark = pytest.mark.integration

LANG = "it"
GATE = '#action-list button.action[data-type="buy_gate"]'


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_confirm_moves_and_take_back(context_for, size):  # noqa: F811
    page = context_for(size, LANG)
    ui = words(LANG)
    platform = json.loads((I18N / f"{LANG}.json").read_text())["platform"]
    create_in_lobby(page, "blueskies", 2, {0: "human", 1: "human"}, {"first_player": 0})
    page.wait_for_selector(GATE)
    page.wait_for_function("() => !document.body.classList.contains('busy')")
    setting = page.locator("#confirm-moves")
    assert setting.is_checked() == (size == "phone"), "on by default on a phone only"
    assert page.inner_text("label:has(#confirm-moves)").strip() == ui["confirm_moves"]
    assert page.locator("#take-back-row").is_hidden(), "nothing to take back before a decision"
    if size == "desktop":  # turned on, and remembered across a reload
        setting.check()
        page.reload()
        page.wait_for_selector(GATE)
        assert page.locator("#confirm-moves").is_checked()

    start = version(page)
    first = page.locator(GATE).first
    chosen = first.inner_text().split("\n")[0]
    first.click()
    confirm = page.locator("#action-list button.confirm")
    confirm.wait_for()
    assert confirm.inner_text().startswith(ui["confirm_play"].split("{")[0].strip())
    assert chosen in confirm.inner_text()
    assert page.inner_text("#action-list legend") == ui["confirm_heading"]
    assert version(page) == start, "nothing is sent before the confirmation"
    if size == "phone":
        for button in (confirm, page.locator("#action-list .cancel-choice")):
            box = button.bounding_box()
            assert box["height"] >= FINGERTIP and box["x"] + box["width"] <= page.viewport_size["width"], box
    page.locator("#action-list .cancel-choice").click()
    page.wait_for_function("() => !document.querySelector('#action-list button.confirm')")
    assert version(page) == start
    page.locator(GATE).first.click()
    page.locator("#action-list button.confirm").click()
    wait_for_change(page, start)
    bought = version(page)

    back = page.locator("#take-back")
    back.wait_for()
    assert back.inner_text() == ui["take_back"]
    if size == "phone":
        box = back.bounding_box()
        assert box["height"] >= FINGERTIP and box["x"] + box["width"] <= page.viewport_size["width"], box
    log_before = page.locator("#log li").count()
    back.click()
    wait_for_change(page, bought)
    assert int(version(page)) == int(bought) + 1, "a take-back is a new version"
    assert page.inner_text("#notice") == ui["taken_back_note"]
    page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=log_before)
    said = platform["event"]["taken_back"].split("}", 1)[1].strip()
    assert said in page.inner_text("#log li:first-child"), "the log says the decision was taken back"
    assert page.locator("#take-back-row").is_hidden(), "the turn's first decision: nothing earlier to take back"
    assert page.locator(GATE).count(), "the same choices again"

    # with the setting off a choice from the list is played at once, and can be taken back the same way
    if page.locator("#confirm-moves").is_checked():
        page.locator("#confirm-moves").uncheck()
    now = version(page)
    page.locator(GATE).first.click()
    wait_for_change(page, now)
    assert page.locator("#action-list button.confirm").count() == 0
    page.locator("#take-back").wait_for()
    page.locator("#take-back").click()
    wait_for_change(page, version(page))
    assert page.locator("#take-back-row").is_hidden()
