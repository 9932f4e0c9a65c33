"""The web client in a real browser (headless Debian Chromium via Playwright): the lobby, then a game of
each title created through the lobby and played to the end by clicking the board and the action picker,
with the final scores on the page checked against the REST API; then the replay viewer.

Screenshots of the lobby and of each board mid-game go to test-artifacts/.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

# (game, players, options picked in the lobby, my click count at the mid-game screenshot)
VS_BOTS = [
    ("opensky", 2, {}, 10),
    ("opensky", 2, {"map": "north_america"}, 14),
    ("aeroplanes", 3, {}, 25),
    ("blueskies", 2, {}, 15),
]
MAX_STEPS = 600


def test_lobby_lists_the_catalog(page, wc_gateway, artifacts: Path):
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    catalog = httpx.get(f"{wc_gateway.url}/v1/catalog").json()
    rows = page.locator("#catalog tbody tr")
    assert rows.count() == len(catalog["games"])
    for game in catalog["games"]:
        assert page.locator("#catalog tbody th", has_text=game["title"]).count() == 1
    assert page.locator("#create-game option").count() == len(catalog["games"])
    page.screenshot(path=str(artifacts / "lobby.png"))


def _signed(x: float) -> str:
    """A rating as the lobby writes it in English: rounded half up (JavaScript's Math.round), a sign, thousands."""
    n = math.floor(x + 0.5)
    return f"{'+' if n > 0 else ''}{n:,}"


def test_lobby_says_what_each_bot_level_is_in_the_chosen_game(page, wc_gateway):
    """A game offers only the levels that play distinctly there, each in words a player understands with the engine's
    level id beside it and its think time (OpenSky three, Aeroplanes and Blue Skies four); an old name that plays as
    another level is shown as that level's alias, not offered. The table gives every level's rating at every player
    count of the game, with its 95% interval, or "not measured"."""
    catalog = httpx.get(f"{wc_gateway.url}/v1/catalog").json()
    details = {d["name"]: d for d in catalog["bot_level_details"]}
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    page.select_option("#create-game", "opensky")
    page.dispatch_event("#create-game", "change")
    labels = page.locator("#seat-kind-1 option").all_text_contents()
    assert labels == ["Human (this browser)", "Bot: Beginner (instant)", "Bot: Casual (instant)",
                      "Bot: Strong (instant)"]  # the level's name for players; the API's id is the tooltip
    assert page.locator("#seat-kind-1 option").nth(1).get_attribute("title") == "random"
    page.select_option("#create-game", "aeroplanes")
    page.dispatch_event("#create-game", "change")
    normal = details["mcts-normal"]["games"]["aeroplanes"]
    seconds = normal["think_seconds"]
    shown = f"{seconds:.2f} s" if seconds < 0.1 else f"{seconds:.1f} s"  # the lobby's rule: two decimals below 0.1 s
    labels = page.locator("#seat-kind-1 option").all_text_contents()
    assert f"Bot: Expert (thinks ~{shown} a move)" in labels
    assert details["mcts-hard"]["games"]["aeroplanes"]["same_as"] == "mcts-normal"
    assert not any("mcts-hard" in label or "mcts-easy" in label for label in labels)
    page.get_by_text("About the bot levels in Aeroplanes").click()
    heads = page.locator(".bot-levels thead th").all_text_contents()
    assert heads[-3:] == ["Rating, 3 players", "Rating, 4 players", "Rating, 5 players"]
    rows = page.locator(".bot-levels tbody tr")
    assert rows.count() == 4  # random, greedy, fast, mcts-normal
    row = page.locator(".bot-levels tbody tr", has=page.get_by_role("rowheader", name="Expert"))
    assert row.locator("th").inner_text() == "Expert", "no engine id in the words"
    assert row.locator("th").get_attribute("title") == "API level: mcts-normal · old names: mcts-hard"
    assert row.locator("td").nth(1).inner_text() == shown
    for column, players in enumerate(("3", "4", "5"), start=2):
        rated = normal["ratings"][players]
        cell = row.locator("td").nth(column).inner_text()
        assert cell == ("not measured" if rated is None else
                        f"{_signed(rated['rating'])} [{_signed(rated['low'])}, {_signed(rated['high'])}]"), players
    page.select_option("#create-game", "blueskies")
    page.dispatch_event("#create-game", "change")
    labels = page.locator("#seat-kind-1 option").all_text_contents()
    assert [label.split(" (")[0] for label in labels[1:]] == ["Bot: Beginner", "Bot: Casual", "Bot: Strong",
                                                               "Bot: Expert"]


def create_in_lobby(page, game: str, players: int, seats: dict[int, str], options: dict | None = None,
                    turn_seconds: int | None = None) -> str:
    """Fill the lobby's New game form (seat -> 'human' or 'bot:<level>') and return the new game's id."""
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    page.select_option("#create-game", game)
    page.fill("#create-players", str(players))
    page.dispatch_event("#create-players", "change")
    page.fill("#create-seed", "7")
    if turn_seconds is not None:
        page.fill("#create-turn-seconds", str(turn_seconds))
    for name, value in (options or {}).items():
        page.select_option(f"select[data-option={name}]", json.dumps(value))
    for seat, kind in seats.items():
        page.select_option(f"#seat-kind-{seat}", kind)
    page.click("#create-submit")
    page.wait_for_url("**/game.html?id=*")
    return page.url.split("id=", 1)[1]


def wait_for_change(page, before: str) -> None:
    page.wait_for_function(
        """before => {
            const status = document.body.dataset.version;
            return (status && status !== before && !document.body.classList.contains('busy'))
                || !document.querySelector('#final').hidden
                || document.querySelector('#error').textContent !== '';
        }""",
        arg=before, timeout=20_000,
    )
    error = page.text_content("#error")
    assert not error, f"the page shows an error: {error}"


# A point of a board target that a real click reaches (routes may cross others at their middle).
FIND_POINT = """el => {
    const group = el.closest('.clickable');
    const ctm = el.getScreenCTM();
    const candidates = [];
    if (el.tagName === 'line') {
        const len = el.getTotalLength();
        for (const t of [0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85]) candidates.push(el.getPointAtLength(len * t));
    } else {
        const b = el.getBBox();
        candidates.push({x: b.x + b.width / 2, y: b.y + b.height / 2}, {x: b.x + 3, y: b.y + 3});
    }
    for (const p of candidates) {
        const x = ctm.a * p.x + ctm.c * p.y + ctm.e;
        const y = ctm.b * p.x + ctm.d * p.y + ctm.f;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('.clickable') === group) return [x, y];
    }
    return null;
}"""


def play_one(page, rng: random.Random) -> None:
    """One decision by clicking: sometimes a highlighted board element, else a button of the picker."""
    cards = page.locator("#board-extra button.card-pick")  # Aeroplanes: cards on display named by actions
    if cards.count() and rng.random() < 0.3:
        cards.nth(rng.randrange(cards.count())).click()
        if page.locator("#actions-filter").is_visible():
            play_button(page, rng)
        return
    targets = page.locator("svg .clickable .hit")
    if targets.count() and rng.random() < 0.4:
        target = targets.nth(rng.randrange(targets.count()))
        try:
            target.scroll_into_view_if_needed(timeout=5_000)
            point = target.evaluate(FIND_POINT)
        except PlaywrightTimeout:
            # the board was redrawn with fewer targets between counting and reaching this one (a clean-clone run
            # found none left): play from the decision the page shows now, or nothing if it shows none (a bot
            # moved, and the caller's wait for the next version sees that)
            play_button(page, rng)
            return
        except PlaywrightError as exc:
            if "not attached" not in str(exc):
                raise
            # the board was redrawn for a newer version (a bot moved) between listing and reaching the target:
            # nothing is clicked, and the caller's wait for the next version sees the bot's
            return
        if point is not None:
            page.mouse.click(*point)
            if page.locator("#actions-filter").is_visible():  # several actions name it: pick among them
                play_button(page, rng)
            return
    play_button(page, rng)


def play_button(page, rng: random.Random) -> None:
    """Click one of the choices shown, as a player can: a ranked list (Aeroplanes' routes) shows its best few and
    keeps the rest in a closed "more choices", which a player sometimes opens first."""
    more = page.locator("#action-list details.more-choices:not([open]) > summary")
    if more.count() and rng.random() < 0.3:
        more.first.click()
    buttons = page.locator("#action-list button.action:visible")
    if not buttons.count():
        # the card just clicked was the one action naming it and went as a move: the list is being redrawn, and
        # the caller's wait for the next version checks that a move was indeed sent
        return
    button = buttons.nth(rng.randrange(buttons.count()))
    classes = (button.get_attribute("class") or "").split()
    if "play-selected" in classes:
        select = button.locator("xpath=preceding-sibling::select[1]")
        count = select.locator("option").count()
        select.select_option(index=rng.randrange(count))
    button.click()
    # a board choice is staged before this click, which is then its Confirm: the move is sent and the page redraws
    # without the button, so looking for a Confirm to press now would wait on one that is going away
    if "confirm" not in classes:
        confirm_if_asked(page)


def confirm_if_asked(page) -> None:
    """A choice from the list waits for its Confirm button while "Confirm moves" is on (by default on a phone)."""
    confirm = page.locator("#action-list button.confirm")
    if confirm.count():
        confirm.click()


def game_name(game: str, options: dict) -> str:
    return "-".join([game, *map(str, options.values())])


@pytest.mark.slow  # whole games clicked to the end, about a minute in all: `make test-slow` (in CI)
@pytest.mark.parametrize("game,players,options,shot_at", VS_BOTS, ids=[game_name(g[0], g[2]) for g in VS_BOTS])
def test_game_against_bots_played_to_the_end_by_clicking(
    page, wc_gateway, bot_worker, artifacts, game, players, options, shot_at
):
    """Seat 0 human in the browser, the other seats `random` bots moved by the real Celery worker."""
    name = game_name(game, options)
    seats = {0: "human", **{s: "bot:random" for s in range(1, players)}}
    game_id = create_in_lobby(page, game, players, seats, options)
    api = play_to_the_end(page, wc_gateway, game_id, name, shot_at, artifacts)
    assert set(api["bots"]) == {str(s) for s in range(1, players)}
    if game == "aeroplanes":
        check_aeroplanes_breakdown(page, wc_gateway, game_id)
    if name == "opensky":
        check_replay(page, artifacts)


def check_aeroplanes_breakdown(page, wc_gateway, game_id: str) -> None:
    """Aeroplanes' end screen breaks the VP out by source, from the engine's events (tests/webclient/test_end_screen.py
    checks each against them): Era 1-3, Americas bonus, AE-15.1; they add up to the total, nothing is "Other"."""
    page.wait_for_selector("#final-scores table[data-breakdown=ready]")
    heads = page.locator("#final-scores thead th")
    assert heads.all_text_contents()[2:] == ["Era 1", "Era 2", "Era 3", "Americas bonus",
                                             "Aircraft cards and passengers", "Money left (tie-break)", "Total"]
    rules = heads.evaluate_all("cells => cells.map(c => c.getAttribute('title'))")[2:]
    assert rules == ["AE-13", "AE-13", "AE-13", "AE-8.17", "AE-15.1", "AE-15.2", None]  # the rule ids, as tooltips
    for row in page.locator("#final-scores tbody tr").all():
        parts = row.locator('td[data-key^="era_"], td[data-key="america_bonus"], td[data-key="final_scoring"]')
        values = [int(v) for v in parts.evaluate_all("cells => cells.map(c => c.dataset.value)")]
        assert len(values) == 5 and sum(values) == int(row.get_attribute("data-score"))


@pytest.mark.slow  # a whole game clicked to the end: `make test-slow` (in CI)
def test_hot_seat_game_played_to_the_end_by_clicking(page, wc_gateway, artifacts):
    """Both OpenSky seats human in one browser: the page acts as whichever seat must act (sealed bids too)."""
    game_id = create_in_lobby(page, "opensky", 2, {0: "human", 1: "human"})
    api = play_to_the_end(page, wc_gateway, game_id, "hotseat-opensky", 30, artifacts)
    assert api["bots"] == {}


def test_board_targets_work_with_the_keyboard(page):
    """A board element named by legal actions is focusable; Enter stages its action (the Confirm button takes the
    focus, a second Enter plays it: docs/decisions/webclient-trial.md, item 3) or narrows the picker.

    The game has a 600 s turn clock set in the lobby: the bar counts down the time left instead of up."""
    create_in_lobby(page, "blueskies", 2, {0: "human", 1: "human"}, turn_seconds=600)
    page.wait_for_selector("#action-list button.action")
    assert page.text_content("#clock-label") == "Time left"
    assert re.fullmatch(r"(.+ )?(9:[0-5]\d|10:00)( · .+ (9:[0-5]\d|10:00))*", page.text_content("#clock"))
    target = page.locator("svg .clickable").first
    assert target.get_attribute("role") == "button" and target.get_attribute("tabindex") == "0"
    ref = target.get_attribute("data-ref")
    expected = [b for b in page.locator("#action-list button.action").all_text_contents() if ref in b]
    before = page.evaluate("document.body.dataset.version")
    target.focus()
    page.keyboard.press("Enter")
    if len(expected) == 1:
        page.wait_for_selector("#action-list button.confirm:focus")
        assert page.evaluate("document.body.dataset.version") == before, "nothing is sent before the confirmation"
        assert page.locator(f'svg [data-ref="{ref}"].selected').count() == 1
        page.keyboard.press("Enter")
        wait_for_change(page, before)
    else:
        assert page.locator("#actions-filter").is_visible()
        assert page.locator("#action-list button.action").all_text_contents() == expected
        assert page.locator(f'svg [data-ref="{ref}"].selected').count() == 1


def play_to_the_end(page, wc_gateway, game_id: str, name: str, shot_at: int, artifacts: Path) -> dict:
    """Click until the page shows the final scores; check them against the API's; return the API's game."""
    rng = random.Random(name)
    page.reqlog = []
    page.on("request", lambda r: page.reqlog.append((r.method, r.url[-60:], r.post_data)))
    steps = 0
    started = time.monotonic()
    while True:
        page.wait_for_selector("#action-list button.action, #final:not([hidden])", timeout=30_000)
        if page.locator("#final").is_visible():
            break
        if steps == shot_at:
            page.screenshot(path=str(artifacts / f"{name}.png"))
        before = page.evaluate("document.body.dataset.version")
        play_one(page, rng)
        try:
            wait_for_change(page, before)
        except Exception:
            page.screenshot(path=str(artifacts / f"failure-{name}.png"))
            print("REQUESTS", page.reqlog[-12:])
            raise
        steps += 1
        assert steps < MAX_STEPS, f"{name} did not end after {MAX_STEPS} clicks"
    api = httpx.get(f"{wc_gateway.url}/v1/games/{game_id}").json()
    assert api["status"] == "finished"
    rows = page.locator("#final-scores [data-seat]").all()
    shown = {int(r.get_attribute("data-seat")): int(r.get_attribute("data-score")) for r in rows}
    assert shown == dict(enumerate(api["scores"]))
    winners = {int(r.get_attribute("data-seat")) for r in rows if r.get_attribute("data-winner")}
    assert winners == set(api["winners"])
    ranked = [int(r.get_attribute("data-score")) for r in rows if not r.get_attribute("data-winner")]
    assert ranked == sorted(ranked, reverse=True), "the end screen ranks by placement, not by seat"
    assert page.text_content("#winners").startswith("Winner")
    assert page.locator("#log li").count() > 0, "the event log shows the game's events"
    print(f"{name}: {steps} clicks in {time.monotonic() - started:.1f}s")
    page.screenshot(path=str(artifacts / f"{name}-final.png"))
    return api


def check_replay(page, artifacts: Path) -> None:
    """The replay viewer steps through the finished game's log and ends on the final position."""
    page.click("#replay-open")
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_function("() => document.querySelector('#replay-info').textContent.startsWith('Setup')")
    page.click("#replay-next")
    page.wait_for_function("() => document.querySelector('#replay-info').textContent.startsWith('Step 1 of')")
    page.click("#replay-last")
    page.wait_for_function(
        "() => /^Step (\\d+) of \\1:/.test(document.querySelector('#replay-info').textContent)")
    assert page.text_content("#turn") == "Game over"
    assert page.locator("#board svg").count() == 1
    page.screenshot(path=str(artifacts / "replay.png"))


def test_a_player_resigns_or_aborts_from_the_page_after_confirming(page, wc_gateway, bot_worker, artifacts: Path):
    """Table basics: abort before anyone moved ends the game unrated; resigning a 2-player game ends it at once and
    the opponent wins (services/common/standings.py; the page then shows the end). Both ask for confirmation first."""
    dialogs: list[str] = []

    def answer(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    game_id = create_in_lobby(page, "blueskies", 2, {1: "bot:random"})
    page.get_by_role("button", name="Abort game").click()
    page.wait_for_function("() => document.body.dataset.status === 'aborted'")
    assert "unrated" in dialogs[-1]
    assert page.get_by_text("Game aborted").first.is_visible()
    assert page.get_by_role("button", name="Resign").is_hidden()
    with httpx.Client(base_url=wc_gateway.url) as http:
        assert http.get(f"/v1/games/{game_id}").json()["status"] == "aborted"

    game_id = create_in_lobby(page, "opensky", 2, {1: "bot:random"})
    page.get_by_role("button", name="Resign").click()
    try:
        page.wait_for_function("() => document.body.dataset.status === 'finished'", timeout=90_000)
    except PlaywrightTimeout:  # say what the page said (an error notice, the status it shows) and what the API says
        with httpx.Client(base_url=wc_gateway.url) as http:
            seen = http.get(f"/v1/games/{game_id}").json()
        raise AssertionError(f"page status {page.evaluate('document.body.dataset.status')!r}, notice "
                             f"{page.locator('#notice').inner_text()!r}, dialogs {dialogs}, game {seen}") from None
    assert "rank last" in dialogs[-1]
    with httpx.Client(base_url=wc_gateway.url) as http:
        game = http.get(f"/v1/games/{game_id}").json()
    assert game["status"] == "finished" and game["seats"][0]["status"] == "resigned" and game["winners"] == [1]
    page.screenshot(path=str(artifacts / "resigned.png"))


# Points along every border polyline, in page coordinates, with what a click there would reach.
BORDER_HITS = """() => {
    const out = [];
    for (const line of document.querySelectorAll('#board svg .borders polyline')) {
        const ctm = line.getScreenCTM();
        const len = line.getTotalLength();
        for (let d = 0; d <= len; d += 4) {
            const p = line.getPointAtLength(d);
            const x = ctm.a * p.x + ctm.c * p.y + ctm.e;
            const y = ctm.b * p.x + ctm.d * p.y + ctm.f;
            if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
            const hit = document.elementFromPoint(x, y);
            out.push({border: !!(hit && hit.closest('.borders, .map-legend')),
                      ref: hit?.closest('[data-ref]')?.dataset.ref || null});
        }
    }
    return out;
}"""


def test_north_america_borders_are_drawn_under_the_routes_and_never_take_a_click(page, artifacts: Path):
    """OpenSky North America: the US/Canada/Mexico borders and country names are drawn, cross-border routes say
    so (OS-21.3/21.4), every point of a border reaches the route or airport under it (or nothing), never the border."""
    page.set_viewport_size({"width": 1366, "height": 1400})
    create_in_lobby(page, "opensky", 2, {0: "human", 1: "human"}, {"map": "north_america"})
    page.wait_for_selector("#action-list button.action")
    page.wait_for_selector("#board svg .borders polyline")
    assert page.locator("#board svg .borders polyline").count() == 2
    assert page.locator("#board svg .borders").get_attribute("aria-hidden") == "true"
    names = page.locator("#board svg .country-name").all_text_contents()
    assert names == ["United States", "Canada", "Mexico"]
    yyz_jfk = page.locator('#board svg [data-ref="JFK-YYZ"]')
    label = yyz_jfk.get_attribute("aria-label") or yyz_jfk.locator("title").first.text_content()
    assert "cross-border United States\u2013Canada" in label and "Cross-border token" in label
    assert page.locator('#board svg [data-ref="JFK-YYZ"] .route-line.xb').count() == 1
    assert page.locator('#board svg [data-ref="BOS-JFK"] .route-line.xb').count() == 0
    for _ in range(40):  # play on until routes are targets (network planning)
        if page.locator("#board svg .route.clickable").count():
            break
        before = page.evaluate("document.body.dataset.version")
        page.locator("#action-list button.action").first.click()
        wait_for_change(page, before)
    assert page.locator('#board svg [data-ref="JFK-YYZ"].clickable').count() == 1
    hits = page.evaluate(BORDER_HITS)
    assert len(hits) > 100
    assert not any(h["border"] for h in hits), "a border (or the legend) took a click"
    # where a route crosses a border, the click reaches that route
    assert {"JFK-YYZ", "DFW-MTY"} & {h["ref"] for h in hits}
    page.locator("#board svg").screenshot(path=str(artifacts / "opensky-north_america-borders.png"))
    # the Europe board has no borders and no legend
    create_in_lobby(page, "opensky", 2, {0: "human", 1: "human"})
    page.wait_for_selector("#board svg .routes")
    assert page.locator("#board svg .borders, #board svg .map-legend").count() == 0


PINCH = """([from, to]) => {
    const frame = document.querySelector('#board');
    const box = frame.getBoundingClientRect();
    const cx = box.left + box.width / 2, cy = box.top + Math.min(box.height, innerHeight - box.top) / 2;
    const fire = (type, id, dx) => frame.dispatchEvent(new PointerEvent(type, {pointerId: id, pointerType: 'touch',
        isPrimary: id === 1, clientX: cx + dx, clientY: cy, bubbles: true, cancelable: true}));
    fire('pointerdown', 1, -from); fire('pointerdown', 2, from);
    for (let i = 1; i <= 5; i++) {
        const d = from + (to - from) * i / 5;
        fire('pointermove', 1, -d); fire('pointermove', 2, d);
    }
    fire('pointerup', 1, -to); fire('pointerup', 2, to);
    return 100 * parseFloat(frame.querySelector('svg').style.getPropertyValue('--zoom'));
}"""


#: the board's zoom in percent of its Fit (game/board.js sets --zoom on the board's <svg>)
ZOOM_PERCENT = "100 * parseFloat(document.querySelector('#board svg').style.getPropertyValue('--zoom'))"


def test_on_a_phone_the_board_pinches_and_drags_and_a_drag_never_plays(page, artifacts: Path):
    """390x844: two fingers pinch the board's zoom (pointer events), a drag pans the zoomed board inside its frame
    without playing the target it started on, the zoom buttons and keys still work, tap targets stay ≥ 44 px;
    every piece of art is a <use> of a symbol the sprite has, hidden from assistive technology."""
    page.set_viewport_size({"width": 390, "height": 844})
    create_in_lobby(page, "blueskies", 2, {0: "human", 1: "human"})
    page.wait_for_selector("#action-list button.action")
    page.wait_for_selector("#board svg .clickable")
    for sel in ("#zoom-in", "#zoom-out", "#zoom-reset", "#action-list button.action"):
        box = page.locator(sel).first.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (sel, box)
    page.locator("#board").scroll_into_view_if_needed()
    assert page.evaluate(PINCH, [40, 120]) == pytest.approx(300, rel=0.05)  # fingers 3x apart: 3x zoom
    assert "zoomed" in page.get_attribute("#board", "class")
    # a mouse drag that starts on a board target pans the frame and plays nothing
    before = page.evaluate("document.body.dataset.version")
    target = page.locator("#board svg .clickable .hit").first
    target.scroll_into_view_if_needed()
    point = target.evaluate(FIND_POINT)
    assert point is not None
    scroll = page.evaluate("[document.querySelector('#board').scrollLeft, document.querySelector('#board').scrollTop]")
    page.mouse.move(*point)
    page.mouse.down()
    page.mouse.move(point[0] - 60, point[1] - 40, steps=6)
    page.mouse.up()
    after = page.evaluate("[document.querySelector('#board').scrollLeft, document.querySelector('#board').scrollTop]")
    assert after != scroll, "the drag panned the board"
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.dataset.version") == before, "a drag played no action"
    assert not page.locator("#actions-filter").is_visible()
    # a pinch closing zooms out again; the keyboard and the buttons still zoom
    assert page.evaluate(PINCH, [150, 50]) == pytest.approx(100)
    page.focus("#board")
    page.keyboard.press("+")
    assert page.evaluate(ZOOM_PERCENT) == pytest.approx(150)
    page.click("#zoom-reset")
    assert page.evaluate(ZOOM_PERCENT) == pytest.approx(100)
    page.screenshot(path=str(artifacts / "blueskies-phone-board.png"))
    # the art: <use> of the sprite's symbols, aria-hidden
    sprite = page.request.get("/img/sprite.svg").text()
    symbols = set(re.findall(r'<symbol id="([^"]+)"', sprite))
    uses = page.evaluate("""() => [...document.querySelectorAll('use')].map(u => [u.getAttribute('href'),
        !!u.closest('[aria-hidden="true"]')])""")
    assert uses, "the board uses the sprite"
    for href, hidden in uses:
        assert href.startswith("/img/sprite.svg#") and href.split("#", 1)[1] in symbols, href
        assert hidden, href


RECORD_NOTIFICATIONS = """
window.__notified = [];
window.Notification = class {
  constructor(title, options) { window.__notified.push([title, options && options.body]); }
};
window.Notification.permission = "granted";
window.Notification.requestPermission = async () => "granted";
Object.defineProperty(document, "hidden", { get: () => true });
"""


@pytest.mark.integration  # make test-integration (CI); make test keeps the page's other table basics
def test_my_turn_can_ring_and_notify_when_the_page_is_hidden(page, wc_gateway, bot_worker) -> None:
    """Opt-in: once my turn comes back (the bot moved), a hidden page shows one browser notification per turn
    that starts, never one per redraw; the choice is remembered."""
    page.add_init_script(RECORD_NOTIFICATIONS)
    create_in_lobby(page, "blueskies", 2, {1: "bot:random"})
    page.get_by_label("Sound and notification on my turn").check()
    rng = random.Random(5)
    for _ in range(6):  # a few of my moves, each answered by the bot
        page.wait_for_selector("#action-list button.action", timeout=60_000)
        before = page.evaluate("document.body.dataset.version")
        play_one(page, rng)
        wait_for_change(page, before)
    notified = page.evaluate("window.__notified")
    assert notified, "my turn came back while the page was hidden"
    assert all(title.startswith("Your turn in Blue Skies") for title, _body in notified)
    assert len(notified) <= 7, "one per turn that starts, not one per redraw"
    page.reload()  # the page restores the choice once its script and catalogue have loaded: wait for it
    expect(page.get_by_label("Sound and notification on my turn")).to_be_checked(timeout=15_000)
