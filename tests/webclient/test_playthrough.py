"""Every game played to the end in Debian's Chromium the way a person would: reading only visible text and
accessible roles and names (no element ids, no engine field names), at desktop and phone sizes; axe-core
(vendored, tests/webclient/vendor/axe.min.js, MPL-2.0) finds no serious or critical violation on the lobby, the
game page and the end screen.

Screenshots (desktop and phone, mid-game and final) go to test-artifacts/play-*.png; the docs' come from here.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

#: minutes of wall clock: run by `make test-slow` (in CI), not by `make test`
pytestmark = pytest.mark.slow

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
# (title in the lobby, players, option label -> choice label, screenshot after this many of my decisions)
GAMES = [
    ("OpenSky", 2, {"Board side": "Europe"}, 12),
    ("OpenSky", 3, {"Board side": "North America"}, 12),
    ("Aeroplanes: Aviation Ascendant", 3, {}, 30),
    ("Blue Skies", 3, {}, 12),
]
MAX_DECISIONS = 800


def axe_check(page, where: str) -> None:
    """No serious or critical axe-core violation on the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # evaluated through the DevTools protocol, as the test's own code: the page's CSP (no inline script)
        # rightly blocks an injected <script> tag
        page.evaluate(AXE.read_text())
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]
           if v["impact"] in ("serious", "critical")]
    assert not bad, f"axe-core on {where}: {bad}"


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def person(request, browser, wc_gateway):
    size = request.param
    context = browser.new_context(base_url=wc_gateway.url, viewport=SIZES[size], is_mobile=size == "phone",
                                  has_touch=size == "phone")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.size = size
    yield pg
    context.close()
    assert not errors, f"console errors in the page: {errors}"


def create_game(page, title: str, players: int, options: dict[str, str]) -> None:
    page.goto("/")
    new_game = page.get_by_role("region", name="New game")
    new_game.get_by_label("Game", exact=True).select_option(label=title)
    count = new_game.get_by_label("Players", exact=True)
    count.fill(str(players))
    count.dispatch_event("change")
    for option, choice in options.items():
        new_game.get_by_label(option).select_option(label=choice)
    for n in range(2, players + 1):
        new_game.get_by_label(f"Player {n}", exact=True).select_option(label="Bot: Beginner (instant)")
    new_game.get_by_label("Player 1", exact=True).select_option(label="Human (this browser)")
    axe_check(page, "the lobby")
    new_game.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/game.html?id=*")


def log_state(page) -> tuple[int, str, str]:
    """The event log's length and newest line, and the game's version (a decision whose log line reads like the
    one before it, in a log kept to a fixed length, still moves the version on)."""
    items = page.get_by_role("region", name="Event log").get_by_role("listitem")
    n = items.count()
    return n, (items.first.inner_text() if n else ""), page.evaluate("() => document.body.dataset.version")


def decide(page, rng: random.Random) -> None:
    """Pick one of the choices the actions panel shows, as a person would."""
    panel = page.get_by_role("region", name=re.compile("^Your actions"))
    lists = panel.get_by_role("listbox")
    if lists.count() and rng.random() < 0.5:
        box = lists.nth(rng.randrange(lists.count()))
        labels = box.get_by_role("option").all_inner_texts()
        box.select_option(label=labels[rng.randrange(len(labels))])
        panel.get_by_role("button", name=re.compile("^Play the selected choice")).first.click()
        confirm_if_asked(panel)
        return
    # a choice, not the panel's own controls: Show all, Take back, and the Cancel beside a Confirm (a decision with one
    # choice only comes staged for its Confirm while "Confirm moves" is on: Cancel would only unstage it)
    buttons = (panel.get_by_role("button").filter(has_not_text="Show all").filter(has_not_text="Take back")
               .filter(has_not_text=re.compile("^Cancel$")))
    # the panel may redraw between the caller's wait and this count (a single choice played or staged for the
    # player as the page settles): wait for a choice to show rather than count an empty panel
    buttons.first.wait_for(state="visible", timeout=30_000)
    choice = buttons.nth(rng.randrange(buttons.count()))
    confirming = choice.inner_text().startswith("Confirm: ")
    choice.click()
    if not confirming:  # a staged choice's Confirm sends the move: no second Confirm comes, the page redraws
        confirm_if_asked(panel)


def confirm_if_asked(panel) -> None:
    """With "Confirm moves" on (a phone's default) a choice waits for its Confirm button, named with the choice."""
    confirm = panel.get_by_role("button", name=re.compile("^Confirm: "))
    if confirm.count():
        confirm.click()


@pytest.mark.parametrize("title,players,options,shot_at", GAMES, ids=[f"{g[0].split(':')[0]}-{g[1]}p" for g in GAMES])
def test_a_person_plays_to_the_end_by_what_the_page_says(
    person, bot_worker, artifacts, title, players, options, shot_at
):
    page = person
    rng = random.Random(f"{title}{players}{page.size}")
    create_game(page, title, players, options)
    page.get_by_role("heading", name=title).wait_for()
    actions = page.get_by_role("region", name=re.compile("^Your actions"))
    final = page.get_by_role("heading", name="Final standings")
    name = f"play-{title.split(':')[0].lower().replace(' ', '')}-{players}p-{page.size}"
    checked = False
    decisions = 0
    started = time.monotonic()
    while True:
        # my turn shows choice buttons; otherwise the panel says whom it waits for, and bots are "thinking…". The
        # panel's Take back button is no choice: it stays in the page (hidden, or shown while the game lets my last
        # decision be taken back) when it is not my turn, so only a visible button other than it counts
        page.wait_for_function(
            """() => [...document.querySelectorAll('h2')]
                    .some(h => h.textContent === 'Final standings' && h.offsetParent)
                || [...document.querySelectorAll('section')].some(s => s.getAttribute('aria-labelledby') &&
                    document.getElementById(s.getAttribute('aria-labelledby')).textContent.startsWith('Your actions') &&
                    [...s.querySelectorAll('button')]
                        .some(b => b.offsetParent && !b.textContent.startsWith('Take back'))
                    && !document.body.classList.contains('busy'))""", timeout=60_000)
        if final.is_visible():
            break
        assert page.title().startswith("▶ Your turn"), "the page title signals my turn"
        if not checked:
            axe_check(page, f"the {title} game page")
            checked = True
        if decisions == shot_at:
            page.screenshot(path=str(artifacts / f"{name}.png"), full_page=page.size == "phone")
        before = log_state(page)
        decide(page, rng)
        page.wait_for_function(
            """before => {
                const items = [...document.querySelectorAll('section')]
                    .find(s => s.querySelector('h2')?.textContent === 'Event log').querySelectorAll('li');
                return items.length !== before[0] || (items[0]?.innerText ?? '') !== before[1]
                    || document.body.dataset.version !== before[2]
                    || document.querySelector('[role=alert]').textContent !== '';
            }""", arg=list(before), timeout=30_000)
        alert = page.get_by_role("alert", include_hidden=True).inner_text()
        assert not alert, f"the page shows an error: {alert}"
        decisions += 1
        assert decisions < MAX_DECISIONS, f"{title} did not end after {MAX_DECISIONS} decisions"
    standings = page.get_by_role("region", name="Final standings")
    rows = standings.get_by_role("row").all_inner_texts()[1:]
    assert rows and rows[0].startswith("1st"), f"ranked by placement: {rows}"
    assert standings.get_by_text(re.compile("^Winners?")).is_visible()
    assert actions.locator("#action-list").get_by_text("The game is over.").is_visible()
    axe_check(page, f"the {title} end screen")
    page.screenshot(path=str(artifacts / f"{name}-final.png"), full_page=page.size == "phone")
    print(f"{name}: {decisions} decisions in {time.monotonic() - started:.1f}s")
