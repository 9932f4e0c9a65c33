"""What the other browser tests left out of confirming, taking back and naming, on a 390 px phone and a desktop, in
Russian, Italian and Polish:

- an OpenSky sealed bid chosen from the action list (phone, Russian): "Confirm moves" (on by default on a phone) stages
  it, Cancel sends nothing, Confirm sends it; the seat then takes it back with the Take back button while the other
  airline still has to bid (OS-1.5, OS-10.1: bids are hidden until every bid is in, OS-10.3 reveals them), and the
  game is back at the same decision with the same choices;
- the Aeroplanes action type chosen from the action list before its details (desktop, Italian, "Confirm moves"
  turned on): staged, confirmed, then taken back while the same player's turn goes on (AE-6.4, AE-6.1);
- Blue Skies' region codes (NE, MA, SE, GL, CE, SW, WE in the engine's data) never show as they are (phone, Polish):
  the board, its legend, the action list, the log and the end screen name the regions in the page's language.

The positions come from seeded games of the engines, replayed move by move over REST into a real game: the other seats
are held by the test's REST tokens, so nothing moves on its own; the page holds one seat's token as the lobby stores it.
Every wait is on a condition of the page, never a fixed sleep.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

import engine
from engine.blueskies.data import BOARD as BS_DATA
from tests.webclient.rest import rest_game
from tests.webclient.test_log_numbers import render
from tests.webclient.test_phone import FINGERTIP, I18N, context_for, version, words  # noqa: F401  (the fixture)
from tests.webclient.test_playthrough import axe_check

pytestmark = pytest.mark.integration

CONFIRM = "#action-list button.confirm"
CANCEL = "#action-list .cancel-choice"


def catalogue(lang: str) -> dict:
    return json.loads((I18N / f"{lang}.json").read_text())


def _first_legal_until(name: str, players: int, seed: int, found) -> tuple[list, object]:
    """A seeded game of `name` played by each seat's first legal action until `found(state)` holds: the moves that
    lead there ([seat, action JSON]) and the state."""
    state = engine.get(name).new(players, seed, None)
    moves = []
    while not found(state):
        assert not state.is_over(), "the seeded game never reached the position"
        seat = state.to_act()[0]
        action = state.legal_actions(seat)[0]
        moves.append((seat, action.to_json()))
        state.apply(seat, action)
    return moves, state


def _replay(http: httpx.Client, name: str, players: int, seed: int, moves: list) -> tuple[str, dict]:
    """A real game of the same seed with every seat held by a REST token, `moves` played into it."""
    game_id, tokens = rest_game(http, "Gaps", {"game": name, "players": players, "seed": seed})
    _play(http, game_id, tokens, moves)
    return game_id, tokens


def _play(http: httpx.Client, game_id: str, tokens: dict, moves: list) -> None:
    for seat, action in moves:
        v = http.get(f"/v1/games/{game_id}").raise_for_status().json()["version"]
        http.post(f"/v1/games/{game_id}/actions", headers=tokens[seat],
                  json={"action": action, "expected_version": v}).raise_for_status()


def _game(http: httpx.Client, game_id: str, tokens: dict, seat: int) -> dict:
    return http.get(f"/v1/games/{game_id}", headers=tokens[seat]).raise_for_status().json()


def _actions(http: httpx.Client, game_id: str, tokens: dict, seat: int) -> list:
    return http.get(f"/v1/games/{game_id}/actions", headers=tokens[seat]).raise_for_status().json()["actions"]


def _open(page, game_id: str, name: str, seat: int, tokens: dict) -> None:
    """The game page holding `seat`'s token (only that seat's), as the lobby's New game form stores it."""
    token = tokens[seat]["Authorization"].split(" ", 1)[1]
    stored = [{"game_id": game_id, "game": name, "title": name, "player": "Gaps",
               "seats": [{"seat": seat, "token": token, "bot": None}]}]
    page.add_init_script(f"localStorage.setItem('skyboard.games', {json.dumps(json.dumps(stored))})")
    page.goto(f"/game.html?id={game_id}")


def _labels(page) -> list[str]:
    """The action list's choices as they read (each button's first line, without its hint)."""
    return page.locator("#action-list button.action").evaluate_all("bs => bs.map(b => b.childNodes[0].textContent)")


def _fits(page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box["height"] >= FINGERTIP and box["x"] + box["width"] <= page.viewport_size["width"], (selector, box)


# ----------------------------------------------------------------------------------------- OpenSky: a sealed bid

def _both_bid(state) -> bool:
    return state.phase == "bid" and sorted(state.to_act()) == [0, 1]



def _page_at(page, game_id: str, game: str, seat: int, tokens, action: dict, view: dict, lang: str):
    """The game open at `seat` once its action list offers `action`'s type and nothing is in flight, and the label
    the page's own renderer gives `action` there."""
    label = render([{"game": game, "lang": lang, "kind": "action", "action": action, "view": view, "me": seat}])[0]
    _open(page, game_id, game, seat, tokens)
    page.wait_for_selector(f'#action-list button.action[data-type="{action["type"]}"]')
    page.wait_for_function("() => !document.body.classList.contains('busy')")
    return page, label

def test_an_opensky_sealed_bid_is_confirmed_then_taken_back_on_a_phone_in_russian(context_for, wc_gateway):  # noqa: F811
    """OS-10.1: both airlines bid sealed, at once; OS-1.5: a sealed bid is hidden until OS-10.3's reveal, so the
    bid may be taken back while the other airline has not bid (engine/opensky/takeback.py)."""
    lang, me, other = "ru", 0, 1
    ui = words(lang)
    moves, _ = _first_legal_until("opensky", 2, 0, _both_bid)
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = _replay(http, "opensky", 2, 0, moves)
    at_start = _game(http, game_id, tokens, me)
    assert at_start["view"]["phase"] == "bid" and sorted(at_start["to_act"]) == [me, other]
    choices = _actions(http, game_id, tokens, me)
    assert {a["type"] for a in choices} == {"bid", "pass"}
    bid = next(a for a in choices if a["type"] == "bid")
    page, label = _page_at(context_for("phone", lang), game_id, "opensky", me, tokens, bid, at_start["view"], lang)
    assert page.locator("#confirm-moves").is_checked(), "on by default on a phone"
    start = int(version(page))
    assert start == at_start["version"]
    before = _labels(page)
    assert label in before

    def pick() -> None:
        buttons = page.locator("#action-list button.action")
        buttons.nth(before.index(label)).click()
        page.locator(CONFIRM).wait_for()

    pick()
    assert label in page.inner_text(CONFIRM)
    assert page.inner_text("#action-list legend") == ui["confirm_heading"]
    for selector in (CONFIRM, CANCEL):
        _fits(page, selector)
    axe_check(page, "an OpenSky bid waiting for its confirmation")
    assert _game(http, game_id, tokens, me)["version"] == start, "nothing is sent before the confirmation"
    page.locator(CANCEL).click()
    page.wait_for_function("() => !document.querySelector('#action-list button.confirm')")
    assert _labels(page) == before, "every choice again"
    game = _game(http, game_id, tokens, me)
    assert game["version"] == start and sorted(game["to_act"]) == [me, other], "Cancel sends nothing"

    pick()
    page.locator(CONFIRM).click()
    page.wait_for_function("v => +document.body.dataset.version === v", arg=start + 1)
    game = _game(http, game_id, tokens, me)
    assert game["view"]["phase"] == "bid" and game["to_act"] == [other], "sent; the other airline still bids"
    assert _actions(http, game_id, tokens, other), "the other seat has its bid to make"
    back = page.locator("#take-back")
    back.wait_for()
    assert back.inner_text() == ui["take_back"]
    _fits(page, "#take-back")
    assert page.locator("#action-list button.action").count() == 0, "my bid is in: nothing more to choose"

    log_before = page.locator("#log li").count()
    back.click()
    page.wait_for_function("v => +document.body.dataset.version === v && !document.body.classList.contains('busy')",
                           arg=start + 2)
    assert page.inner_text("#notice") == ui["taken_back_note"]
    page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=log_before)
    said = catalogue(lang)["platform"]["event"]["taken_back"].split("}", 1)[1].strip()
    assert said in page.inner_text("#log li:first-child"), "the log says the decision was taken back"
    game = _game(http, game_id, tokens, me)
    assert game["view"]["phase"] == "bid" and sorted(game["to_act"]) == [me, other], "the same decision"
    assert _actions(http, game_id, tokens, me) == choices, "the same choices (the fare card back in hand)"
    page.wait_for_selector('#action-list button.action[data-type="bid"]')
    assert _labels(page) == before
    assert page.locator("#take-back-row").is_hidden() == (not at_start["take_back"])


# --------------------------------------------------------------------------------- Aeroplanes: the action type

def _action_type(state) -> bool:
    seat = state.to_act()[0]
    return any(a.TYPE == "choose_action" for a in state.legal_actions(seat))


def test_the_aeroplanes_action_type_is_confirmed_then_taken_back_on_a_desktop_in_italian(context_for, wc_gateway):  # noqa: F811
    """AE-6.4: the turn's action is chosen before its details (AE-7 for a purchase); AE-6.1: a decision may be taken
    back while the same player's turn goes on and no die was rolled (engine/aeroplanes/takeback.py)."""
    lang = "it"
    ui = words(lang)
    moves, state = _first_legal_until("aeroplanes", 3, 7, _action_type)
    seat = state.to_act()[0]
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = _replay(http, "aeroplanes", 3, 7, moves)
    at_start = _game(http, game_id, tokens, seat)
    assert at_start["view"]["phase"] == "turn" and at_start["to_act"] == [seat]
    choices = _actions(http, game_id, tokens, seat)
    buy = {"type": "choose_action", "kind": "buy"}
    assert buy in choices
    page, label = _page_at(context_for("desktop", lang), game_id, "aeroplanes", seat, tokens, buy, at_start["view"],
                           lang)
    setting = page.locator("#confirm-moves")
    assert not setting.is_checked(), "off by default on a desktop"
    setting.check()
    start = int(version(page))
    before = _labels(page)
    assert label in before

    page.locator("#action-list button.action").nth(before.index(label)).click()
    page.locator(CONFIRM).wait_for()
    assert label in page.inner_text(CONFIRM)
    assert _game(http, game_id, tokens, seat)["version"] == start, "nothing is sent before the confirmation"
    page.locator(CANCEL).click()
    page.wait_for_function("() => !document.querySelector('#action-list button.confirm')")
    assert _labels(page) == before
    assert _game(http, game_id, tokens, seat)["version"] == start, "Cancel sends nothing"

    page.locator("#action-list button.action").nth(before.index(label)).click()
    page.locator(CONFIRM).click()
    page.wait_for_function("v => +document.body.dataset.version === v", arg=start + 1)
    game = _game(http, game_id, tokens, seat)
    assert game["view"]["phase"] == "buy" and game["to_act"] == [seat], "the purchase's details come next"
    page.wait_for_selector('#action-list button.action[data-type="buy_aircraft"], #action-list select')
    back = page.locator("#take-back")
    back.wait_for()
    assert back.inner_text() == ui["take_back"]
    back.click()
    page.wait_for_function("v => +document.body.dataset.version === v && !document.body.classList.contains('busy')",
                           arg=start + 2)
    assert page.inner_text("#notice") == ui["taken_back_note"]
    game = _game(http, game_id, tokens, seat)
    assert game["view"]["phase"] == "turn" and game["to_act"] == [seat], "back at the action's choice"
    assert _actions(http, game_id, tokens, seat) == choices
    page.wait_for_selector('#action-list button.action[data-type="choose_action"]')
    assert _labels(page) == before, "the same action types again"
    assert page.locator("#take-back-row").is_hidden() == (not at_start["take_back"])
    axe_check(page, "an Aeroplanes turn after a take-back")


# ----------------------------------------------------------------------------------------- Blue Skies: regions

#: the text a person reads: the page's visible text, the board's drawn words, the names and tooltips of its targets
#: (read aloud, or shown on hover), the log and the action list, whether scrolled to or not
READ = """() => {
    const board = document.querySelector('#board');
    const attrs = [...board.querySelectorAll('[aria-label]')].map(e => e.getAttribute('aria-label'));
    const titles = [...board.querySelectorAll('title')].map(e => e.textContent);
    const drawn = [...board.querySelectorAll('text')].map(e => e.textContent);
    return [document.body.innerText, ...attrs, ...titles, ...drawn,
            document.querySelector('#log').textContent, document.querySelector('#action-list').textContent,
            document.querySelector('#board-extra').textContent, document.querySelector('#final').textContent]
        .join('\\n');
}"""


def _no_region_codes(page, where: str) -> str:
    text = page.evaluate(READ)
    bare = re.compile(r"\b(?:" + "|".join(r.id for r in BS_DATA.regions) + r")\b")
    found = sorted({m.group(0) for m in bare.finditer(text)})
    context = [text[max(0, m.start() - 40):m.end() + 40] for m in bare.finditer(text)]
    assert not found, f"bare region codes on {where}: {found}: {context[:5]}"
    return text


def test_blue_skies_names_its_regions_never_their_codes_on_a_phone_in_polish(context_for, wc_gateway):  # noqa: F811
    """BS-9.2: the regions score at the end (majorities of gate values); the page names them in its language, on the
    board and its legend, in the log and on the end screen, never by the data file's codes."""
    lang = "pl"
    names = catalogue(lang)["blueskies"]["regions"]
    codes = [r.id for r in BS_DATA.regions]
    assert set(names) == set(codes) and len(codes) == 7

    def halfway(state) -> bool:
        return state.view(None).get("round", 1) >= 2 or state.is_over()

    moves, state = _first_legal_until("blueskies", 2, 0, halfway)
    assert not state.is_over()
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = _replay(http, "blueskies", 2, 0, moves)
    me = 0
    page = context_for("phone", lang)
    _open(page, game_id, "blueskies", me, tokens)
    page.wait_for_selector("#board svg .bs-airport")
    page.wait_for_function("() => document.querySelectorAll('#log li').length > 0")
    page.wait_for_function("() => !document.body.classList.contains('busy')")
    text = _no_region_codes(page, "a game under way")
    for code, name in names.items():
        assert name in text, f"the region {code} is named {name!r}"
    legend = page.locator("#board-extra .legend li").all_inner_texts()
    assert len(legend) == 7 and all(any(n in li for n in names.values()) for li in legend), legend
    multi = next(a for a in BS_DATA.airports if len(a.regions) >= 2)
    label = page.eval_on_selector(f'#board svg [data-ref="{multi.code}"]',
                                  "e => e.getAttribute('aria-label') || e.querySelector('title').textContent")
    for r in multi.regions:
        assert names[BS_DATA.regions[r].id] in label, (multi.code, label)

    # played to the end over REST: the log's final scoring and the end screen's region table
    rest = state.clone()
    ending = []
    while not rest.is_over():
        seat = rest.to_act()[0]
        action = rest.legal_actions(seat)[0]
        ending.append((seat, action.to_json()))
        rest.apply(seat, action)
    _play(http, game_id, tokens, ending)
    page.wait_for_function("() => !document.querySelector('#final').hidden", timeout=20_000)
    page.wait_for_function("() => !document.body.classList.contains('busy')")
    page.wait_for_selector("#final .regions-table tbody tr")
    text = _no_region_codes(page, "the end screen")
    table = page.inner_text("#final .regions-table")
    for code, name in names.items():
        assert name in table, f"the end screen names {code} {name!r}"
    assert any(name in page.inner_text("#log") for name in names.values()), "the log's final scoring names regions"
