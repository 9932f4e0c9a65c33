"""The board on a phone with real touch input: Chromium's touch pipeline (CDP `Input.dispatchTouchEvent`, what a
touchscreen delivers, `touch-action` and pointer cancellation included), not pointer events made up in the page.

- two fingers pinch the board's zoom, one finger drags the zoomed board and never plays what it started on;
- a tap reaches every board target within 22 px of it (a 44 px fingertip), however small the target is drawn at
  "Fit" zoom: one near target is picked, several near ones narrow the action list to them (44 px buttons).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.webclient.test_browser import create_in_lobby

#: Browser suite (real touch input): `make test-integration`, which CI runs; `make test` keeps the
#: web client's representative ones (test_browser, test_archived_games, test_languages, test_csp_pages; make test's
#: ten-minute budget)
pytestmark = pytest.mark.integration

PHONE = {"width": 390, "height": 844}
FINGERTIP = 44


@pytest.fixture
def phone(browser, wc_gateway) -> Iterator:
    context = browser.new_context(base_url=wc_gateway.url, viewport=PHONE, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


class Fingers:
    """Touch points through the browser's input pipeline (CDP), in CSS pixels of the viewport."""

    def __init__(self, page) -> None:
        self.cdp = page.context.new_cdp_session(page)

    def _send(self, kind: str, points: list[tuple[float, float]]) -> None:
        self.cdp.send("Input.dispatchTouchEvent", {
            "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})

    def gesture(self, start: list[tuple[float, float]], end: list[tuple[float, float]], steps: int = 8) -> None:
        """Put the fingers down at `start`, move them in a straight line to `end`, lift them."""
        self._send("touchStart", start)
        for k in range(1, steps + 1):
            self._send("touchMove", [(x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps)
                                     for (x0, y0), (x1, y1) in zip(start, end, strict=True)])
        self._send("touchEnd", [])


def zoom_percent(page) -> float:
    return page.evaluate("100 * parseFloat(document.querySelector('#board svg').style.getPropertyValue('--zoom'))")


def frame_centre(page) -> tuple[float, float]:
    return page.evaluate("""() => {
        const b = document.querySelector('#board').getBoundingClientRect();
        return [b.left + b.width / 2, Math.max(b.top, 0) + (Math.min(b.bottom, innerHeight) - Math.max(b.top, 0)) / 2];
    }""")


def test_two_fingers_pinch_and_one_finger_drags_without_playing(phone, artifacts: Path):
    create_in_lobby(phone, "blueskies", 2, {0: "human", 1: "human"})
    phone.wait_for_selector("#board svg .clickable")
    phone.locator("#board").scroll_into_view_if_needed()
    fingers = Fingers(phone)
    cx, cy = frame_centre(phone)
    fingers.gesture([(cx - 30, cy), (cx + 30, cy)], [(cx - 90, cy), (cx + 90, cy)])
    assert zoom_percent(phone) == pytest.approx(300, rel=0.05)  # fingers 3x apart: 3x zoom
    assert "zoomed" in phone.get_attribute("#board", "class")
    # one finger dragging from a target pans the board and plays nothing
    before_version = phone.evaluate("document.body.dataset.version")
    scroll = phone.evaluate("[document.querySelector('#board').scrollLeft, document.querySelector('#board').scrollTop]")
    cx, cy = frame_centre(phone)
    fingers.gesture([(cx, cy)], [(cx - 80, cy - 60)])
    after = phone.evaluate("[document.querySelector('#board').scrollLeft, document.querySelector('#board').scrollTop]")
    assert after[0] > scroll[0] and after[1] > scroll[1], (scroll, after)
    phone.wait_for_timeout(300)
    assert phone.evaluate("document.body.dataset.version") == before_version, "a drag played no action"
    assert not phone.locator("#actions-filter").is_visible(), "a drag chose nothing"
    # fingers closing zoom back out to the fit
    cx, cy = frame_centre(phone)
    fingers.gesture([(cx - 120, cy), (cx + 120, cy)], [(cx - 20, cy), (cx + 20, cy)])
    assert zoom_percent(phone) == pytest.approx(100)
    phone.screenshot(path=str(artifacts / "touch-blueskies-phone.png"))


# Every interactive target's drawn size and a point 18 px from its nearest edge, in viewport pixels, at "Fit".
TARGETS = """() => [...document.querySelectorAll('#board svg .clickable[data-ref]')].map(g => {
    const hit = g.querySelector('.hit');
    const r = hit.getBoundingClientRect();
    let point;
    if (hit.tagName === 'line') {
        const m = hit.getScreenCTM(), at = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
        const [ax, ay] = at(hit.x1.baseVal.value, hit.y1.baseVal.value);
        const [bx, by] = at(hit.x2.baseVal.value, hit.y2.baseVal.value);
        const len = Math.hypot(bx - ax, by - ay);
        // the middle of the route, 18 px off it at a right angle
        point = [(ax + bx) / 2 - 18 * (by - ay) / len, (ay + by) / 2 + 18 * (bx - ax) / len];
    } else {
        point = [r.left + r.width / 2, r.top - 18];  // 18 px above its top edge
    }
    return {ref: g.dataset.ref, size: hit.tagName === 'line' ? 0 : Math.min(r.width, r.height), point};
})"""

#: the tap was answered: the decision moved on, or the target is picked
TAP_ANSWERED = """([ref, before]) => document.body.dataset.version !== before
    || [...document.querySelectorAll('#board svg .selected[data-ref]')].some(e => e.dataset.ref === ref)"""

TAP_OUTCOME = """ref => ({
    selected: [...document.querySelectorAll('#board svg .selected[data-ref]')].map(e => e.dataset.ref),
    filter: !document.querySelector('#actions-filter').hidden,
    version: document.body.dataset.version,
    focusIsAButton: !!document.activeElement
        && document.activeElement.matches('#action-list button, #action-list select'),
})"""


def test_aeroplanes_destinations_are_fingertip_sized_at_a_phones_fit(phone):
    """docs/decisions/webclient-trial.md (item 2, targets >= 44 px): the phone's "Readable" zoom draws Aeroplanes' board
    at the width that keeps its labels at 11 px (test_board_text.py), where every destination box is at least a
    fingertip in both directions."""
    create_in_lobby(phone, "aeroplanes", 3, dict.fromkeys(range(3), "human"))
    phone.wait_for_selector("#board svg .clickable")
    phone.click("#zoom-read")  # the phone opens the whole board; "Readable" is the zoom that keeps labels at 11 px
    targets = phone.evaluate(TARGETS)
    assert targets, "the opening decision names board targets"
    assert [t for t in targets if t["size"] < FINGERTIP] == []


@pytest.mark.parametrize("game,players,options", [("opensky", 2, {})])
def test_a_tap_within_22_px_reaches_every_small_target(phone, game, players, options, artifacts: Path):
    """At "Fit" on a 390 px phone the targets are drawn far under 44 px; a tap 18 px from any of them reaches it:
    it is picked (played, or the actions naming it listed) or listed with the other targets near the tap."""
    seats = {seat: "human" for seat in range(players)}
    create_in_lobby(phone, game, players, seats, options)
    phone.wait_for_selector("#board svg .clickable")
    targets = phone.evaluate(TARGETS)
    assert targets, "the opening decision names board targets"
    small = [t for t in targets if t["size"] < FINGERTIP]
    assert small, f"{game}: every target is already fingertip-sized at Fit, so this test would prove nothing"
    tested: list[str] = []
    while len(tested) < 6:
        small = [t for t in phone.evaluate(TARGETS) if t["size"] < FINGERTIP and t["ref"] not in tested]
        if not small:
            break
        target = small[len(small) // 2]  # from the middle of the board, where targets crowd
        tested.append(target["ref"])
        phone.evaluate("ref => document.querySelector(`#board svg [data-ref='${ref}']`)"
                       ".scrollIntoView({block: 'center', inline: 'center'})", target["ref"])
        x, y = next(t for t in phone.evaluate(TARGETS) if t["ref"] == target["ref"])["point"]
        before = phone.evaluate("document.body.dataset.version")
        phone.touchscreen.tap(x, y)
        with contextlib.suppress(PlaywrightTimeout):  # a busy machine may take more than a frame to answer
            phone.wait_for_function(TAP_ANSWERED, arg=[target["ref"], before], timeout=3000)
        out = phone.evaluate(TAP_OUTCOME, target["ref"])
        played = out["version"] != before
        if not (played or target["ref"] in out["selected"]):
            seen = phone.evaluate("""async ([x, y]) => { const t = await import('/js/taps.js');
                return [innerWidth, innerHeight, scrollY, t.nearTargets(document.querySelector('#board svg'), x, y),
                        document.elementFromPoint(x, y)?.outerHTML.slice(0, 80)]; }""", [x, y])
            pytest.fail(f"{game}: a tap at {x:.0f},{y:.0f} missed {target['ref']}: {out} {seen}")
        if played:  # the decision moved on; the next one may name other targets, or none
            phone.wait_for_function("() => !document.body.classList.contains('busy')")
            phone.wait_for_timeout(300)
            continue
        assert out["filter"] and out["focusIsAButton"], "the narrowed list is shown and focused"
        for box in phone.locator("#action-list button.action").evaluate_all(
                "els => els.map(e => e.getBoundingClientRect()).map(r => [r.width, r.height])"):
            assert min(box) >= FINGERTIP, box
        phone.get_by_role("button", name="Show all").click()
    assert len(tested) >= 3, f"{game}: only {tested} could be tried"
    phone.screenshot(path=str(artifacts / f"touch-{game}-after-taps.png"))


def test_a_tap_on_a_fingertip_sized_target_picks_it_even_beside_others(phone):
    """Blue Skies' cells are wider than a fingertip and 6 px apart: a tap inside one picks that one alone."""
    create_in_lobby(phone, "blueskies", 2, {0: "human", 1: "human"})
    phone.wait_for_selector("#board svg .clickable")
    targets = [t for t in phone.evaluate(TARGETS) if t["size"] >= FINGERTIP]
    assert targets
    ref = targets[0]["ref"]
    phone.locator(f'#board svg .clickable[data-ref="{ref}"]').scroll_into_view_if_needed()
    box = phone.locator(f'#board svg .clickable[data-ref="{ref}"] .hit').bounding_box()
    before = phone.evaluate("document.body.dataset.version")
    phone.touchscreen.tap(box["x"] + 8, box["y"] + 8)  # inside, 8 px from its corner: its neighbours are near
    phone.wait_for_timeout(150)
    out = phone.evaluate(TAP_OUTCOME, ref)
    assert out["version"] != before or out["selected"] == [ref], out


def test_the_lobby_fits_a_phone_whatever_its_seat_choices_say(phone, artifacts: Path):
    """The seat choices' texts are as long as a level's note (\"plays as mcts-normal in Aeroplanes: Aviation
    Ascendant\"); at 390 px no control of the New game form may reach past the screen or sit under another."""
    phone.goto("/")
    phone.wait_for_selector("#catalog tbody tr")
    for game in ("opensky", "aeroplanes", "blueskies"):
        phone.select_option("#create-game", game)
        phone.dispatch_event("#create-game", "change")
        phone.fill("#create-players", phone.get_attribute("#create-players", "max") or "4")
        phone.dispatch_event("#create-players", "change")
        width = phone.evaluate("document.documentElement.clientWidth")
        edges = phone.eval_on_selector_all(
            "#create-form select, #create-form input, #create-form button",
            "els => els.map(e => [e.id, e.getBoundingClientRect().right])")
        assert edges and [e for e in edges if e[1] > width] == [], (game, width)
        assert phone.evaluate("document.documentElement.scrollWidth") <= width, game
        phone.click("#create-submit", trial=True)  # nothing covers the button (Playwright's hit test)
        phone.locator("#create-form").screenshot(path=str(artifacts / f"lobby-phone-form-{game}.png"))
