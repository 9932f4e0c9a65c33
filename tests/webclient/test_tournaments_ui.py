"""The tournaments page (services/webclient/static/tournaments.html, js/tournaments.js) in Debian's Chromium, over the
real gateway, game-state service and PostgreSQL, on a phone and a desktop: the events listed by state, an event
created with the organiser's form, entering and withdrawing, and a Swiss event run by a real director
(services/tournament_director, as tests/gateway/test_tournaments.py runs it): my table's game link appears as each
round is paired, the standings follow the event's feed, and the final standings show once it ends. Each language
renders the list and an event page with no missing catalogue key, no string wider than a phone, and no serious axe-core
violation.

The games end by resignation over REST (each table's other player resigns), so no clock or bot paces the test: the
module takes about a minute and a half under load, in `make test-integration` (CI) with the other browser suites."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.gateway.test_tournaments import DirectorThread
from tests.webclient.test_languages import OVERFLOW
from tests.webclient.test_page_words import catalog_words
from tests.webclient.test_playthrough import axe_check
from tests.webclient.words import serve_marked_catalogue, stray_words, words_of

I18N = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static" / "i18n"
SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
#: a catalogue key shown as itself: ui() of a key the catalogue lacks
RAW_KEY = re.compile(r"\b(?:tour|error|nav|lobby|final)_[a-z_]+\b")
WAIT_MS = 60_000


def words(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text())["ui"]


@pytest.fixture
def http(wc_gateway) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=wc_gateway.url, timeout=30) as client:
        yield client


def new_player(http: httpx.Client, name: str) -> dict[str, str]:
    made = http.post("/v1/players", json={"name": name}).raise_for_status().json()
    return {"name": name, "api_key": made["api_key"], "player_id": made["player_id"]}


def auth(p: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {p['api_key']}"}


def new_event(http: httpx.Client, organiser: dict[str, str], **extra) -> str:
    body = {"name": f"Cup {uuid.uuid4().hex[:6]}", "game": "blueskies", "players": 2, "rounds": 2, "byes": "score",
            "starts_at": int(time.time() * 1000) + 3_600_000, **extra}
    return http.post("/v1/tournaments", headers=auth(organiser), json=body).raise_for_status().json()["tournament_id"]


@pytest.fixture
def person(wc_gateway, browser) -> Iterator:
    """A browser context maker: a size and a language, this browser's account `me` kept as the lobby keeps it; every
    console error or uncaught exception fails the test."""
    opened: list = []

    def make(size: str, lang: str, me: dict[str, str] | None = None):
        ctx = browser.new_context(base_url=wc_gateway.url, viewport=SIZES[size], is_mobile=size == "phone",
                                  has_touch=size == "phone")
        script = f"localStorage.setItem('skyboard.lang', {json.dumps(lang)});"
        if me is not None:
            script += f"localStorage.setItem('skyboard.player', {json.dumps(json.dumps(me))});"
        ctx.add_init_script(script)
        pg = ctx.new_page()
        pg.errors = []
        pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
        pg.on("console", lambda msg: pg.errors.append(msg.text) if msg.type == "error" else None)
        opened.append(pg)
        return pg

    yield make
    for pg in opened:
        errors = pg.errors
        pg.context.close()
        assert not errors, f"console errors in the page: {errors}"


def no_raw_keys(page) -> None:
    text = page.inner_text("body")
    assert not RAW_KEY.findall(text), RAW_KEY.findall(text)[:5]


def fill_start_now(page) -> None:
    """The start field set to this minute in the browser's own time zone (the form's default is 10 minutes on; a
    start in the minute just begun is sent as now)."""
    page.evaluate("""() => { const ms = Date.now(); const el = document.getElementById('tour-start');
        el.value = new Date(ms - new Date(ms).getTimezoneOffset() * 60000).toISOString().slice(0, 16); }""")


def create_in_form(page, ui: dict[str, str], name: str, *, start_now: bool = False) -> str:
    """The organiser's form filled (Blue Skies at tables of 2, 2 rounds, a realtime clock) and sent; the new event's
    id from the address the page moves to."""
    form = page.get_by_role("region", name=ui["tour_create"])
    form.get_by_label(ui["tour_name"], exact=True).fill(name)
    form.get_by_label(ui["lobby_game"], exact=True).select_option("blueskies")
    form.get_by_label(ui["tour_table_size"], exact=True).fill("2")
    form.get_by_label(ui["tour_rounds"], exact=True).fill("2")
    form.get_by_label(ui["tour_clock"], exact=True).select_option("realtime")
    form.get_by_label(ui["tour_seconds"], exact=True).fill("600")
    form.get_by_label(ui["tour_byes"], exact=True).select_option("score")
    if start_now:
        fill_start_now(page)
    axe_check(page, "the tournament form")
    form.get_by_role("button", name=ui["tour_create_submit"]).click()
    try:
        page.wait_for_url("**/tournaments.html?id=*")
    except Exception as exc:
        raise AssertionError(f"not created: {page.inner_text('#tour-create-error')!r}") from exc
    return page.url.split("id=")[1]


def fact(page, key: str) -> str:
    return page.inner_text(f"#tour-facts dd[data-key='{key}']")


@pytest.mark.integration
def test_the_list_the_form_entering_and_withdrawing(wc_gateway, person, http, artifacts):
    """Desktop, English: the list shows an open event with its entrants, table size, rounds and start; the form
    creates an event with its settings (the page then shows it); the signed-in account enters (the standings list it)
    and withdraws; a full event refuses with the catalogue's words, never the server's English alone."""
    ui = words("en")
    me = new_player(http, "Ada")
    other = new_player(http, "Bea")
    listed = new_event(http, other, max_players=8)
    http.post(f"/v1/tournaments/{listed}/join", headers=auth(other)).raise_for_status()
    page = person("desktop", "en", me)
    page.goto("/")
    page.get_by_role("link", name=ui["nav_tournaments"]).click()
    page.wait_for_url("**/tournaments.html")
    row = page.locator(f".tour-group[data-status='open'] tr[data-tournament-id='{listed}']")
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[:4] == ["Blue Skies", "1 of 8", "2", "Swiss, 2 rounds"], cells
    assert re.search(r"\d{4}", cells[4]), cells  # the start, as a date
    no_raw_keys(page)
    axe_check(page, "the tournaments list")

    name = f"Evening Swiss {uuid.uuid4().hex[:4]}"
    tid = create_in_form(page, ui, name)
    page.locator("#tour-event-h").filter(has_text=name).wait_for()
    got = http.get(f"/v1/tournaments/{tid}").raise_for_status().json()
    assert (got["name"], got["game"], got["players"], got["rounds"], got["byes"], got["organiser"]) == (
        name, "blueskies", 2, 2, "score", me["player_id"])
    assert got["time_control"] == {"kind": "realtime", "seconds_per_decision": 600.0, "reserve_seconds": 0.0}
    assert fact(page, "clock") == "600 s a decision" and fact(page, "rated") == ui["no"]
    assert fact(page, "state").startswith("open for entries")

    # by keyboard alone: Tab reaches Enter, and after entering the focus is on Withdraw
    for _ in range(40):
        if page.evaluate("document.activeElement?.id") == "tour-join":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement?.id") == "tour-join"
    page.keyboard.press("Enter")
    page.get_by_role("button", name=ui["tour_withdraw"]).wait_for()
    page.wait_for_function("document.activeElement?.id === 'tour-withdraw'")  # focus follows once it is rendered
    assert page.locator(f"#tour-standings tr[data-player-id='{me['player_id']}'] th").inner_text() == "Ada (you)"
    assert fact(page, "entrants") == "1 of 64"
    assert page.inner_text("#tour-mine").startswith("Round 1 is paired at")
    axe_check(page, "an event I entered")
    page.get_by_role("button", name=ui["tour_withdraw"]).focus()
    page.keyboard.press("Enter")
    page.get_by_role("button", name=ui["tour_join"]).wait_for()
    assert page.inner_text("#tour-entry-note") == ui["tour_withdrawn_note"]
    mine = page.locator(f"#tour-standings tr[data-player-id='{me['player_id']}'] th")
    assert mine.inner_text() == "Ada (you) (withdrew)"

    full = new_event(http, other, max_players=2)
    for p in (other, new_player(http, "Cy")):
        http.post(f"/v1/tournaments/{full}/join", headers=auth(p)).raise_for_status()
    page.goto(f"/tournaments.html?id={full}")
    page.get_by_role("button", name=ui["tour_join"]).click()
    error = page.locator("#tour-entry-error")
    error.filter(has_text=ui["error_tournament_full"]).wait_for()
    assert error.inner_text() == ui["tour_join_failed"].replace("{message}", ui["error_tournament_full"])
    assert "full" in (error.get_attribute("title") or "")  # the server's English stays as the tooltip
    # the browser logs the refused request itself: that one line, and nothing else, is expected
    assert page.errors == ["Failed to load resource: the server responded with a status of 409 (Conflict)"]
    page.errors.clear()
    page.screenshot(path=str(artifacts / "tournaments-desktop-en.png"), full_page=True)


@pytest.mark.integration
@pytest.mark.parametrize("lang", ["en", "ru", "it", "pl"])
def test_the_list_and_an_event_render_in_each_language_on_a_phone(wc_gateway, person, http, lang, artifacts):
    """Every word from the catalogue (no key shown as itself), `<html lang>` following, nothing wider than a 390 px
    screen, no serious axe-core violation; dates and numbers as the language writes them."""
    ui = words(lang)
    me = new_player(http, "Mira")
    tid = new_event(http, me, time_control={"kind": "correspondence", "days_per_decision": 3}, rated=True)
    for p in (me, new_player(http, "Noor")):
        http.post(f"/v1/tournaments/{tid}/join", headers=auth(p)).raise_for_status()
    page = person("phone", lang, me)
    page.goto("/tournaments.html")
    page.locator(f"tr[data-tournament-id='{tid}']").wait_for()
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.title() == ui["tour_page_title"]
    assert page.inner_text("#tour-list-h") == ui["tour_events"]
    assert page.inner_text(".tour-group[data-status='open'] h3") == ui["tour_group_open"]
    no_raw_keys(page)
    assert not page.evaluate(OVERFLOW), page.evaluate(OVERFLOW)
    axe_check(page, f"the tournaments list ({lang})")

    page.goto(f"/tournaments.html?id={tid}")
    page.locator("#tour-standings tbody tr").nth(1).wait_for()
    assert page.inner_text("#tour-standings-h") == ui["tour_standings"]
    assert page.inner_text("#tour-mine-h") == ui["tour_my_table"]
    assert fact(page, "rated") == ui["yes"]
    days = {"en": "3 days", "ru": "3 дня", "it": "3 giorni", "pl": "3 dni"}[lang]
    assert fact(page, "clock").startswith(days), fact(page, "clock")
    start = http.get(f"/v1/tournaments/{tid}").json()["starts_at"]
    shown = page.evaluate("([ms, lang]) => new Intl.DateTimeFormat(lang, {dateStyle: 'medium', timeStyle: 'short'})"
                          ".format(new Date(ms))", [start, lang])
    assert fact(page, "start") == shown
    assert page.get_by_role("button", name=ui["tour_withdraw"]).is_visible()
    no_raw_keys(page)
    assert not page.evaluate(OVERFLOW), page.evaluate(OVERFLOW)
    axe_check(page, f"an event page ({lang})")
    page.screenshot(path=str(artifacts / f"tournament-phone-{lang}.png"), full_page=True)


DATES = """(starts) => starts.map((ms) => new Intl.DateTimeFormat('en', {dateStyle: 'medium', timeStyle: 'short'})
    .format(new Date(ms)))"""


@pytest.mark.integration
def test_the_tournament_pages_show_only_catalogue_words(page, wc_gateway, http):
    """The list with the form, and an event's page with its standings, served a marked catalogue
    (tests/webclient/words.py): every word is a template's, or data (the events' and players' names, the catalog's
    titles and options, the dates as the browser's Intl writes them), never English written into the script."""
    me = new_player(http, "Ada")
    tid = new_event(http, me, name="Midsummer Cup")
    for p in (me, new_player(http, "Bea")):
        http.post(f"/v1/tournaments/{tid}/join", headers=auth(p)).raise_for_status()
    page.add_init_script(f"localStorage.setItem('skyboard.player', {json.dumps(json.dumps(me))})")
    serve_marked_catalogue(page)
    page.goto("/tournaments.html")
    page.locator(f"tr[data-tournament-id='{tid}']").wait_for()
    events = [t for s in ("open", "running", "finished")
              for t in http.get("/v1/tournaments", params={"status": s}).json()["tournaments"]]
    allowed = catalog_words(wc_gateway.url) | {"Ada", "Bea"} | set().union(*(words_of(t["name"]) for t in events))
    allowed |= set().union(*(words_of(d) for d in page.evaluate(DATES, [t["starts_at"] for t in events])))
    stray = stray_words(page, ["body"], allowed)
    assert not stray, f"the tournaments list, words from no catalogue template: {stray[:12]}"
    assert page.title() == "\ue000Skyboard tournaments\ue001", page.title()

    page.goto(f"/tournaments.html?id={tid}")
    page.locator("#tour-standings tbody tr").nth(1).wait_for()
    stray = stray_words(page, ["body"], allowed)
    assert not stray, f"an event's page, words from no catalogue template: {stray[:12]}"
    assert page.title() == "Midsummer Cup\ue000 · Skyboard tournaments\ue001", page.title()


def standings(http: httpx.Client, tid: str) -> dict:
    return http.get(f"/v1/tournaments/{tid}/standings").raise_for_status().json()


def wait_round(http: httpx.Client, tid: str, n: int) -> dict:
    """The record once round `n` is paired and every table of it has its game."""
    deadline = time.monotonic() + 60
    while True:
        got = standings(http, tid)
        rounds = [r for r in got["rounds"] if r["round"] == n]
        if rounds and all(t["game_id"] for t in rounds[0]["tables"]):
            return rounds[0]
        assert time.monotonic() < deadline, f"round {n} was not paired: {got}"
        time.sleep(0.2)


def resign_all_but(http: httpx.Client, round_: dict, keep: str, people: dict[str, dict[str, str]]) -> None:
    """Each table of the round ends: its player other than `keep` (or its second player) resigns."""
    for table in round_["tables"]:
        quitter = next(p for p in table["players"][::-1] if p != keep)
        http.post(f"/v1/games/{table['game_id']}/resign", headers=auth(people[quitter])).raise_for_status()


@pytest.mark.integration  # a Swiss event of two rounds run by a real director, on a phone and a desktop (seconds each)
@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "pl")])
def test_a_swiss_event_run_by_the_director_pairs_my_table_and_ends_with_the_final_standings(
        wc_gateway, wc_service, person, http, size, lang, artifacts):
    ui = words(lang)
    me = new_player(http, "Ada")
    people = {me["player_id"]: me}
    page = person(size, lang, me)
    feeds: list[str] = []
    page.on("request", lambda r: feeds.append(r.url) if r.url.endswith("/events") else None)
    page.goto("/tournaments.html")
    page.locator("#tour-form").wait_for()
    tid = create_in_form(page, ui, f"Swiss {size}", start_now=True)
    page.get_by_role("button", name=ui["tour_join"]).click()
    page.get_by_role("button", name=ui["tour_withdraw"]).wait_for()
    assert any(url.endswith(f"/v1/tournaments/{tid}/events") for url in feeds), feeds  # the page follows the feed
    for name in ("Bea", "Cy", "Dan"):
        p = new_player(http, name)
        people[p["player_id"]] = p
        http.post(f"/v1/tournaments/{tid}/join", headers=auth(p)).raise_for_status()

    director = DirectorThread(wc_gateway.settings, wc_service.settings.key_prefix, wc_service.addr,
                              f"tournaments-{uuid.uuid4().hex[:6]}")
    try:
        # round 1: the feed's pairing shows my table's game, which this browser then plays with the account's key
        first = wait_round(http, tid, 1)
        mine = next(t for t in first["tables"] if me["player_id"] in t["players"])
        link = page.locator(f"#tour-my-game[data-game-id='{mine['game_id']}']")
        link.wait_for(timeout=WAIT_MS)
        assert page.inner_text("#tour-mine").startswith(ui["tour_mine_table"].split("{")[0].strip())
        assert fact(page, "state") == ui["tour_state_running"].replace("{round}", "1").replace("{rounds}", "2")
        axe_check(page, "a running event")
        game = http.get(f"/v1/games/{mine['game_id']}").raise_for_status().json()
        seat = next(s["seat"] for s in game["seats"] if s["player_id"] == me["player_id"])
        link.click()
        page.wait_for_url(f"**/game.html?id={mine['game_id']}")
        page.locator("#seat-select").wait_for(state="attached")
        page.wait_for_function("(seat) => document.getElementById('seat-select').value === String(seat)", arg=seat)
        page.go_back()
        page.wait_for_url(f"**/tournaments.html?id={tid}")

        # round 1 ends (my opponent resigns): round 2 is paired, my table and the standings move on
        resign_all_but(http, first, me["player_id"], people)
        second = wait_round(http, tid, 2)
        mine2 = next(t for t in second["tables"] if me["player_id"] in t["players"])
        page.locator(f"#tour-my-game[data-game-id='{mine2['game_id']}']").wait_for(timeout=WAIT_MS)
        page.wait_for_function("(sel) => document.querySelector(sel)?.textContent === '1'", timeout=WAIT_MS,
                               arg=f"#tour-standings tr[data-player-id='{me['player_id']}'] td[data-key='points']")
        page.locator(".tour-round[data-round='2']").wait_for()
        assert page.locator(".tour-round[data-round='1'] li").count() == 2

        # round 2 ends: the event ends, its final standings show (I won both games)
        resign_all_but(http, second, me["player_id"], people)
        page.locator("#tour-standings table.final-standings").wait_for(timeout=WAIT_MS)
    finally:
        director.stop()
    assert page.inner_text("#tour-standings-h") == ui["tour_final_standings"]
    final = standings(http, tid)
    assert final["status"] == "finished"
    rows = page.locator("#tour-standings tbody tr")
    assert rows.count() == 4
    ranked = [r["player_id"] for r in final["standings"]]
    assert [rows.nth(i).get_attribute("data-player-id") for i in range(4)] == ranked
    assert rows.nth(0).get_attribute("data-player-id") == me["player_id"]
    assert rows.nth(0).locator("td[data-key='points']").inner_text() == "2"
    page.locator("#tour-facts dd[data-key='state']").filter(has_text=ui["tour_state_finished"]).wait_for()
    assert page.inner_text("#tour-entry") == ui["tour_over"]
    assert page.get_by_role("button", name=ui["tour_join"]).count() == 0
    no_raw_keys(page)
    if size == "phone":
        assert not page.evaluate(OVERFLOW), page.evaluate(OVERFLOW)
    axe_check(page, "the final standings")
    page.screenshot(path=str(artifacts / f"tournament-final-{size}-{lang}.png"), full_page=True)

    page.goto("/tournaments.html")
    page.locator(f".tour-group[data-status='finished'] tr[data-tournament-id='{tid}']").wait_for()


def new_arena(http: httpx.Client, organiser: dict[str, str], *, starts_in_ms: int, length_ms: int, **extra) -> str:
    """An arena over REST (Blue Skies at tables of 2), starting `starts_in_ms` from now and lasting `length_ms`."""
    start = int(time.time() * 1000) + starts_in_ms
    body = {"name": f"Arena {uuid.uuid4().hex[:6]}", "kind": "arena", "game": "blueskies", "players": 2,
            "starts_at": start, "ends_at": start + length_ms, **extra}
    return http.post("/v1/tournaments", headers=auth(organiser), json=body).raise_for_status().json()["tournament_id"]


def localised_date(page, ms: int, lang: str) -> str:
    return page.evaluate("([ms, lang]) => new Intl.DateTimeFormat(lang, {dateStyle: 'medium', timeStyle: 'short'})"
                         ".format(new Date(ms))", [ms, lang])


TIMES = "\u00d7"  # the streak's multiplication sign
#: an arena of 90 minutes, streak after 3 wins times 3, bots after 30 s: how each language says it
ARENA_WORDS = {
    "en": {"format": "Arena, 1 hour 30 minutes", "streak": f"after 3 wins in a row, points {TIMES}3",
           "bots": "after 30 seconds of waiting"},
    "ru": {"format": "арена на 1 час 30 минут", "streak": f"после 3 побед подряд очки {TIMES}3",
           "bots": "когда ожидание длится 30 секунд"},
}


@pytest.mark.integration
@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "ru")])
def test_an_arena_shows_in_its_own_words_on_the_list_and_its_page(wc_gateway, person, http, size, lang, artifacts):
    """An arena made over REST: the list says "Arena" and its length (no rounds), its page its window (start and
    end as the language writes dates), "open, starts at ...", the streak rule and the bots' wait, its tables (none
    yet) under their own heading, no rounds, no byes; every word from the catalogue, axe clean."""
    ui = words(lang)
    said = ARENA_WORDS[lang]
    me = new_player(http, "Mira")
    tid = new_arena(http, me, starts_in_ms=3_600_000, length_ms=90 * 60_000, streak_after=3, streak_factor=3,
                    bots_after_s=30, max_players=8)
    for p in (me, new_player(http, "Noor")):
        http.post(f"/v1/tournaments/{tid}/join", headers=auth(p)).raise_for_status()
    got = http.get(f"/v1/tournaments/{tid}").raise_for_status().json()
    page = person(size, lang, me)
    page.goto("/tournaments.html")
    row = page.locator(f".tour-group[data-status='open'] tr[data-tournament-id='{tid}']")
    row.wait_for()
    assert row.locator("td[data-key='format']").inner_text() == said["format"]
    assert row.locator("td").nth(4).inner_text() == localised_date(page, got["starts_at"], lang)
    no_raw_keys(page)
    if size == "phone":
        assert not page.evaluate(OVERFLOW), page.evaluate(OVERFLOW)
    axe_check(page, f"the list with an arena ({lang})")

    page.goto(f"/tournaments.html?id={tid}")
    page.locator("#tour-standings tbody tr").nth(1).wait_for()
    start, end = (localised_date(page, got[k], lang) for k in ("starts_at", "ends_at"))
    assert fact(page, "kind") == ui["tour_kind_arena"]
    assert fact(page, "state") == ui["tour_arena_state_open"].replace("{date}", start)
    assert fact(page, "start") == start and fact(page, "ends") == end
    assert fact(page, "streak") == said["streak"]
    assert fact(page, "arena_bots") == said["bots"]
    assert page.locator("#tour-facts dd[data-key='rounds'], #tour-facts dd[data-key='byes']").count() == 0
    assert page.inner_text("#tour-rounds-h") == ui["tour_arena_tables"]
    assert page.inner_text("#tour-rounds-list") == ui["tour_arena_no_tables"]
    assert page.inner_text("#tour-mine") == ui["tour_arena_mine_before"].replace("{date}", start)
    assert page.locator("#tour-standings thead th").count() == 6  # an arena scores no byes: no column for them
    assert ui["tour_byes_count"] not in page.locator("#tour-standings thead").inner_text()
    no_raw_keys(page)
    if size == "phone":
        assert not page.evaluate(OVERFLOW), page.evaluate(OVERFLOW)
    axe_check(page, f"an arena's page ({lang})")
    page.screenshot(path=str(artifacts / f"arena-{size}-{lang}.png"), full_page=True)


@pytest.mark.integration
def test_the_form_makes_an_arena(wc_gateway, person, http):
    """Desktop, English: choosing Arena hides the rounds and the byes and shows the window's length and the streak
    (with the API's defaults: after 2 wins, times 2); the event made has the settings asked for."""
    ui = words("en")
    me = new_player(http, "Ada")
    page = person("desktop", "en", me)
    page.goto("/tournaments.html")
    form = page.get_by_role("region", name=ui["tour_create"])
    form.get_by_label(ui["tour_kind"], exact=True).wait_for()
    assert form.get_by_label(ui["tour_arena_length"], exact=True).is_hidden()
    form.get_by_label(ui["tour_kind"], exact=True).select_option("arena")
    assert form.get_by_label(ui["tour_rounds"], exact=True).is_hidden()
    assert form.get_by_label(ui["tour_byes"], exact=True).is_hidden()
    assert form.get_by_label(ui["tour_arena_starts"], exact=True).is_visible()
    assert form.get_by_label(ui["tour_streak_after"], exact=True).input_value() == "2"
    assert form.get_by_label(ui["tour_streak_factor"], exact=True).input_value() == "2"
    assert form.get_by_label(ui["tour_bots_after"], exact=True).input_value() == ""
    name = f"Evening Arena {uuid.uuid4().hex[:4]}"
    form.get_by_label(ui["tour_name"], exact=True).fill(name)
    form.get_by_label(ui["lobby_game"], exact=True).select_option("blueskies")
    form.get_by_label(ui["tour_table_size"], exact=True).fill("2")
    form.get_by_label(ui["tour_arena_length"], exact=True).fill("45")
    form.get_by_label(ui["tour_streak_after"], exact=True).fill("3")
    form.get_by_label(ui["tour_streak_factor"], exact=True).fill("4")
    form.get_by_label(ui["tour_bots_after"], exact=True).fill("20")
    no_raw_keys(page)
    axe_check(page, "the form for an arena")
    form.get_by_role("button", name=ui["tour_create_submit"]).click()
    try:
        page.wait_for_url("**/tournaments.html?id=*")
    except Exception as exc:
        raise AssertionError(f"not created: {page.inner_text('#tour-create-error')!r}") from exc
    tid = page.url.split("id=")[1]
    page.locator("#tour-event-h").filter(has_text=name).wait_for()
    got = http.get(f"/v1/tournaments/{tid}").raise_for_status().json()
    assert (got["kind"], got["name"], got["players"], got["rounds"], got["organiser"]) == (
        "arena", name, 2, 0, me["player_id"])
    assert got["ends_at"] - got["starts_at"] == 45 * 60_000
    assert (got["streak_after"], got["streak_factor"], got["bots_after_s"]) == (3, 4, 20)
    assert fact(page, "kind") == "Arena" and fact(page, "streak") == f"after 3 wins in a row, points {TIMES}4"
    axe_check(page, "an arena made with the form")


def open_tables(http: httpx.Client, tid: str) -> list[dict]:
    """The arena's tables whose game is created and has no result yet."""
    return [t for r in standings(http, tid)["rounds"] for t in r["tables"] if t["game_id"] and not t["places"]]


@pytest.mark.integration  # an arena of a 20 s window run by a real director; its games end by resignation
def test_an_arena_run_by_the_director_shows_my_table_its_tables_and_the_final_standings(
        wc_gateway, wc_service, person, http, artifacts):
    """Phone, Polish: once seated, "my table" is my latest table (no round named) with my game's link; the tables
    played list without round numbers, an aborted one marked so and counted as no game; after the window and the
    last game, "ended" and the final standings."""
    lang = "pl"
    ui = words(lang)
    me = new_player(http, "Ada")
    bea = new_player(http, "Bea")
    tid = new_arena(http, me, starts_in_ms=0, length_ms=20_000)
    for p in (me, bea):
        http.post(f"/v1/tournaments/{tid}/join", headers=auth(p)).raise_for_status()
    page = person("phone", lang, me)
    director = DirectorThread(wc_gateway.settings, wc_service.settings.key_prefix, wc_service.addr,
                              f"tournaments-{uuid.uuid4().hex[:6]}")
    try:
        deadline = time.monotonic() + 120
        while not open_tables(http, tid):
            assert time.monotonic() < deadline, f"no table seated: {standings(http, tid)}"
            time.sleep(0.2)
        first = open_tables(http, tid)[0]
        page.goto(f"/tournaments.html?id={tid}")
        page.locator(f"#tour-my-game[data-game-id='{first['game_id']}']").wait_for(timeout=WAIT_MS)
        mine = page.inner_text("#tour-mine")
        assert mine.startswith(ui["tour_arena_mine_table"].replace("{table}", "1").replace("{names}", "Bea")), mine
        assert page.locator(".tour-round h4").count() == 0  # an arena's tables name no round
        assert page.locator(".tour-round li[data-table='1']").count() == 1
        assert page.inner_text("#tour-rounds-h") == ui["tour_arena_tables"]
        no_raw_keys(page)
        axe_check(page, "a running arena")
        # Bea aborts the first game (nobody has decided yet): it counts as none played
        aborted = http.post(f"/v1/games/{first['game_id']}/abort", headers=auth(bea))
        assert aborted.status_code == 200, aborted.text
        # Bea resigns every game until the window is over and the last game has ended
        while standings(http, tid)["status"] != "finished":
            assert time.monotonic() < deadline + 120, f"the arena did not end: {standings(http, tid)}"
            for table in open_tables(http, tid):
                http.post(f"/v1/games/{table['game_id']}/resign", headers=auth(bea))
            time.sleep(0.5)
        page.locator("#tour-standings table.final-standings").wait_for(timeout=WAIT_MS)
    finally:
        director.stop()
    final = standings(http, tid)
    assert page.inner_text("#tour-standings-h") == ui["tour_final_standings"]
    rows = page.locator("#tour-standings tbody tr")
    ranked = [r["player_id"] for r in final["standings"]]
    assert [rows.nth(i).get_attribute("data-player-id") for i in range(2)] == ranked
    assert rows.nth(0).get_attribute("data-player-id") == me["player_id"]
    page.locator("#tour-facts dd[data-key='state']").filter(has_text=ui["tour_arena_state_finished"]).wait_for()
    tables = [t for r in final["rounds"] for t in r["tables"] if t["game_id"]]
    page.locator(".tour-round li").nth(len(tables) - 1).wait_for()
    [was_aborted] = [t for t in tables if t["game_id"] == first["game_id"]]
    assert was_aborted["ended"] and was_aborted["places"] is None, was_aborted
    row = page.inner_text(f".tour-round li[data-table='{was_aborted['number']}']")
    assert row.endswith(ui["tour_table_aborted"]), row
    played = sum(1 for t in tables if t["places"])   # (a game ending after the window counts none either)
    games = {r["player_id"]: r["games"] for r in final["standings"]}
    assert 0 < games[me["player_id"]] == games[bea["player_id"]] <= played < len(tables), (games, played, tables)
    last = tables[-1]
    mine = page.inner_text("#tour-mine")
    assert mine.startswith(ui["tour_arena_mine_result"].split("{table}")[0] + str(last["number"])), mine
    assert ui["tour_arena_mine_next"] not in mine
    assert not page.evaluate(OVERFLOW), page.evaluate(OVERFLOW)
    no_raw_keys(page)
    axe_check(page, "an arena's final standings")
    page.screenshot(path=str(artifacts / f"arena-final-phone-{lang}.png"), full_page=True)
