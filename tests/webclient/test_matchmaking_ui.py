"""Matchmaking from the lobby in a real browser: two people (two browser contexts) ask for a 2-player
Blue Skies game, one matchmaker pass pairs them, and each lobby links to the game page for its own seat."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.gateway.helpers import auth
from tests.gateway.test_matchmaking import new_player, run_matcher
from tests.webclient.test_languages import catalogue, set_language


def ask_for_match(page, name: str, bots_after_s: int) -> None:
    """Fill and send the lobby's Find a match form for a 2-player Blue Skies game; wait until the ticket is queued."""
    page.wait_for_selector("#catalog tbody tr")
    page.fill("#match-name", name)
    page.select_option("#match-game", "blueskies")
    page.fill("#match-players", "2")
    page.fill("#match-bots", str(bots_after_s))
    page.click("#match-submit")
    page.wait_for_selector("#match-cancel:visible")


def matcher_pass(settings) -> list:
    """One real matchmaker pass, off this thread: Playwright's sync API owns this thread's event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_matcher, settings).result(30)


def test_two_lobbies_are_matched_into_one_game(browser, wc_gateway):
    contexts = [browser.new_context(base_url=wc_gateway.url) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        for name, page in zip(("Ada", "Grace"), pages):
            page.goto("/")
            ask_for_match(page, name, 600)
            page.wait_for_selector("#match-status:has-text('Searching')")
        assert len(matcher_pass(wc_gateway.settings)) == 1
        seats = set()
        game_ids = set()
        for page in pages:
            link = page.wait_for_selector("#match-status a", timeout=10_000)
            link.click()
            page.wait_for_url("**/game.html?id=*")
            game_ids.add(page.url.split("id=", 1)[1])
            page.wait_for_function("() => document.querySelector('#actions-h').textContent.startsWith('Your actions')")
            # the seat list is filled once the first view arrived (names come with it)
            page.wait_for_function("() => document.querySelector('#seat-select').value !== ''")
            seats.add(page.eval_on_selector("#seat-select", "el => el.value"))
        assert len(game_ids) == 1 and seats == {"0", "1"}
    finally:
        for c in contexts:
            c.close()


def test_a_refused_search_says_why_in_the_pages_language(page, wc_gateway):
    """A search refused because its player is at a quota (20 active games, the service's
    default) ends in the lobby with the page's words for a refusal and the server's reason (which quota, the count)
    as the tooltip, not a bare status word."""
    with wc_gateway.client() as c:
        player_id, key = new_player(c, "Zajęta")
        for _ in range(20):
            r = c.post("/v1/games", headers=auth(key), json={"game": "blueskies", "players": 2})
            assert r.status_code == 201, r.text
    page.goto("/")
    set_language(page, "pl")
    page.evaluate("(p) => localStorage.setItem('skyboard.player', JSON.stringify(p))",
                  {"name": "Zajęta", "player_id": player_id, "api_key": key})  # the lobby's own account
    page.reload()
    ask_for_match(page, "Zajęta", 0)
    assert matcher_pass(wc_gateway.settings) == []
    said = catalogue("pl")["ui"]["search_refused"]
    page.wait_for_function("(said) => document.querySelector('#match-status').textContent === said", arg=said,
                           timeout=10_000)
    reason = page.get_attribute("#match-status", "title")
    assert "20 active games" in reason, reason
    assert page.is_hidden("#match-cancel")
