"""Helpers of the browser tests that check every word the boards and the presentation modules show comes from the
message catalogue (services/webclient/static/i18n/en.json) or from the game's own data.

How: the page is served a *marked* catalogue, in which the literal text of every template is wrapped in two
private-use characters (U+E000 ... U+E001) and the `{parameters}` are left as they are. Whatever a template renders is
then marked, and whatever the code adds by itself is not. On the page, the marked spans are taken out of every text
node and every `aria-label`/`title`; each word (a run of letters) left must be a word of the game's data (the names,
codes and ids of its data files, what `GET /webclient/boards/<game>` serves), of the game's view (OpenSky's callsign
names, which the engine gives), or a player's name. A literal English word in a board or panel is not.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.webclient.icu import mark_literals

CATALOGUE = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static" / "i18n" / "en.json"
OPEN, CLOSE = "\ue000", "\ue001"
WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['\u2019](?=[^\W\d_]))*")  # letters, with inner apostrophes
#: the data files' fields that hold names (never `colour`: "red" on a board is a word of the catalogue)
NAME_FIELDS = {"name", "code", "id", "title", "region", "regions", "country", "destination", "waitingSections",
               "stage", "a", "b", "routes"}
#: rule numbers' prefixes (AE-8.17, OS-19.2, BS-9.3): the rules' own numbering, not words
RULE_PREFIXES = {"AE", "OS", "BS"}


def mark(template: str) -> str:
    """The template with each literal piece between the markers (plural and select branches' too), the arguments
    untouched (an ICU MessageFormat template stays one)."""
    return mark_literals(template, OPEN, CLOSE)


def marked(node: Any) -> Any:
    if isinstance(node, str):
        return mark(node)
    if isinstance(node, list):
        return [marked(x) for x in node]
    if isinstance(node, dict):
        return {k: v if k.startswith("_") else marked(v) for k, v in node.items()}
    return node


HAS_RULE = re.compile(r"\b(?:AE|OS|BS)-\d")


def without_rules(text: str) -> str:
    """A template's words as the page shows them: its rule ids go to the tooltip (js/rules.js,
    docs/decisions/webclient-trial.md, item 9)."""
    def parenthesis(m: re.Match) -> str:
        if not HAS_RULE.search(m.group(1)):
            return m.group(0)
        rest = ", ".join(p for p in re.split(r"\s*[,;]\s*", m.group(1)) if not HAS_RULE.search(p)).strip()
        return f" ({rest})" if rest else ""

    return re.sub(r",?\s*\b(?:AE|OS|BS)-\d+(?:\.\d+)*", "", re.sub(r"\s*\(([^()]*)\)", parenthesis, text))


def serve_marked_catalogue(page) -> None:
    """Every page load in `page` gets the marked catalogue."""
    body = json.dumps(marked(json.loads(CATALOGUE.read_text())), ensure_ascii=False)
    page.route("**/i18n/en.json", lambda route: route.fulfill(status=200, content_type="application/json", body=body))


def words_of(text: str) -> set[str]:
    return set(WORD.findall(text))


def data_words(data: Any, field: str | None = None) -> set[str]:
    """The words of the names in a game's data files (the board data the client draws from)."""
    if isinstance(data, dict):
        return set().union(*(data_words(v, k) for k, v in data.items())) if data else set()
    if isinstance(data, list):
        return set().union(*(data_words(v, field) for v in data)) if data else set()
    if isinstance(data, str) and field in NAME_FIELDS:
        return words_of(data) | words_of(data.replace("_", " "))
    return set()


def view_words(view: dict) -> set[str]:
    """Names the engine's view gives: OpenSky's callsigns (Alpha to Foxtrot, the markers' names)."""
    return set().union(*(words_of(name) for name in view.get("callsigns") or {}))


# Text nodes and the aria-label/title attributes inside `roots` (CSS selectors), skipping `skip` (a selector of
# elements whose words are not the boards' or presentation modules': the page's own notes), as [where, text].
COLLECT = """([roots, skip]) => {
    const out = [];
    for (const sel of roots) {
        for (const root of document.querySelectorAll(sel)) {
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
            // the root's own attributes are the page's (game.html, game.js), not the board's: from its children on
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const el = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
                if (skip && el.closest(skip)) continue;
                if (node.nodeType === Node.TEXT_NODE) {
                    if (node.data.trim()) out.push([sel + ' ' + el.tagName.toLowerCase(), node.data]);
                } else {
                    for (const attr of ['aria-label', 'title']) {
                        const v = node.getAttribute(attr);
                        if (v) out.push([sel + ' ' + node.tagName.toLowerCase() + '@' + attr, v]);
                    }
                }
            }
        }
    }
    return out;
}"""

UNMARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")


def stray_words(page, roots: list[str], allowed: set[str], skip: str | None = None) -> list[tuple[str, str, str]]:
    """(where, word, text) of every word under `roots` that neither a catalogue template nor the data gave."""
    found = []
    for where, text in page.evaluate(COLLECT, [roots, skip]):
        rest = UNMARKED.sub(" ", text)
        for word in sorted(words_of(rest) - allowed - RULE_PREFIXES):
            found.append((where, word, text.replace(OPEN, "⟦").replace(CLOSE, "⟧")))
    return found
