"""The pages' own words (the lobby, the game page's frame, the action picker, the replay, the clock) come from the
message catalogue's "ui" section, as the boards' and panels' do (test_board_words.py), so that a translation is a
new catalogue and nothing else.

Checked two ways: statically, that every word of index.html and game.html sits in an element marked with its
catalogue key (`data-i18n`, `data-i18n-attr` for attributes) whose English is the catalogue's, that every `ui()` key
the scripts name exists and every ui key is used; and in a real browser, that the lobby and a game page served a
marked catalogue (tests/webclient/words.py) show no word that is neither a catalogue template's nor the data's.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx

from tests.webclient.test_board_words import NAME, create_hot_seat
from tests.webclient.words import data_words, serve_marked_catalogue, stray_words, view_words, words_of

STATIC = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static"
CATALOGUE = STATIC / "i18n" / "en.json"
PAGES = ["index.html", "game.html", "tournaments.html"]
ATTRIBUTES = ("aria-label", "placeholder", "title", "alt")
LETTER = re.compile(r"[^\W\d_]")


def catalogue() -> dict:
    return json.loads(CATALOGUE.read_text())


class _PageWords(HTMLParser):
    """Every text and attribute of a page with the catalogue key that covers it (None: not covered)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None]] = []  # (tag, its data-i18n key)
        self.texts: list[tuple[str, str | None, str]] = []  # (tag, key, text)
        self.attributes: list[tuple[str, str, str | None, str]] = []  # (tag, attribute, key, value)
        self.keyed_parents: list[str] = []  # data-i18n elements that have child elements (their text would go)

    VOID = {"meta", "link", "input", "br", "img", "hr", "source"}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if self.stack and self.stack[-1][1] is not None:
            self.keyed_parents.append(f"<{self.stack[-1][0]} data-i18n={self.stack[-1][1]}> holds <{tag}>")
        pairs = dict(p.split(":", 1) for p in (found.get("data-i18n-attr") or "").split(";") if ":" in p)
        covered = {a.strip(): k.strip() for a, k in pairs.items()}
        for attribute in ATTRIBUTES:
            if found.get(attribute):
                self.attributes.append((tag, attribute, covered.get(attribute), found[attribute]))
        for attribute, key in covered.items():
            if attribute not in found:
                self.attributes.append((tag, attribute, key, ""))
        if tag not in self.VOID:
            self.stack.append((tag, found.get("data-i18n")))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if data.strip() and self.stack and self.stack[-1][0] not in ("script", "style"):
            self.texts.append((self.stack[-1][0], self.stack[-1][1], data.strip()))


def page_problems(html: str, ui: dict[str, str]) -> list[str]:
    """What is wrong with one page's words: a word outside a marked element, a key the catalogue lacks, English
    that differs from the catalogue's, a marked element holding elements (its children would be replaced)."""
    parser = _PageWords()
    parser.feed(html)
    problems = list(parser.keyed_parents)
    checks = [(f"<{tag}>", "data-i18n", key, text, f"<{tag}> data-i18n={key}") for tag, key, text in parser.texts]
    checks += [(f"<{tag} {attribute}={value!r}>", "data-i18n-attr", key, value, f"<{tag} {attribute}> key {key}")
               for tag, attribute, key, value in parser.attributes]
    for where, marker, key, words, keyed in checks:
        if key is None:
            if LETTER.search(words):
                problems.append(f"{where}{' ' + repr(words) if marker == 'data-i18n' else ''}: no {marker} key")
        elif key not in ui:
            problems.append(f"{keyed}: not in the catalogue's ui")
        elif ui[key] != words:
            problems.append(f"{keyed}: the page says {words!r}, the catalogue {ui[key]!r}")
    return problems


UI_CALL = re.compile(r"(?<![\w.$])ui\(((?:[^(),]|\([^()]*\))*)")


def ui_keys_used() -> tuple[set[str], set[str]]:
    """The ui keys the scripts and pages name: exact keys, and families (`place_${n}` -> "place_", read through
    `catalogue().ui?.[\\`game_title_${...}\\`]` too)."""
    exact: set[str] = set()
    families: set[str] = set()
    for path in sorted((STATIC / "js").rglob("*.js")):
        text = path.read_text()
        for call in UI_CALL.finditer(text):
            exact |= set(re.findall(r'"([a-z_0-9]+)"', call.group(1)))
            families |= set(re.findall(r"`([a-z_0-9]+)\$\{", call.group(1)))
        families |= set(re.findall(r"\.ui\?\.\[`([a-z_0-9]+)\$\{", text))
    for page in PAGES:
        html = (STATIC / page).read_text()
        exact |= set(re.findall(r'data-i18n="([a-z_0-9]+)"', html))
        for pairs in re.findall(r'data-i18n-attr="([^"]+)"', html):
            exact |= {p.split(":", 1)[1].strip() for p in pairs.split(";") if ":" in p}
    return exact, families


def ui_problems(ui: dict[str, str]) -> list[str]:
    exact, families = ui_keys_used()
    problems = [f"ui.{key}: named by the web client, not in the catalogue" for key in sorted(exact - set(ui))]
    problems += [f"ui.{key}: in the catalogue, used by no page or script" for key in sorted(ui)
                 if key not in exact and not any(key.startswith(f) for f in families)]
    return problems


def test_every_word_of_the_pages_is_marked_with_its_catalogue_key():
    ui = catalogue()["ui"]
    for page in PAGES:
        assert page_problems((STATIC / page).read_text(), ui) == [], page


def test_the_page_check_finds_an_unmarked_word_and_a_drifted_one():
    ui = {"lobby_games": "Games", "zoom_out": "Zoom out"}
    html = ('<main><h2 data-i18n="lobby_games">Game list</h2><p>Loose words</p>'
            '<button aria-label="Zoom out" data-i18n-attr="aria-label:zoom_out">-</button>'
            '<button aria-label="Unmarked">+</button><p data-i18n="lobby_games"><b>x</b></p></main>')
    problems = page_problems(html, ui)
    assert "<h2> data-i18n=lobby_games: the page says 'Game list', the catalogue 'Games'" in problems
    assert "<p> 'Loose words': no data-i18n key" in problems
    assert "<button aria-label='Unmarked'>: no data-i18n-attr key" in problems
    assert "<p data-i18n=lobby_games> holds <b>" in problems
    assert not any("zoom_out" in p for p in problems)


def test_every_ui_key_the_client_names_exists_and_every_ui_key_is_used():
    assert ui_problems(catalogue()["ui"]) == []


def test_the_key_check_finds_a_missing_and_an_unused_key():
    ui = dict(catalogue()["ui"])
    del ui["search_cancelled"]
    ui["never_said"] = "Nobody says this"
    problems = ui_problems(ui)
    assert "ui.search_cancelled: named by the web client, not in the catalogue" in problems
    assert "ui.never_said: in the catalogue, used by no page or script" in problems


def catalog_words(base_url: str) -> set[str]:
    """The words the platform's catalog gives the lobby as data: titles, option names and choices, descriptions,
    bot level names and descriptions (the server's English, not the client's)."""
    catalog = httpx.get(f"{base_url}/v1/catalog").json()
    words: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, str):
            words.update(words_of(node) | words_of(node.replace("_", " ")))
        elif isinstance(node, dict):
            for key, value in node.items():
                words.update(words_of(key.replace("_", " ")))
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(catalog)
    return words


def test_the_lobby_and_the_game_page_show_only_catalogue_words(page, wc_gateway):
    """The lobby (with a game in "My games", the seat pickers and the bot levels table open) and a hot-seat game
    page, each read whole after the catalogue arrived: every word is a template's, the data's or a name."""
    serve_marked_catalogue(page)
    allowed = catalog_words(wc_gateway.url) | {NAME}
    game_id = create_hot_seat(page, "blueskies", 2, {})
    allowed |= words_of(game_id) | data_words(httpx.get(f"{wc_gateway.url}/webclient/boards/blueskies").json())
    page.wait_for_selector("#action-list button.action")
    allowed |= view_words(httpx.get(f"{wc_gateway.url}/v1/games/{game_id}").json()["view"])
    page.click("#rules summary")
    stray = stray_words(page, ["body"], allowed, "#log .muted")
    assert not stray, f"the game page, words from no catalogue template: {stray[:12]}"
    assert page.title().startswith("\ue000"), page.title()  # the tab's title too

    page.goto("/")
    page.wait_for_selector("#my-games li a")
    page.wait_for_function("() => ![...document.querySelectorAll('#my-games .muted')].some(e => e.textContent === '…')")
    page.click("details.bot-levels summary")
    stray = stray_words(page, ["body"], allowed)
    assert not stray, f"the lobby, words from no catalogue template: {stray[:12]}"
    assert page.title() == "\ue000Skyboard lobby\ue001", page.title()
    placeholder = page.get_attribute("#create-turn-seconds", "placeholder")
    assert placeholder == "\ue000none\ue001", placeholder
