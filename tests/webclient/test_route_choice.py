"""Choosing an Aeroplanes route (AE-8.2 to AE-8.12) on a 390 px phone and a desktop, in Russian and Italian:

- with many routes (a long-haul tile and many airports: 30 or more choices) the routes come easiest first, weighed as
  the targets' "easiest route" hint weighs them (the engine's own rolls, AE-8.9 to AE-8.12: the totals they need, less
  the rival bonus), five of them as buttons and the rest behind "N more choices", never a list box; no button's words
  are cut off; the route pointed at (a desktop's mouse) or waiting for its confirmation (a phone) is shown on the map:
  its connections and destinations;
- with one route only, the page makes the engine's route decision for the player: played at once with "Confirm moves"
  off (a desktop's default), staged for its Confirm button with the route on the map while it is on (a phone's); a
  take-back to that decision does not make it again.

The positions come from seeded games of the engine, replayed move by move over REST into a real game; the page holds
the seat's token as the lobby stores it. Every wait is on a condition of the page, never a fixed sleep.
"""

from __future__ import annotations

import json
import random

import httpx
import pytest

import engine
from ai.heuristics import for_game
from engine.aeroplanes import placement
from engine.aeroplanes.data import DATA
from tests.webclient.rest import rest_game
from tests.webclient.test_browser import wait_for_change
from tests.webclient.test_log_numbers import render
from tests.webclient.test_phone import I18N, context_for, version, words  # noqa: F401  (the fixture)

pytestmark = pytest.mark.integration

PLAYERS = 3


def _play_until(found, mix: float = 0.8):
    """Seeded 3-player games played by the heuristic (mixed with random moves) until `found(state)` holds: its seed,
    the moves that lead there ([seat, action JSON]) and the state."""
    game = engine.get("aeroplanes")
    rule = for_game("aeroplanes")
    for seed in range(40):
        state = game.new(PLAYERS, seed, None)
        rng = random.Random(seed)
        moves = []
        while not state.is_over():
            if found(state):
                return seed, moves, state
            seat = state.to_act()[0]
            actions = state.legal_actions(seat)
            action = rule.choose(state.determinize(seat, rng), seat, actions, rng) if rng.random() < mix \
                else rng.choice(actions)
            moves.append((seat, action.to_json()))
            state.apply(seat, action)
    raise AssertionError("no seeded game reached the position")


def _many_routes(state) -> bool:
    return state.view(None)["phase"] == "route" and len(state.legal_actions(state.to_act()[0])) >= 30


def _one_white_route(state):
    """A placement (not an upgrade) of the seat to act that reaches its target by one route only, with no roll, after
    which the same seat may place again (so the route can be taken back): the action, or None."""
    if state.view(None)["phase"] not in ("place", "place_more"):
        return None
    seat = state.to_act()[0]
    for action in state.legal_actions(seat):
        if action.TYPE != "place_tile" or action.replace == seat:
            continue
        after = state.clone()
        after.apply(seat, action)
        routes = after.legal_actions(seat)
        if len(routes) != 1:
            continue
        route = routes[0]
        target = after.pending["target"]
        via = None if route.via is None else DATA.index[route.via]
        if placement.required_rolls(after, seat, DATA.index[route.source], via, target):
            continue
        after.apply(seat, route)
        if after.to_act() == [seat] and after.view(None)["phase"] == "place_more":
            return action
    return None


def _replay(http: httpx.Client, seed: int, moves: list) -> tuple[str, dict]:
    game_id, tokens = rest_game(http, "Router", {"game": "aeroplanes", "players": PLAYERS, "seed": seed})
    for seat, action in moves:
        v = http.get(f"/v1/games/{game_id}").raise_for_status().json()["version"]
        http.post(f"/v1/games/{game_id}/actions", headers=tokens[seat],
                  json={"action": action, "expected_version": v}).raise_for_status()
    return game_id, tokens


def _open(page, game_id: str, seat: int, tokens: dict) -> None:
    """The game page holding `seat`'s token, as the lobby's New game form stores it."""
    token = tokens[seat]["Authorization"].split(" ", 1)[1]
    stored = [{"game_id": game_id, "game": "aeroplanes", "title": "Aeroplanes", "player": "Router",
               "seats": [{"seat": seat, "token": token, "bot": None}]}]
    page.add_init_script(f"localStorage.setItem('skyboard.games', {json.dumps(json.dumps(stored))})")
    page.goto(f"/game.html?id={game_id}")


def _label(action: dict, view: dict, seat: int, lang: str) -> str:
    case = {"game": "aeroplanes", "lang": lang, "kind": "action", "action": action, "view": view, "me": seat}
    return render([case])[0]


def _settled(page) -> None:
    """Every task the page had queued has run (a choice the page makes is queued after the redraw)."""
    page.evaluate("() => new Promise(r => setTimeout(() => setTimeout(r, 0), 0))")
    page.wait_for_function("() => !document.body.classList.contains('busy')")


@pytest.mark.parametrize(("size", "lang"), [("phone", "ru"), ("desktop", "it")])
def test_many_routes_come_easiest_first_and_show_on_the_map(context_for, wc_gateway, size, lang):  # noqa: F811
    seed, moves, state = _play_until(_many_routes)
    seat = state.to_act()[0]
    routes = state.legal_actions(seat)
    target = state.pending["target"]

    def weight(route) -> int:
        via = None if route.via is None else DATA.index[route.via]
        return sum(t - b for t, b in placement.required_rolls(state, seat, DATA.index[route.source], via, target))

    easiest_first = [r for _, _, r in sorted((weight(r), i, r) for i, r in enumerate(routes))]
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = _replay(http, seed, moves)
    view = http.get(f"/v1/games/{game_id}", headers=tokens[seat]).raise_for_status().json()["view"]
    assert view["phase"] == "route" and view["pending"]["target"] == DATA.destinations[target].id
    labels = render([{"game": "aeroplanes", "lang": lang, "kind": "action", "action": r.to_json(), "view": view,
                      "me": seat} for r in easiest_first])

    page = context_for(size, lang)
    _open(page, game_id, seat, tokens)
    group = page.locator("#action-list fieldset.ranked")
    group.wait_for()
    assert page.locator("#action-list select").count() == 0, "no list box"
    first = group.locator(":scope > button.action")
    assert first.count() == 5
    more = group.locator("details.more-choices")
    assert more.locator("summary").inner_text() == render([{"lang": lang, "kind": "ui", "key": "more_choices",
                                                           "params": {"n": len(routes) - 5}}])[0]
    more.locator("summary").click()
    buttons = group.locator("button.action")
    shown = buttons.evaluate_all("bs => bs.map(b => b.childNodes[0].textContent)")
    assert shown == labels, "easiest first, as the engine's rolls weigh them"
    cut = buttons.evaluate_all("""bs => bs.filter(b => b.scrollWidth > b.clientWidth + 1
        || b.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map(b => b.textContent)""")
    assert cut == [], "route words cut off"
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]

    def legs(route) -> int:
        return 1 if route.via is None else 2

    start = version(page)
    if size == "desktop":  # pointed at: the map shows the route; pointed away: nothing
        second = buttons.nth(1)
        second.hover()
        page.wait_for_function("n => document.querySelectorAll('#board svg .connection.preview').length === n",
                               arg=legs(easiest_first[1]))
        ends = page.eval_on_selector_all("#board svg .destination.preview", "gs => gs.map(g => g.dataset.ref)")
        assert {easiest_first[1].source, DATA.destinations[target].id} <= set(ends)
        page.mouse.move(1, 1)
        page.wait_for_function("() => !document.querySelector('#board svg .connection.preview')")
        buttons.first.click()  # "Confirm moves" is off on a desktop: played at once, and the engine takes it
        wait_for_change(page, start)
    else:  # a phone confirms: the route waits on the map for its Confirm button
        buttons.first.click()
        page.locator("#action-list button.confirm").wait_for()
        assert labels[0] in page.inner_text("#action-list button.confirm")
        assert page.locator("#board svg .connection.selected").count() == legs(easiest_first[0])
        assert version(page) == start
        page.locator("#action-list .cancel-choice").click()
        page.wait_for_function("() => !document.querySelector('#board svg .connection.selected')")


@pytest.mark.parametrize(("size", "lang"), [("phone", "ru"), ("desktop", "it")])
def test_a_single_route_is_chosen_for_the_player(context_for, wc_gateway, size, lang):  # noqa: F811
    seed, moves, state = _play_until(_one_white_route)
    seat = state.to_act()[0]
    place = _one_white_route(state)
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = _replay(http, seed, moves)
    view = http.get(f"/v1/games/{game_id}", headers=tokens[seat]).raise_for_status().json()["view"]
    after = state.clone()
    after.apply(seat, place)
    route = after.legal_actions(seat)[0]
    route_view = after.view(seat)
    route_label = _label(route.to_json(), route_view, seat, lang)
    place_label = _label(place.to_json(), view, seat, lang)
    ui = words(lang)
    only = ui["only_choice"].replace("{action}", route_label)

    page = context_for(size, lang)
    _open(page, game_id, seat, tokens)
    page.wait_for_selector("#action-list button.action, #action-list select")
    start = int(version(page))
    buttons = page.locator("#action-list button.action")
    index = buttons.evaluate_all("(bs, l) => bs.findIndex(b => b.childNodes[0].textContent === l)", place_label)
    if index >= 0:
        buttons.nth(index).click()
    else:  # many targets: the list box
        select = page.locator("#action-list select.action-select").first
        value = select.locator("option", has_text=place_label).first.get_attribute("value")
        select.select_option(value)
        select.locator("xpath=following-sibling::button[1]").click()
    if size == "phone":  # "Confirm moves" is on: the placement, then the route the page stages itself
        page.locator("#action-list button.confirm").click()
        page.wait_for_function("v => +document.body.dataset.version === v", arg=start + 1)
        confirm = page.locator("#action-list button.confirm")
        confirm.wait_for()
        assert route_label in confirm.inner_text()
        assert page.inner_text("#notice") == only
        assert page.locator("#board svg .connection.selected").count() == 1, "the route on the map"
        _settled(page)
        assert int(version(page)) == start + 1, "nothing sent before the confirmation"
        confirm.click()
        page.wait_for_function("v => +document.body.dataset.version === v", arg=start + 2)
        assert http.get(f"/v1/games/{game_id}").json()["view"]["phase"] == "place_more"
        return
    # "Confirm moves" off: the placement, and the route played for the player
    page.wait_for_function("v => +document.body.dataset.version >= v", arg=start + 2)
    _settled(page)
    game = http.get(f"/v1/games/{game_id}").json()
    assert game["version"] == start + 2 and game["view"]["phase"] == "place_more"
    assert page.inner_text("#notice") == only
    # taken back to the route decision: the page does not make it again, the player does
    page.locator("#take-back").click()
    page.wait_for_function("v => +document.body.dataset.version === v", arg=start + 3)
    _settled(page)
    assert int(version(page)) == start + 3
    assert http.get(f"/v1/games/{game_id}").json()["view"]["phase"] == "route"
    routes = page.locator("#action-list button.action")
    assert routes.count() == 1 and route_label in routes.first.inner_text()
    routes.first.click()
    page.wait_for_function("v => +document.body.dataset.version === v", arg=start + 4)
    assert http.get(f"/v1/games/{game_id}").json()["view"]["phase"] == "place_more"
