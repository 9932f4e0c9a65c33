"""Names and identifiers in the player's language: places as each language names them (OpenSky's airports, Blue
Skies' airports and regions), bot levels by their names for players, no rule id in any text a player reads, and the
publishers' terms where the rulebooks print them (the Italian OpenSky rules' "indicativo aeroportuale", the Polish
Blue Skies rules' "karty popytu"); a Russian player's filter of OpenSky's routes finds a city by its Russian name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.webclient.test_browser import create_in_lobby, wait_for_change
from tests.webclient.test_phone import confirm_if_asked, context_for, version  # noqa: F401  (context_for: a fixture)

I18N = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static" / "i18n"
DATA = Path(__file__).resolve().parents[2] / "engine"
LANGS = ("en", "ru", "it", "pl")
RULE_ID = re.compile(r"\b(?:AE|OS|BS)-\d+(?:\.\d+)*")


def catalogue(lang: str) -> dict:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def player_facing(cat: dict) -> dict[str, str]:
    """Every string of a catalogue a page may show: not the notes ("_" keys), and of a rules summary each rule's
    text, not the rule id it is keyed by (the id is its tooltip)."""
    out: dict[str, str] = {}

    def walk(x, path: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if not k.startswith("_"):
                    walk(v, f"{path}/{k}")
        elif isinstance(x, list):
            if path.endswith("/rules"):
                for rule_id, text in x:
                    out[f"{path}/{rule_id}"] = text
            else:
                for i, v in enumerate(x):
                    walk(v, f"{path}[{i}]")
        elif isinstance(x, str):
            out[path] = x

    walk(cat, "")
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_no_player_facing_string_names_a_rule_id(lang):
    """Rule ids ("OS-10", "AE-8.9") are for the rules summary's tooltips and the docs, never in a sentence a player
    reads: the lobby's help, the phases, the log lines, the panels, the board."""
    found = {path: text for path, text in player_facing(catalogue(lang)).items() if RULE_ID.search(text)}
    assert found == {}


def _opensky_airports() -> dict[str, str]:
    out = {}
    for side in ("europe", "north_america"):
        side_map = json.loads((DATA / "opensky" / "data" / f"{side}.json").read_text())
        out |= {a["code"]: a["name"] for a in side_map["airports"]}
    return out


#: places each language names otherwise than English (exonyms), a sample every language translates
EXONYMS = {
    "opensky/airports": {"LHR": "London", "CDG": "Paris", "MUC": "Munich", "FCO": "Rome", "WAW": "Warsaw",
                         "ARN": "Stockholm", "ATH": "Athens", "MEX": "Mexico City", "LIS": "Lisbon"},
    "blueskies/airports": {"PHL": "Philadelphia"},
}


@pytest.mark.parametrize("lang", ["ru", "it", "pl"])
def test_places_and_levels_are_named_in_the_language(lang):
    cat = catalogue(lang)
    en = catalogue("en")
    airports = cat["opensky"]["airports"]
    assert set(airports) == set(_opensky_airports()), "every airport of both board sides is named"
    assert en["opensky"]["airports"] == _opensky_airports(), "English names are the map's"
    for section, sample in EXONYMS.items():
        game, key = section.split("/")
        for code, english in sample.items():
            name = cat[game][key][code]
            assert name.split()[0] != english.split()[0], f"{lang} {section} {code}: {name}"
    if lang == "ru":  # Cyrillic: every name differs
        assert all(airports[c] != en["opensky"]["airports"][c] for c in airports)
        assert all(v != en["blueskies"]["airports"][c] for c, v in cat["blueskies"]["airports"].items())
    assert all(cat["blueskies"]["regions"][r] != en["blueskies"]["regions"][r] for r in en["blueskies"]["regions"])
    labels = {k: v for k, v in cat["ui"].items() if k.startswith("level_label_")}
    assert labels and all(v != en["ui"][k] for k, v in labels.items()), labels


def test_the_rulebooks_terms():
    """The terms the publishers print: the Italian OpenSky rules' "indicativo aeroportuale" (line 316), not the
    ungrammatical "Segnalini indicativo"; the Polish Blue Skies rules' "karty popytu" (lines 13, 17); a lease paid
    with change credit alone said grammatically in Russian."""
    it = player_facing(catalogue("it"))
    assert not [p for p, t in it.items() if "indicativo" in t.lower() and "segnalin" in t.lower()]
    assert catalogue("it")["ui"]["option_callsigns"] == "Indicativi aeroportuali"
    pl = catalogue("pl")["blueskies"]
    assert "popytu" in pl["state"]["hand_counts"] and "popytu" in pl["group"]["play_card"]
    assert "сдача в кредит" not in catalogue("ru")["opensky"]["text"]["credit_only"]


def test_a_russian_route_filter_finds_a_city_by_its_russian_name(context_for):  # noqa: F811
    page = context_for("desktop", "ru")
    create_in_lobby(page, "opensky", 2, {0: "human", 1: "human"}, {"map": "europe"})
    for _ in range(8):  # the callsigns, then the draft's list of routes
        page.wait_for_selector("#action-list button.action")
        page.wait_for_function("() => !document.body.classList.contains('busy')")
        if page.locator("#action-list .long-list").count():
            break
        before = version(page)
        page.locator("#action-list button.action").first.click()
        confirm_if_asked(page)
        wait_for_change(page, before)
    long_list = page.locator("#action-list .long-list").first
    options = long_list.locator("option").all_inner_texts()
    assert not [o for o in options if "Лондон" in o], "the options name routes by their codes"
    long_list.locator("input.choice-filter").fill("лондон")
    shown = long_list.locator("option").evaluate_all("els => els.filter(e => !e.hidden).map(e => e.textContent)")
    assert shown and all("LHR" in o for o in shown), shown
    assert len(shown) == sum("LHR" in o for o in options), "every route of London Heathrow, and only those"
