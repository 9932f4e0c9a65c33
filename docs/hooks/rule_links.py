"""MkDocs hook: every rule id written in a page's prose ("BS-6.3", "(OS-10.1)") becomes a link to its heading in the
rules reference (docs/rules/<game>.md#bs-6-3), so a reader of the API or game pages can look a rule up in one click.

Ids in code (spans and fenced blocks), in headings and already inside a link are left as they are. The link's anchor
is checked by `mkdocs build --strict` like any other, so an id that is not in the reference fails the build.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

PAGES = {"AE": "aeroplanes", "OS": "opensky", "BS": "blueskies"}
RULE = re.compile(r"(?<![\w./#-])(AE|OS|BS)-(\d+(?:\.\d+)*)(?![\w-]|\.\d)")
# an inline code span, or a markdown link / image (its text and target): copied unchanged
PROTECTED = re.compile(r"(`+)(?:.+?)\1|!?\[[^\]]*\]\([^)]*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchor(rule_id: str) -> str:
    """The heading anchor of a rule id: `BS-6.3` -> `bs-6-3`."""
    return rule_id.lower().replace(".", "-")


def _link_prose(text: str, base: str) -> str:
    def link(m: re.Match[str]) -> str:
        rule_id = f"{m.group(1)}-{m.group(2)}"
        target = posixpath.relpath(f"rules/{PAGES[m.group(1)]}.md", base or ".")
        return f"[{rule_id}]({target}#{anchor(rule_id)})"

    out, last = [], 0
    for m in PROTECTED.finditer(text):
        out.append(RULE.sub(link, text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(RULE.sub(link, text[last:]))
    return "".join(out)


def link_rules(markdown: str, src_uri: str) -> str:
    """`markdown` with its prose's rule ids linked, for the page at `src_uri` (e.g. `games/blueskies.md`)."""
    base = posixpath.dirname(src_uri)
    lines, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and not line.lstrip().startswith(("#", "<")):
            line = _link_prose(line, base)
        lines.append(line)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    # the rules pages link their own cross-references; every other page gets its ids linked here
    if page.file.src_uri.startswith("rules/"):
        return markdown
    return link_rules(markdown, page.file.src_uri)
