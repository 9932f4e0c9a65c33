"""The game page on a 390 px phone and on a desktop, in each language (docs/decisions/webclient-trial.md):

- item 3: a board choice is staged, never sent at once: the chosen element stands out, the other targets step back,
  a Confirm button (the action in words) takes the focus and Cancel takes the choice back; by mouse, keyboard and
  touch. A click on the crossing of two routes lists both routes' actions instead of playing the one drawn on top.
- item 2: every player card whole and with its key numbers, the board above the actions, nothing wider than the
  screen, the player strip never over the status bar, 44 px buttons.
- item 8: a replay step's status bar, players and last move are that step's, never the final position's.

Every wait is on a condition of the page, never a fixed sleep.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.webclient.rest import move, rest_game
from tests.webclient.test_browser import FIND_POINT, confirm_if_asked, create_in_lobby, wait_for_change

#: Browser suite (phone and desktop, four languages): `make test-integration`, which CI runs; `make test` keeps the
#: web client's representative ones (test_browser, test_archived_games, test_languages, test_csp_pages; make test's
#: ten-minute budget)
pytestmark = pytest.mark.integration

I18N = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static" / "i18n"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}
FINGERTIP = 44


def words(lang: str) -> dict:
    return json.loads((I18N / f"{lang}.json").read_text())["ui"]


@pytest.fixture
def context_for(browser, wc_gateway) -> Iterator:
    """A browser context at a size (phone: touch, mobile) in a language (remembered as the player's choice)."""
    opened: list = []

    def make(size: str, lang: str):
        phone = size == "phone"
        ctx = browser.new_context(base_url=wc_gateway.url, viewport=PHONE if phone else DESKTOP, is_mobile=phone,
                                  has_touch=phone)
        ctx.add_init_script(f"localStorage.setItem('skyboard.lang', {json.dumps(lang)})")
        page = ctx.new_page()
        page.js_errors = []
        page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
        page.on("console", lambda msg: page.js_errors.append(msg.text)
                if "Content Security Policy" in msg.text else None)
        opened.append(page)
        return page

    yield make
    for page in opened:
        errors = page.js_errors
        page.context.close()
        assert not errors, f"JavaScript errors or CSP violations in the page: {errors}"


def version(page) -> str:
    return page.evaluate("document.body.dataset.version")


def choose_on_board(page, size: str) -> str | None:
    """Choose board targets (a tap on a phone, a click on a desktop) until one is staged; its ref, or None."""
    refs = page.eval_on_selector_all("#board svg .clickable[data-ref]", "els => els.map(e => e.dataset.ref)")
    for ref in refs:
        hit = page.locator(f'#board svg .clickable[data-ref="{ref}"] .hit').first
        hit.scroll_into_view_if_needed()
        point = hit.evaluate(FIND_POINT)
        if point is None:
            continue
        if size == "phone":
            page.touchscreen.tap(*point)
        else:
            page.mouse.click(*point)
        page.wait_for_function("() => !document.querySelector('#actions-filter').hidden")
        if page.locator("#action-list button.confirm").count():
            return page.eval_on_selector("#board svg .selected[data-ref]", "e => e.dataset.ref")
        page.keyboard.press("Escape")  # several actions name it, or several targets were near: take it back
        page.wait_for_function("() => document.querySelector('#actions-filter').hidden")
    return None


@pytest.mark.parametrize(("size", "lang"), [  # one phone, one desktop here; the other two in test-slow
    ("phone", "ru"), ("desktop", "en"),
    pytest.param("phone", "pl", marks=pytest.mark.slow), pytest.param("desktop", "it", marks=pytest.mark.slow)])
def test_a_board_choice_is_staged_and_sent_only_when_confirmed(context_for, size, lang, artifacts: Path):
    page = context_for(size, lang)
    ui = words(lang)
    create_in_lobby(page, "blueskies", 2, {0: "human", 1: "human"})
    page.wait_for_selector("#board svg .clickable")
    before = version(page)
    ref = choose_on_board(page, size)
    assert ref, "some board target names a single action"
    confirm = page.locator("#action-list button.confirm")
    assert confirm.evaluate("b => b === document.activeElement"), "the Confirm button has the focus"
    assert confirm.inner_text().startswith(ui["confirm_play"].split("{")[0].strip())
    assert page.inner_text("#action-list legend") == ui["confirm_heading"]
    assert version(page) == before, "nothing is sent before the confirmation"
    assert page.locator("#board svg.staging").count() == 1
    others = page.eval_on_selector_all("#board svg .clickable:not(.selected)",
                                       "els => els.map(e => getComputedStyle(e).opacity)")
    assert others and all(float(o) < 1 for o in others), "the other targets step back"
    for button in (confirm, page.locator("#action-list .cancel-choice")):
        box = button.bounding_box()
        assert box["height"] >= FINGERTIP and box["x"] + box["width"] <= page.viewport_size["width"], box
    page.screenshot(path=str(artifacts / f"staged-{size}-{lang}.png"))
    # Cancel takes it back: every action again, nothing sent
    page.locator("#action-list .cancel-choice").click()
    page.wait_for_function("() => !document.querySelector('#action-list button.confirm')")
    assert page.locator("#actions-filter").is_hidden() and page.locator("#board svg .selected").count() == 0
    assert version(page) == before
    # chosen again and confirmed: played
    assert choose_on_board(page, size) == ref
    page.locator("#action-list button.confirm").click()
    wait_for_change(page, before)
    assert page.locator("#action-list button.confirm").count() == 0


CROSSING = """() => {
    // two clickable routes whose lines cross away from their airports, and a point of the crossing a click reaches
    const lines = [...document.querySelectorAll('#board svg .route.clickable .route-hit')].map(l => {
        const m = l.getScreenCTM(), at = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
        return {ref: l.closest('[data-ref]').dataset.ref, a: at(l.x1.baseVal.value, l.y1.baseVal.value),
                b: at(l.x2.baseVal.value, l.y2.baseVal.value)};
    });
    for (let i = 0; i < lines.length; i++) for (let j = i + 1; j < lines.length; j++) {
        const [p, q] = [lines[i], lines[j]];
        const ends = new Set([...p.ref.split('-'), ...q.ref.split('-')]);
        if (ends.size < 4) continue;  // routes sharing an airport meet there, not across
        const d = (q.b[1] - q.a[1]) * (p.b[0] - p.a[0]) - (q.b[0] - q.a[0]) * (p.b[1] - p.a[1]);
        if (!d) continue;
        const t = ((q.b[0] - q.a[0]) * (p.a[1] - q.a[1]) - (q.b[1] - q.a[1]) * (p.a[0] - q.a[0])) / d;
        const u = ((p.b[0] - p.a[0]) * (p.a[1] - q.a[1]) - (p.b[1] - p.a[1]) * (p.a[0] - q.a[0])) / d;
        if (t < 0.15 || t > 0.85 || u < 0.15 || u > 0.85) continue;
        const x = p.a[0] + t * (p.b[0] - p.a[0]), y = p.a[1] + t * (p.b[1] - p.a[1]);
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('.route.clickable')) return {x, y, refs: [p.ref, q.ref].sort()};
    }
    return null;
}"""


def test_a_click_on_crossing_routes_lists_both_and_plays_neither(context_for):
    """OpenSky Europe after the callsigns: routes are the targets; a click where two cross (FRA-LHR and AMS-CDG in
    the trial) narrows the actions to both routes' and sends nothing."""
    page = context_for("desktop", "en")
    create_in_lobby(page, "opensky", 2, {0: "human", 1: "human"}, {"map": "europe"})
    page.wait_for_selector("#action-list button.action")
    while not page.locator("#board svg .route.clickable").count():  # the callsigns (OS-4), from the list
        before = version(page)
        page.locator("#action-list button.action").first.click()
        wait_for_change(page, before)
    crossing = page.evaluate(CROSSING)
    assert crossing, "the map has crossing routes"
    before = version(page)
    page.mouse.click(crossing["x"], crossing["y"])
    page.wait_for_function("() => !document.querySelector('#actions-filter').hidden")
    selected = sorted(page.eval_on_selector_all("#board svg .selected[data-ref]", "els => els.map(e => e.dataset.ref)"))
    assert set(crossing["refs"]) <= set(selected), "both crossing routes (and any other that near) are listed"
    assert page.locator("#action-list button.confirm").count() == 0, "nothing staged: the player picks the route"
    listed = page.locator("#action-list button.action").all_inner_texts()
    named = [r.replace("-", "\N{EN DASH}") for r in selected]  # a route in words has an en dash between its airports
    assert len(listed) == len(selected) and all(any(r in t for t in listed) for r in named), (listed, selected)
    assert version(page) == before


@pytest.mark.parametrize(("game", "players", "lang"),
                         [("aeroplanes", 4, "it"), ("opensky", 4, "pl"), ("blueskies", 4, "ru"),
                          ("aeroplanes", 3, "en")])
def test_the_phone_layout_keeps_every_player_whole_and_the_board_above_the_actions(context_for, game, players, lang,
                                                                                   artifacts: Path):
    page = context_for("phone", lang)
    create_in_lobby(page, game, players, dict.fromkeys(range(players), "human"))
    page.wait_for_selector("#action-list button.action")
    page.wait_for_selector("#board svg")
    width = PHONE["width"]
    cards = page.eval_on_selector_all("#players .player-card", """els => els.map(e => {
        const r = e.getBoundingClientRect(), stats = e.querySelector('.pc-stats');
        return {left: r.left, right: r.right, stats: stats.getBoundingClientRect().height,
                dd: stats.querySelectorAll('dd').length};
    })""")
    assert len(cards) == players
    for card in cards:
        assert card["left"] >= 0 and card["right"] <= width, card
        assert card["stats"] > 0 and card["dd"] >= 2, "each player's key numbers are shown"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    top = lambda sel: page.evaluate(f"document.querySelector('{sel}').getBoundingClientRect().top + scrollY")  # noqa: E731
    assert top("#board") < top("#actions"), "the board is above the actions"
    assert page.evaluate("getComputedStyle(document.querySelector('#players')).position") != "sticky", \
        "the strip scrolls with the page: it never covers the status bar or a list"
    for box in page.locator("#action-list button.action").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect()).map(r => [r.width, r.height])"):
        assert box[1] >= FINGERTIP, box
    if game == "aeroplanes":  # the board's VPs/Era table (AE-13), the current era marked (web client trial, item 6)
        era = json.loads((I18N / f"{lang}.json").read_text())["aeroplanes"]["board"]["era_table_row"]
        assert page.locator("#board-extra .era-table tbody tr").count() == 3
        assert page.inner_text('#board-extra .era-table tr[aria-current="true"] th') == era.replace("{era}", "1")
        assert page.get_attribute("#era-table-h", "title") == "AE-13"
    page.screenshot(path=str(artifacts / f"phone-{game}-{lang}.png"), full_page=True)


def test_a_replay_step_shows_that_steps_status_not_the_end(context_for, wc_gateway):
    """OpenSky, 2 players: 32 moves (April to November), then a resignation ends the game; at replay step 1 the status
    bar names step 1's month (April, not the final November), who acts next and its move; nobody is "thinking…"."""
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = rest_game(http, "Replayer", {"game": "opensky", "players": 2, "seed": 4})
    for _ in range(32):
        move(http, game_id, tokens, lambda actions: actions[-1])
    http.post(f"/v1/games/{game_id}/resign", headers=tokens[0]).raise_for_status()
    page = context_for("desktop", "en")
    ui = words("en")
    page.goto(f"/game.html?id={game_id}&replay=1")
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_function("() => { const s = document.querySelector('#replay-step');"
                           " return s.value === '0' && +s.max > 0; }")
    assert http.get(f"/v1/games/{game_id}").json()["view"]["month_name"] == "November", "the game ended in November"
    page.click("#replay-next")
    page.wait_for_function("() => document.querySelector('#replay-step').value === '1'")
    step = http.get(f"/webclient/replay/{game_id}", params={"step": 1}).raise_for_status().json()
    assert page.inner_text("#turn") != ui["game_over"] and step["to_act"]
    assert "thinking" not in page.inner_text("#players")
    assert page.locator("#players .thinking").count() == 0
    assert page.locator("#players .player-card.acting").count() == len(step["to_act"])
    assert ui["replay_to_act"] in page.inner_text("#players")
    info = page.inner_text("#replay-info")
    said = info.split(" — ", 1)[1]
    assert said in page.inner_text("#last-move"), "the last move is this step's"
    assert page.inner_text("#clock") == "—"
    assert step["view"]["month_name"] == "April" and "April" in page.inner_text("#game-status"), "step 1's month"
    assert "November" not in page.inner_text("#game-status")
    page.click("#replay-last")
    page.wait_for_function("() => { const s = document.querySelector('#replay-step'); return s.value === s.max; }")
    last = http.get(f"/webclient/replay/{game_id}", params={"step": step["steps"]}).raise_for_status().json()
    assert last["view"]["month_name"] in page.inner_text("#game-status")
    assert last["action"] is None and page.inner_text("#replay-info"), "the resignation's step is told by its events"
    assert not page.inner_text("#error")


def test_a_player_has_the_same_name_in_every_browser(context_for, wc_gateway):
    """docs/decisions/webclient-trial.md, item 9: the creator's browser called its seat by the lobby's name, another
    browser "Player 1". Every browser now names a seat by its player's account (numbered when one player holds several
    seats)."""
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, _ = rest_game(http, "Mira", {"game": "blueskies", "players": 2, "seed": 2})
    page = context_for("phone", "pl")  # a browser that holds no seat of it: a spectator
    page.goto(f"/game.html?id={game_id}")
    page.wait_for_selector("#players .player-card")
    assert page.locator("#players .pc-name").all_inner_texts() == ["Mira 1", "Mira 2"]


def test_the_lobby_shows_my_rating_leaderboard_place_and_games_with_opponents_and_results(context_for, wc_gateway):
    """docs/decisions/webclient-trial.md, item 10: two players matched into a rated 2-player Blue Skies game; Grace
    resigns, Ada wins. Ada's lobby (a phone, in Russian) shows her rating and leaderboard place in Blue Skies and, in
    "My games", the game by its title (no id), against Grace, won."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.gateway.test_matchmaking import run_matcher

    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    people = {}
    for name in ("Ada", "Grace"):
        created = http.post("/v1/players", json={"name": name}).raise_for_status().json()
        auth = {"Authorization": f"Bearer {created['api_key']}"}
        ticket = http.post("/v1/matchmaking/tickets", headers=auth, json={
            "game": "blueskies", "players": 2, "options": {}, "bots_after_s": 600}).raise_for_status()
        people[name] = {**created, "name": name, "auth": auth, "ticket": ticket.json()["ticket_id"]}
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API owns this thread's event loop
        assert len(pool.submit(run_matcher, wc_gateway.settings).result(30)) == 1
    for person in people.values():
        t = http.get(f"/v1/matchmaking/tickets/{person['ticket']}", headers=person["auth"]).raise_for_status().json()
        person.update(game_id=t["game_id"], seat=t["seat"], token=t["token"])
    game_id = people["Ada"]["game_id"]
    grace = {"Authorization": f"Bearer {people['Grace']['token']}"}
    http.post(f"/v1/games/{game_id}/resign", headers=grace).raise_for_status()
    ada = people["Ada"]
    deadline = time.monotonic() + 30
    while "blueskies" not in http.get(f"/v1/players/{ada['player_id']}").json()["ratings"]:  # settled once the
        assert time.monotonic() < deadline, "the rated game was settled"  # gateway sees the ended game
        http.get(f"/v1/games/{game_id}").raise_for_status()
        time.sleep(0.2)
    board = http.get("/v1/leaderboard/blueskies", params={"limit": 500}).json()["entries"]
    rank = next(e["rank"] for e in board if e["player_id"] == ada["player_id"])

    page = context_for("phone", "ru")
    ui = words("ru")
    stored_player = {"name": "Ada", "api_key": ada["api_key"], "player_id": ada["player_id"]}
    stored_games = [{"game_id": game_id, "game": "blueskies", "title": "Blue Skies", "player": "Ada",
                     "seats": [{"seat": ada["seat"], "token": ada["token"], "bot": None}]}]
    page.add_init_script(f"localStorage.setItem('skyboard.player', {json.dumps(json.dumps(stored_player))});"
                         f"localStorage.setItem('skyboard.games', {json.dumps(json.dumps(stored_games))})")
    page.goto("/")
    row = page.wait_for_selector('#my-rating tr[data-game="blueskies"]')
    assert row.query_selector("th").inner_text() == ui["game_title_blueskies"]
    assert row.query_selector('[data-key="rating"]').inner_text().lstrip("-").replace("\u00a0", "").isdigit()
    assert row.query_selector('[data-key="place"]').inner_text() == ui["rating_place"].replace("{rank}", str(rank))
    page.wait_for_function("() => ![...document.querySelectorAll('#my-games .muted')].some(e => e.textContent === '…')")
    item = page.inner_text("#my-games li")
    assert item.startswith(ui["game_title_blueskies"]) and game_id not in item, item
    assert ui["game_against"].replace("{names}", "Grace") in item, item
    assert ui["game_won"].split(",")[0] in item, item
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


#: The move the last-move line shows, as the client recorded it from its events (state.js): its lines, and the
#: board refs they name that the board draws.
MOVE_SHOWN = """async () => {
    const { st } = await import('/js/game/state.js');
    const move = st.recent[st.recentAt];
    const svg = document.querySelector('#board svg');
    return {lines: move.lines, refs: move.refs.filter(r => svg.querySelector(`[data-ref="${CSS.escape(r)}"]`))};
}"""


def test_a_burst_of_bot_moves_can_be_stepped_through(context_for, bot_worker):
    """docs/decisions/webclient-trial.md, item 7: after my move two bots move at once; the last-move line offers the
    earlier one too, and stepping to it shows its words and marks its board elements, without playing anything."""
    page = context_for("desktop", "it")
    ui = words("it")
    create_in_lobby(page, "blueskies", 3, {0: "human", 1: "bot:random", 2: "bot:random"})
    for _ in range(12):  # my setup turn (gates, then done); the bots move once it ends
        page.wait_for_function("() => document.querySelector('#last-move .moves-stepper') || (!document.body"
                               ".classList.contains('busy') && document.querySelector('#action-list button.action'))",
                               timeout=60_000)
        if page.locator("#last-move .moves-stepper").count():
            break
        before = version(page)
        page.locator("#action-list button.action").last.click()
        wait_for_change(page, before)
    # my turn again: the burst is over, nothing moves while it is stepped through
    page.wait_for_selector("#action-list button.action")
    page.wait_for_function("() => !document.body.classList.contains('busy')")
    count = int(re.findall(r"\d+", page.inner_text("#last-move .moves-stepper .muted"))[1])
    assert count >= 2
    assert page.locator("#last-move .move-later").is_disabled()
    now = version(page)
    marked_moves = 0
    for n in range(count - 1, 0, -1):  # back to the burst's first move: a random bot's move may name no board element
        page.click("#last-move .move-earlier")
        shown = ui["moves_step"].replace("{n}", str(n)).replace("{count}", str(count))
        page.wait_for_function("s => document.querySelector('#last-move .moves-stepper .muted').textContent === s",
                               arg=shown)
        move = page.evaluate(MOVE_SHOWN)
        assert page.inner_text("#last-move .move-text") == ui["last_move"].replace("{text}", " · ".join(move["lines"]))
        assert page.locator("#last-move .move-later").is_enabled()
        named = set(move["refs"])
        marked = set(page.locator("#board svg .last-move").evaluate_all("els => els.map(e => e.dataset.ref)"))
        assert marked == named, f"move {n}'s board elements are marked, and only they"
        marked_moves += bool(marked)
    # a random bot draws "done" first at a purchase turn about 1 time in 20 (BS-5.8): some turn opens a gate
    assert marked_moves, "some move of the burst names a board element (BS-7.6, BS-8.1)"
    assert version(page) == now, "stepping plays nothing"


@pytest.mark.parametrize(("size", "lang"), [("phone", "pl"), ("desktop", "en")])
def test_a_long_list_of_choices_is_grouped_and_filtered(context_for, size, lang):
    """docs/decisions/webclient-trial.md, item 6: a choice among some 50 places (OpenSky's draft, OS-6; an Aeroplanes
    tile late in the game) was one long list box; it is grouped (the routes under the airport they start from) and a
    filter keeps the choices naming what is typed; Play plays the selected one."""
    page = context_for(size, lang)
    create_in_lobby(page, "opensky", 2, {0: "human", 1: "human"}, {"map": "europe"})
    for _ in range(8):  # the callsigns (OS-4), then the draft's list
        page.wait_for_selector("#action-list button.action")
        page.wait_for_function("() => !document.body.classList.contains('busy')")
        if page.locator("#action-list .long-list").count():
            break
        before = version(page)
        page.locator("#action-list button.action").first.click()
        confirm_if_asked(page)
        wait_for_change(page, before)
    long_list = page.locator("#action-list .long-list").first
    groups = long_list.locator("optgroup").evaluate_all("els => els.map(e => e.label)")
    assert len(groups) >= 5 and all(re.search(r"\([A-Z]{3}\)$", g) for g in groups), groups
    options = long_list.locator("option").all_inner_texts()
    assert len(options) > 40
    wanted = next(o.split()[-1] for o in options if sum(o.split()[-1] in x for x in options) == 1)  # a route
    filter_box = long_list.locator("input.choice-filter")
    box = filter_box.bounding_box()
    assert box["height"] >= FINGERTIP and box["x"] + box["width"] <= page.viewport_size["width"]
    filter_box.fill(wanted.lower())
    shown = long_list.locator("option").evaluate_all("els => els.filter(e => !e.hidden).map(e => e.textContent)")
    assert len(shown) == 1 and wanted in shown[0], shown
    assert long_list.locator("select").evaluate("s => s.selectedOptions[0].textContent") == shown[0]
    filter_box.fill("zzzz")
    assert long_list.locator("button.play-selected").is_disabled()
    filter_box.fill(wanted)
    before = version(page)
    long_list.locator("button.play-selected").click()
    confirm_if_asked(page)
    wait_for_change(page, before)
    assert wanted in page.inner_text("#log"), "the filtered choice was played"
