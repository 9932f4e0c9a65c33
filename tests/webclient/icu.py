"""A small reader of the catalogue's ICU MessageFormat templates, for the tests: which arguments a template names,
with what formatter and form (plain, plural, select, selectordinal, number), and the keys of each plural or select.

The client formats with FormatJS's intl-messageformat (services/webclient/static/vendor/); this reader follows the
same syntax, plus the catalogue's one extension `{field|formatter ...}` (js/i18n.js), closely enough to compare
templates between languages and to find a parameter no engine object has. It raises `ValueError` on what the
library would refuse (unbalanced braces, a plural without `other`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BRANCHING = {"plural", "select", "selectordinal"}
_HEAD = re.compile(r"\s*([a-z_]+)(?:\|([a-z_]+))?\s*(?:,\s*([a-z]+)\s*)?")


@dataclass
class Arg:
    name: str
    formatter: str | None
    kind: str  # "plain", "plural", "select", "selectordinal", "number", ...
    branches: dict[str, list[Arg]] = field(default_factory=dict)

    def walk(self):
        yield self
        for inner in self.branches.values():
            for arg in inner:
                yield from arg.walk()


def parse(template: str) -> list[Arg]:
    """The top-level arguments of `template` (each with its branches' arguments)."""
    args, end = _message(template, 0, in_plural=False)
    if end != len(template):
        raise ValueError(f"unbalanced '}}' at {end} in {template!r}")
    return args


def arguments(template: str) -> list[Arg]:
    """Every argument of `template`, branches included."""
    return [a for top in parse(template) for a in top.walk()]


def _message(s: str, i: int, in_plural: bool) -> tuple[list[Arg], int]:
    args: list[Arg] = []
    while i < len(s):
        c = s[i]
        if c == "'":
            if s[i + 1:i + 2] == "'":
                i += 2
            elif s[i + 1:i + 2] in ("{", "}") or (in_plural and s[i + 1:i + 2] == "#"):
                close = s.find("'", i + 1)
                if close < 0:
                    raise ValueError(f"unclosed quote in {s!r}")
                i = close + 1
            else:
                i += 1
        elif c == "{":
            arg, i = _argument(s, i + 1)
            args.append(arg)
        elif c == "}":
            return args, i
        else:
            i += 1
    return args, i


def _argument(s: str, i: int) -> tuple[Arg, int]:
    m = _HEAD.match(s, i)
    if not m or m.end() == i:
        raise ValueError(f"bad argument at {i} in {s!r}")
    name, formatter, kind = m.group(1), m.group(2), m.group(3) or "plain"
    i = m.end()
    arg = Arg(name, formatter, kind)
    if kind == "plain":
        if s[i:i + 1] != "}":
            raise ValueError(f"expected '}}' at {i} in {s!r}")
        return arg, i + 1
    if kind not in BRANCHING:  # {n, number}, {n, number, ::currency/GBP}: a style up to the closing brace
        close = s.find("}", i)
        if close < 0:
            raise ValueError(f"unclosed argument in {s!r}")
        return arg, close + 1
    if s[i:i + 1] != ",":
        raise ValueError(f"expected ',' after {kind} in {s!r}")
    i += 1
    while True:
        while i < len(s) and s[i].isspace():
            i += 1
        if s[i:i + 1] == "}":
            break
        key = re.match(r"(offset:\d+|=\d+|[a-z]+)\s*", s[i:])
        if not key:
            raise ValueError(f"bad {kind} key at {i} in {s!r}")
        i += key.end()
        if key.group(1).startswith("offset:"):
            continue
        if s[i:i + 1] != "{":
            raise ValueError(f"expected '{{' after {key.group(1)!r} in {s!r}")
        inner, i = _message(s, i + 1, in_plural=kind != "select")
        if s[i:i + 1] != "}":
            raise ValueError(f"unclosed branch {key.group(1)!r} in {s!r}")
        arg.branches[key.group(1)] = inner
        i += 1
    if "other" not in arg.branches:
        raise ValueError(f"{kind} without 'other' in {s!r}")
    return arg, i + 1


def mark_literals(template: str, open_: str, close: str) -> str:
    """The template with every run of literal text (at the top and inside plural/select branches) between `open_`
    and `close`, the argument syntax untouched: what a marked catalogue serves (tests/webclient/words.py)."""
    out: list[str] = []

    def literal(run: str) -> None:
        if run:
            out.append(open_ + run + close)

    def message(i: int) -> int:
        start = i
        while i < len(template) and template[i] not in "{}":
            i += 1
        literal(template[start:i])
        while i < len(template) and template[i] == "{":
            i = argument(i + 1)
            start = i
            while i < len(template) and template[i] not in "{}":
                i += 1
            literal(template[start:i])
        return i

    def argument(i: int) -> int:
        m = _HEAD.match(template, i)
        kind = m.group(3) if m else None
        if kind not in BRANCHING:  # a plain or number argument: copied whole
            close_at = template.index("}", i)
            out.append("{" + template[i:close_at + 1])
            return close_at + 1
        head_end = template.index(",", m.end()) + 1
        out.append("{" + template[i:head_end])
        i = head_end
        while True:
            key = re.match(r"\s*(offset:\d+\s*)?(=\d+|[a-z]+)?\s*", template[i:])
            if template[i + key.end():i + key.end() + 1] != "{":
                close_at = template.index("}", i)
                out.append(template[i:close_at + 1])
                return close_at + 1
            out.append(template[i:i + key.end()] + "{")
            i = message(i + key.end() + 1)
            out.append("}")
            i += 1

    message(0)
    return "".join(out)
