"""Every word the boards (js/boards/<game>.js) and the presentation modules (js/games/<game>.js) put on the page comes
from the message catalogue or from the game's data, checked in a real browser (see tests/webclient/words.py for how):
each title is played hot-seat, its first decisions by clicking with the page read after every one (the board, the
panels, the actions, the event log), the rest over REST, and then the end screen is read.
"""

from __future__ import annotations

import json
import random

import httpx
import pytest

from tests.webclient.words import data_words, serve_marked_catalogue, stray_words, view_words

pytestmark = pytest.mark.slow  # about a minute of browser play in all: `make test-slow`

NAME = "Quinn"  # the player account's name in the lobby: the seats are "Quinn 1", "Quinn 2", ...
# what the boards and the presentation modules draw: the board and its panels, the player strip, my resources, the
# table, the status bar's phase line, the phase note, the actions (the picker's own "Play the selected choice" and
# "Choose:" are js/actions.js's, checked with the pages' words in test_page_words.py), the event log and the end screen
ROOTS = ["#board", "#board-extra", "#players", "#me", "#table-info", "#game-status", "#phase",
         "#action-list legend", "#action-list button.action:not(.play-selected)", "#action-list option", "#log li",
         "#final-scores", "#final-extra", "#winners"]
SKIP = "#log .muted"  # game.js's own "(only you see this)"
GAMES = [("aeroplanes", 3, {}), ("opensky", 2, {"map": "europe"}), ("opensky", 3, {"map": "north_america"}),
         ("blueskies", 3, {})]
STEPS = 30


def create_hot_seat(page, game: str, players: int, options: dict) -> str:
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    page.fill("#match-name", NAME)
    page.select_option("#create-game", game)
    page.fill("#create-players", str(players))
    page.dispatch_event("#create-players", "change")
    page.fill("#create-seed", "3")
    for option, value in options.items():
        page.select_option(f"select[data-option={option}]", json.dumps(value))
    for seat in range(players):
        page.select_option(f"#seat-kind-{seat}", "human")
    page.click("#create-submit")
    page.wait_for_url("**/game.html?id=*")
    return page.url.split("id=", 1)[1]


def decide(page, rng: random.Random) -> None:
    """Click one of the actions (a list box's choice now and then), and wait for the page to show what follows."""
    before = page.evaluate("document.body.dataset.version")
    # only the choices shown: a ranked list (Aeroplanes' routes) keeps its rest in a closed "more choices"
    buttons = page.locator("#action-list button.action:visible")
    button = buttons.nth(rng.randrange(buttons.count()))
    if "play-selected" in (button.get_attribute("class") or ""):
        select = button.locator("xpath=preceding-sibling::select[1]")
        select.select_option(index=rng.randrange(select.locator("option").count()))
    button.click()
    page.wait_for_function(
        """before => (document.body.dataset.version !== before && !document.body.classList.contains('busy'))
            || !document.querySelector('#final').hidden || document.querySelector('#error').textContent !== ''""",
        arg=before, timeout=20_000)
    assert not page.text_content("#error"), page.text_content("#error")


def finish_over_rest(page, base_url: str, game_id: str, rng: random.Random) -> None:
    """Play the game to its end with random legal actions over REST, with the seat tokens this browser holds; the
    page follows through its event stream."""
    games = page.evaluate("() => JSON.parse(localStorage.getItem('skyboard.games'))")
    seats = next(g["seats"] for g in games if g["game_id"] == game_id)
    tokens = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in seats}
    http = httpx.Client(base_url=base_url, timeout=30)
    for _ in range(3000):
        game = http.get(f"/v1/games/{game_id}").raise_for_status().json()
        if game["status"] != "active":
            return
        seat = game["to_act"][0]
        actions = http.get(f"/v1/games/{game_id}/actions", headers=tokens[seat]).raise_for_status().json()["actions"]
        http.post(f"/v1/games/{game_id}/actions", headers=tokens[seat], json={
            "action": rng.choice(actions), "expected_version": game["version"]})  # 409 if the page acted: go on
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game,players,options", GAMES, ids=["-".join([g[0], *g[2].values()]) for g in GAMES])
def test_every_word_on_the_board_and_panels_comes_from_the_catalogue_or_the_data(page, wc_gateway, game, players,
                                                                                options):
    """STEPS decisions by clicking, every one checked; then the rest of the game over REST and the end screen."""
    serve_marked_catalogue(page)
    game_id = create_hot_seat(page, game, players, options)
    allowed = data_words(httpx.get(f"{wc_gateway.url}/webclient/boards/{game}").json()) | {NAME}

    def check(when: str) -> None:
        nonlocal allowed
        allowed |= view_words(httpx.get(f"{wc_gateway.url}/v1/games/{game_id}").json()["view"])
        stray = stray_words(page, ROOTS, allowed, SKIP)
        assert not stray, f"{when}, words from no catalogue template: {stray[:12]}"

    rng = random.Random(game + str(players))
    for step in range(STEPS):
        page.wait_for_selector("#action-list button.action", timeout=20_000)
        check(f"after {step} decisions")
        decide(page, rng)
    finish_over_rest(page, wc_gateway.url, game_id, rng)
    page.wait_for_selector("#final:not([hidden]) table[data-breakdown=ready]", timeout=30_000)
    check("at the end")


def test_the_check_finds_a_word_the_code_wrote(page, wc_gateway):
    """The check itself: a word written into a board by code, not by a template, is found."""
    serve_marked_catalogue(page)
    create_hot_seat(page, "blueskies", 2, {})
    page.wait_for_selector("#board svg")
    allowed = data_words(httpx.get(f"{wc_gateway.url}/webclient/boards/blueskies").json()) | {NAME}
    assert stray_words(page, ROOTS, allowed, SKIP) == []
    page.evaluate("""() => {
        const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
        t.textContent = 'Regions';
        document.querySelector('#board svg').append(t);
        document.querySelector('#board svg g[data-ref]').setAttribute('aria-label', 'Airport JFK');
    }""")
    stray = stray_words(page, ROOTS, allowed, SKIP)
    assert ("#board text", "Regions", "Regions") in stray
    assert any(where == "#board g@aria-label" and word == "Airport" for where, word, _ in stray), stray
