"""The client's languages (services/webclient/static/i18n/{en,ru,it,pl}.json) against each other, and in a browser.

Statically: every language has every key of English and no other; every template parses as ICU MessageFormat; a
translation names the same parameters with the same formatters, keeps English's plurals plural and its selects'
keys; and no string is left in English where a translation is plausible (proper nouns, the rulebooks' own loan
words and templates of parameters only are listed below). In a browser: each plural has every CLDR category its
language needs (as the browser's own Intl.PluralRules reports them); the language picker switches the lobby and
is remembered, with `<html lang>` following; a game page renders in each language with no untranslated-key marker
("⟨...⟩") and no console error; and at phone width (390 px) no string is wider than its box, in any language.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from tests.webclient.icu import BRANCHING, arguments, parse
from tests.webclient.words import without_rules

STATIC = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static"
LANGUAGES = ["en", "ru", "it", "pl"]
PHONE = {"width": 390, "height": 844}

#: Strings that are the same as English on purpose: proper nouns (brands, titles, the language names, countries,
#: the cities and airports that these languages spell the same way, the Buchholz tie-break named after its inventor,
#: "Arena" in Italian and Polish, and the Polish "Format"),
#: and the rulebooks' own words where that language uses the English one (the Italian OpenSky rules say "Hub",
#: "Leasing" and "round"; "Era", "Region", "no" are the languages' own words too).
SAME_AS_ENGLISH = {
    "*": {"aeroplanes/places/*", "opensky/airports/*", "blueskies/airports/*", "ui/brand", "ui/lang_en", "ui/lang_ru",
          "ui/lang_it", "ui/lang_pl",
          "ui/game_title_opensky", "ui/game_title_blueskies"},
    "ru": set(),
    "it": {"ui/game_title_aeroplanes", "ui/no", "opensky/state/hubs", "opensky/group/place_hub",
           "opensky/group/keep_hub", "opensky/countries/CAN", "opensky/state/lease", "opensky/group/lease",
           "aeroplanes/state/era", "aeroplanes/regions/Africa", "aeroplanes/regions/AsiaAustralasia",
           "blueskies/state/round", "ui/tour_buchholz", "ui/tour_kind_arena"},
    "pl": {"ui/game_title_aeroplanes", "blueskies/text/region", "ui/tour_buchholz", "ui/tour_kind_arena",
           "ui/tour_kind"},
}
#: words a string may share with English in every language: the brand, rule-id prefixes, the unit "s", and words
#: these languages write the same ("Bot", "via", "Era", "bonus")
SHARED_WORDS = {"Skyboard", "AE", "OS", "BS", "API", "s", "Bot", "via", "Era", "bonus"}
ARG = re.compile(r"\{[^{}]*\}")
WORD = re.compile(r"[^\W\d_]+")


def catalogue(lang: str) -> dict:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text())


def flat(cat: dict) -> dict[str, str]:
    """{"section/.../key": template} of a catalogue; a rules list's entries by rule id; "_" keys are notes."""
    out: dict[str, str] = {}

    def walk(node, path: list[str]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not key.startswith("_"):
                    walk(value, [*path, key])
        elif isinstance(node, list):
            for rule, text in node:
                out["/".join([*path, rule])] = text
        else:
            out["/".join(path)] = node

    walk(cat, [])
    return out


def shape(template: str) -> tuple[set[tuple[str, str]], set[str], dict[str, frozenset[str]]]:
    """(parameters with their formatters, parameters English counts with a plural, select keys by parameter)."""
    args = arguments(template)
    return ({(a.name, a.formatter or "") for a in args},
            {f"{a.name}|{a.formatter or ''}" for a in args if a.kind == "plural"},
            {f"{a.name}|{a.formatter or ''}": frozenset(a.branches) for a in args if a.kind == "select"})


def language_problems(lang: str, cat: dict, en: dict) -> list[str]:
    """What is wrong with catalogue `cat` of `lang` against English `en` (empty when nothing is)."""
    mine, english = flat(cat), flat(en)
    problems = [f"{lang}: {key}: missing" for key in english if key not in mine]
    problems += [f"{lang}: {key}: not in English" for key in mine if key not in english]
    same_ok = SAME_AS_ENGLISH["*"] | SAME_AS_ENGLISH.get(lang, set())
    for key in english.keys() & mine.keys():
        text = mine[key]
        try:
            params, plurals, selects = shape(text)
        except ValueError as exc:
            problems.append(f"{lang}: {key}: does not parse: {exc}")
            continue
        en_params, en_plurals, en_selects = shape(english[key])
        if params != en_params:
            problems.append(f"{lang}: {key}: parameters {sorted(params)}, English {sorted(en_params)}")
        if not en_plurals <= plurals:
            lost = sorted(en_plurals - plurals)
            problems.append(f"{lang}: {key}: English counts {lost} with a plural, this does not")
        if selects != en_selects:
            problems.append(f"{lang}: {key}: select keys {selects}, English {en_selects}")
        if re.search(r"'[{}#]", text):
            problems.append(f"{lang}: {key}: an ASCII apostrophe before a brace starts ICU quoting (write \u2019)")
        english_words = set(WORD.findall(ARG.sub("", text))) - SHARED_WORDS
        allowed = key in same_ok or any(k.endswith("/*") and key.startswith(k[:-1]) for k in same_ok)
        if lang != "en" and text == english[key] and not allowed and english_words:
            problems.append(f"{lang}: {key}: still English: {text!r}")
    return problems


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_key_with_the_same_parameters_and_forms(lang):
    assert language_problems(lang, catalogue(lang), catalogue("en")) == []


def test_the_language_check_finds_a_missing_key_a_changed_parameter_a_lost_plural_and_english():
    en = catalogue("en")
    ru = copy.deepcopy(catalogue("ru"))
    del ru["ui"]["resign"]
    ru["opensky"]["action"]["bid"] = "Предложить {fare} на {route}"
    ru["blueskies"]["text"]["deck_cards"] = "карт: {n}"
    ru["ui"]["lobby_create"] = en["ui"]["lobby_create"]
    ru["ui"]["seconds"] = "{n} 'x{'"
    problems = language_problems("ru", ru, en)
    assert "ru: ui/resign: missing" in problems
    assert any(p.startswith("ru: opensky/action/bid: parameters") for p in problems)
    assert any(p.startswith("ru: blueskies/text/deck_cards: English counts") for p in problems)
    assert "ru: ui/lobby_create: still English: 'Create game'" in problems
    assert any(p.startswith("ru: ui/seconds:") for p in problems)


def test_the_english_catalogue_says_the_fixed_english():
    """The issue's English slips, each now a plural, a select or a rewording (docs/decisions/webclient-trial.md)."""
    en = flat(catalogue("en"))
    assert "a {kind|advantage}" not in en["aeroplanes/action/take_advantage"]
    assert "a {place} passenger" not in en["aeroplanes/text/passenger"]
    assert "notes_left, plural" in en["aeroplanes/event/subsidy"]
    assert "passengers, plural" in en["blueskies/board/gate_owned"]
    assert "share the win the market" not in en["opensky/event/market_won"]
    assert "=0 {" in en["aeroplanes/event/daring_pilot"]


# ---------------------------------------------------------------------------------------------------- in a browser

CATEGORIES = """(langs) => Object.fromEntries(langs.map((l) => [l, {
    plural: new Intl.PluralRules(l).resolvedOptions().pluralCategories,
    ordinal: new Intl.PluralRules(l, {type: "ordinal"}).resolvedOptions().pluralCategories}]))"""


def plural_problems(lang: str, cat: dict, categories: dict[str, list[str]]) -> list[str]:
    problems = []
    for key, text in flat(cat).items():
        for arg in (a for top in parse(text) for a in top.walk() if a.kind in BRANCHING - {"select"}):
            need = set(categories["ordinal" if arg.kind == "selectordinal" else "plural"])
            lacking = need - set(arg.branches)
            if lacking:
                problems.append(f"{lang}: {key}: {arg.name} lacks {sorted(lacking)}")
    return problems


def test_every_plural_has_the_categories_its_language_needs(wc_gateway, browser):
    """(wc_gateway first: the services start before Playwright's event loop does, as for every browser test.)"""
    page = browser.new_page()
    try:
        categories = page.evaluate(CATEGORIES, LANGUAGES)
    finally:
        page.close()
    assert set(categories["ru"]["plural"]) == {"one", "few", "many", "other"}
    for lang in LANGUAGES:
        assert plural_problems(lang, catalogue(lang), categories[lang]) == []
    ru = copy.deepcopy(catalogue("ru"))
    ru["blueskies"]["text"]["deck_cards"] = "{n, plural, one {# карта} other {# карты}}"
    assert plural_problems("ru", ru, categories["ru"]) == ["ru: blueskies/text/deck_cards: n lacks ['few', 'many']"]


def watch_console(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return errors


def test_the_language_picker_switches_the_lobby_and_is_remembered(page):
    errors = watch_console(page)
    page.goto("/")
    page.wait_for_selector("#catalog tbody tr")
    assert page.evaluate("document.documentElement.lang") == "en"
    for lang in ["ru", "pl", "it", "en"]:
        ui = catalogue(lang)["ui"]
        with page.expect_navigation():
            page.select_option("#lang-select", lang)
        page.wait_for_selector("#catalog tbody tr")
        page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
        assert page.inner_text("#create-h") == ui["lobby_new_game"], lang
        assert page.title() == ui["lobby_page_title"], lang
        assert page.input_value("#lang-select") == lang
        page.reload()  # remembered in this browser
        page.wait_for_selector("#catalog tbody tr")
        assert page.evaluate("document.documentElement.lang") == lang
    assert not errors, errors


def test_the_browsers_language_is_the_default(browser, wc_gateway):
    context = browser.new_context(base_url=wc_gateway.url, locale="pl-PL")
    try:
        pg = context.new_page()
        pg.goto("/")
        pg.wait_for_selector("#catalog tbody tr")
        assert pg.evaluate("document.documentElement.lang") == "pl"
        assert pg.inner_text("#create-h") == catalogue("pl")["ui"]["lobby_new_game"]
    finally:
        context.close()


def set_language(page, lang: str) -> None:
    page.evaluate("(lang) => localStorage.setItem('skyboard.lang', lang)", lang)


def create_game(page, game: str, players: int) -> str:
    from tests.webclient.test_board_words import create_hot_seat

    return create_hot_seat(page, game, players, {})


#: each title in its rulebook's language, and English (every title in every language: the slow test below)
PAIRS = [("ru", "aeroplanes"), ("it", "opensky"), ("pl", "blueskies"), ("en", "aeroplanes")]
PLAYERS = {"aeroplanes": 3, "opensky": 2, "blueskies": 2}


@pytest.mark.parametrize(("lang", "game"), PAIRS)
def test_a_game_page_renders_in_each_language(page, lang, game):
    renders_in(page, lang, game)


def renders_in(page, lang: str, game: str) -> None:
    """A new game of `game` opened with the page in `lang`: its words are the catalogue's, no console error."""
    errors = watch_console(page)
    page.goto("/")
    set_language(page, lang)
    create_game(page, game, PLAYERS[game])
    check_page_words(page, lang, game)
    assert not errors, errors


def check_page_words(page, lang: str, game: str) -> None:
    cat = catalogue(lang)
    page.wait_for_selector("#action-list button.action")
    assert page.evaluate("document.documentElement.lang") == lang
    page.click("#rules summary")
    text = page.inner_text("body")
    assert "⟨" not in text, re.findall(r"⟨[^⟩]*⟩", text)[:5]
    assert page.inner_text("#rules summary") == cat["ui"]["rules_summary"]
    phase = page.inner_text("#phase")
    assert any(phase.startswith(without_rules(v)) for v in cat[game]["phase"].values()), phase
    assert re.fullmatch(r"[A-Z]{2}-[\d.]+(, [A-Z]{2}-[\d.]+)*", page.get_attribute("#phase", "title") or ""), \
        "the phase's rule ids are its tooltip"
    rules = page.inner_text("#rules")
    first_rule = cat[game]["rules"][0][1]
    assert first_rule[:30] in rules, (first_rule, rules[:200])


@pytest.mark.slow  # every title in every language: twelve games opened
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_title_renders_in_every_language(page, lang, game):
    renders_in(page, lang, game)


# Elements whose own text is wider than their box: cut off by their overflow, or reaching past the screen's edge.
# Text inside a scroll container (a table meant to scroll sideways) and inside the board's SVG is skipped.
OVERFLOW = """() => {
    const out = [];
    const width = document.documentElement.clientWidth;
    for (const el of document.body.querySelectorAll('*')) {
        if (el.closest('svg, option, .sr-only, [hidden], details:not([open]) > :not(summary)')) continue;
        const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.data.trim());
        if (!own || !el.getClientRects().length) continue;
        let scroller = false;
        for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
            const ox = getComputedStyle(p).overflowX;
            if (ox === 'auto' || ox === 'scroll') { scroller = true; break; }
        }
        if (scroller) continue;
        const style = getComputedStyle(el);
        const r = el.getBoundingClientRect();
        const clipped = style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
        if (clipped || r.right > width + 1 || r.left < -1) {
            out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className}: ${el.textContent.trim().slice(0, 60)}`
                + ` (${Math.round(r.left)}..${Math.round(r.right)} of ${width}${clipped ? ', clipped' : ''})`);
        }
    }
    return out;
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_string_is_wider_than_its_box_at_phone_width(browser, wc_gateway, lang):
    """390 px, in each language: the lobby (the bot levels open) and a game page (the rules open)."""
    context = browser.new_context(base_url=wc_gateway.url, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        pg = context.new_page()
        pg.goto("/")
        set_language(pg, lang)
        pg.reload()
        pg.wait_for_selector("#catalog tbody tr")
        pg.click("details.bot-levels summary")
        found = pg.evaluate(OVERFLOW)
        assert not found, f"{lang} lobby: {found}"
        game = {"en": "opensky", "ru": "aeroplanes", "it": "opensky", "pl": "blueskies"}[lang]
        create_game(pg, game, PLAYERS[game])
        pg.wait_for_selector("#action-list button.action")
        pg.click("#rules summary")
        found = pg.evaluate(OVERFLOW)
        assert not found, f"{lang} {game} page: {found}"
    finally:
        context.close()


def test_offline_says_the_connection_is_lost_and_hides_the_choices(page):
    """docs/decisions/webclient-trial.md, item 4: offline, the page says the connection is lost and reconnecting (not
    "the server is busy") and offers no stale choice; back online, it catches up and offers the choices again."""
    errors = watch_console(page)
    page.goto("/")
    set_language(page, "it")
    create_game(page, "opensky", 2)
    page.wait_for_selector("#action-list button.action")
    ui = catalogue("it")["ui"]
    page.context.set_offline(True)
    page.wait_for_function("() => document.body.classList.contains('offline')")
    assert page.inner_text("#notice").startswith(ui["reconnecting"][:15])
    assert not page.is_visible("#action-list button.action")
    assert page.inner_text("#offline-note") == ui["offline_choices"]
    page.context.set_offline(False)
    page.wait_for_selector("#action-list button.action", state="visible")
    page.wait_for_function("() => !document.body.classList.contains('offline')")
    assert page.inner_text("#notice") == ""
    assert not page.is_visible("#offline-note")
    assert not [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e and "Failed to fetch" not in e], errors


BAR = """([short, long]) => {
    const turn = document.getElementById('turn');
    const measure = () => [document.querySelector('.bar').getBoundingClientRect().height,
                           document.getElementById('board').getBoundingClientRect().top];
    turn.textContent = short;
    const a = measure();
    turn.textContent = long;
    const b = measure();
    return [a, b];
}"""


@pytest.mark.parametrize("width", [390, 1366])
def test_the_status_bar_keeps_its_height_when_the_turn_changes(page, width):
    """docs/decisions/webclient-trial.md, item 5: "Your turn" and "To act: <two bots>" take the same room, so the map
    does not jump."""
    page.goto("/")
    set_language(page, "ru")
    create_game(page, "aeroplanes", 3)
    page.wait_for_selector("#action-list button.action")
    page.set_viewport_size({"width": width, "height": 900})
    ui = catalogue("ru")["ui"]
    short = f"{ui['your_turn']} (Quinn 1)"
    long = ui["to_act"].replace("{names}", "бот mcts-hard 1, бот mcts-hard 2")
    before, after = page.evaluate(BAR, [short, long])
    assert before == after, (before, after)


ERROR_TEXT = """async () => {
    const { errorText } = await import('/js/i18n.js');
    const { ApiError } = await import('/js/api.js');
    const refused = new ApiError(422,
        { error: { code: 'illegal_action', message: 'you cannot bid now', rule: 'OS-10' } });
    const odd = new ApiError(409, { error: { code: 'no_such_code', message: 'odd English' } });
    return [errorText(refused), errorText(odd), errorText(new TypeError('Failed to fetch'))];
}"""


def test_the_servers_english_errors_are_said_in_the_pages_language(page):
    """The gateway explains in English; a Polish page says the catalogue's words for the error code instead (the
    English stays as the tooltip), an unknown code gets the general words, a network failure says so."""
    page.goto("/")
    set_language(page, "pl")
    page.reload()
    page.wait_for_selector("#catalog tbody tr")
    ui = catalogue("pl")["ui"]
    refused, odd, network = page.evaluate(ERROR_TEXT)
    # no rule id in what a player reads: it stays in the tooltip, beside the server's English
    assert refused == {"text": ui["error_illegal_action"], "detail": "you cannot bid now (OS-10)"}
    assert odd["text"] == ui["error_other"] and odd["detail"] == "odd English"
    assert network["text"] == ui["error_network"]
