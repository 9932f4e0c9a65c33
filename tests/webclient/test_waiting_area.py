"""Aeroplanes' passenger waiting area is readable on a 390 px phone and a desktop (in Italian and Russian): a player
reads it every turn, and drawn at the map's scale its words were about 9 px and its chips cut off. Every passenger of
the waiting area's sections and of the overflow (AE-9.1, AE-9.5), as the game's view has them, is shown with its words
at 12 CSS px or more as rendered and inside its chip, the chip inside the screen.

Every wait is on a condition of the page, never a fixed sleep.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.webclient.test_browser import create_in_lobby
from tests.webclient.test_phone import I18N, context_for, version  # noqa: F401  (the fixture)

pytestmark = pytest.mark.integration

FLOOR_PX = 12

# every passenger label of the waiting area, wherever it is drawn (an SVG text or HTML), with its rendered size (its
# font size times the scale it is drawn at) and whether it lies inside its chip and its chip inside the viewport
LABELS = """labels => {
    const out = [];
    const own = el => [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const all = [...document.querySelectorAll('#board svg text, #board-extra *')]
        .filter(el => el.childElementCount === 0 || own(el));
    for (const el of all) {
        const text = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
        if (!labels.includes(text)) continue;
        const m = el.getScreenCTM ? el.getScreenCTM() : null;
        const scale = m ? Math.hypot(m.a, m.b) : 1;
        const chip = el.closest('.pax-chip') || el.previousElementSibling?.previousElementSibling || el;
        const r = el.getBoundingClientRect(), c = chip.getBoundingClientRect();
        const outside = r.left < c.left - 0.5 || r.right > c.right + 0.5
            || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5;
        const clipped = outside || el.scrollWidth > el.clientWidth + 1
            || c.right > document.documentElement.clientWidth + 0.5 || c.left < -0.5;
        out.push({text, px: parseFloat(getComputedStyle(el).fontSize) * scale, clipped});
    }
    return out;
}"""


def tile_label(lang: str, tile: dict, places: dict) -> str:
    board = json.loads((I18N / f"{lang}.json").read_text())["aeroplanes"]["board"]
    template = board["tile_vp" if tile.get("vp") else "tile"]
    return (template.replace("{place}", places[tile["destination"]]).replace("{capacity}", str(tile["capacity"]))
            .replace("{vp}", str(tile.get("vp", 0))))


@pytest.mark.parametrize(("size", "lang"), [("phone", "it"), ("desktop", "ru")])
def test_the_waiting_area_is_readable_and_no_chip_is_cut_off(context_for, wc_gateway, size, lang):  # noqa: F811
    page = context_for(size, lang)
    game_id = create_in_lobby(page, "aeroplanes", 3, {0: "human", 1: "human", 2: "human"})
    page.wait_for_selector("#action-list button.action")
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    view = http.get(f"/v1/games/{game_id}").raise_for_status().json()["view"]
    data = http.get("/webclient/boards/aeroplanes").raise_for_status().json()
    tiles = {t["id"]: t for t in data["passengers"]["tiles"]}
    places = json.loads((I18N / f"{lang}.json").read_text())["aeroplanes"]["places"]
    waiting = [t for section in view["waiting"].values() for t in section if t] + [t for t in view["overflow"] if t]
    assert len(waiting) == 24, "the 24 waiting spaces are full at the start (AE-3.1)"
    labels = [tile_label(lang, tiles[t], places) for t in waiting]
    page.locator("#board-extra").scroll_into_view_if_needed()
    shown = page.evaluate(LABELS, labels)
    assert sorted(s["text"] for s in shown) == sorted(labels), "every waiting passenger is shown, once"
    small = [s for s in shown if s["px"] < FLOOR_PX - 0.05]
    assert small == [], f"passenger words under {FLOOR_PX} px"
    assert [s for s in shown if s["clipped"]] == [], "chips cut off"
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    # each start city's section is named above its passengers (AE-9.1)
    heads = page.eval_on_selector_all(".waiting-section h4", "hs => hs.map(h => h.textContent)")
    assert heads == [places[s] for s in data["board"]["waitingSections"]]


@pytest.mark.parametrize(("size", "lang"), [("phone", "it"), ("desktop", "ru")])
def test_a_passenger_a_claim_names_is_a_button_that_chooses_it(context_for, wc_gateway, size, lang):  # noqa: F811
    """In the claim phase (AE-9.2) the passengers my legal claims name are buttons: choosing one leaves the claims of
    that passenger only (one aircraft: its Confirm step; several: the list narrowed to them), nothing sent."""
    from tests.webclient.test_route_choice import _open, _play_until, _replay

    seed, moves, state = _play_until(lambda s: s.view(None)["phase"] == "claim")
    seat = state.to_act()[0]
    claims = [a.to_json() for a in state.legal_actions(seat)]
    http = httpx.Client(base_url=wc_gateway.url, timeout=30)
    game_id, tokens = _replay(http, seed, moves)
    page = context_for(size, lang)
    _open(page, game_id, seat, tokens)
    page.wait_for_selector("#action-list button.action")
    picks = page.eval_on_selector_all(".waiting-area .pax-pick",
                                      "bs => bs.map(b => b.closest('[data-ref]').dataset.ref)")
    assert sorted(set(picks)) == sorted({f"tile:{a['tile']}" for a in claims}), "a button for each claimable passenger"
    start = version(page)
    ref = picks[0]
    page.locator(f'.waiting-area [data-ref="{ref}"] .pax-pick').click()
    naming = [a for a in claims if f"tile:{a['tile']}" == ref]
    if len(naming) == 1:
        page.locator("#action-list button.confirm").wait_for()
    else:
        page.wait_for_function("() => !document.querySelector('#actions-filter').hidden")
        assert page.locator("#action-list button.action").count() == len(naming)
    assert version(page) == start, "nothing sent"
