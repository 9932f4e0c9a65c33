"""The rules reference (docs/rules/) is where a rule id leads: every id the code, the tests, the error messages, the web
client and the docs cite must be a heading there, so "BS-6.3" in an error body or a test name can always be looked up.

Ids are cited as `AE-8.13`, `BS-8.6.4`, as ranges (`AE-14.1-14.8`, `BS-9.2.4-6`: both ends must exist), escaped in
regular expressions (`OS-9\\.4`), and in test names (`test_BS_6_3_...`). No services are needed: this reads files.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs.hooks.rule_links import anchor, link_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules"
PAGES = {"AE": "aeroplanes", "OS": "opensky", "BS": "blueskies"}
#: where rule ids are cited: the code (the research tools too), the tests, the web client, the SDKs, the docs, the
#: benchmarks' reports
CITING_ROOTS = ("engine", "services", "ai", "research/lab", "research/train", "tests", "clients", "docs", "bench",
                "proto", "README.md")
TEXT_SUFFIXES = {".py", ".pyi", ".js", ".ts", ".json", ".md", ".html", ".css", ".proto", ".txt", ".yml", ".yaml",
                 ".toml", ".cfg", ".ini"}
#: third-party code, build outputs and environments: nothing of ours to cite rules
SKIP_DIRS = {"node_modules", "vendor", "__pycache__", "build", "dist", ".venv", ".git", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", "site"}

# `BS-9.2.4`, `AE-14.1-14.8` (a range: its end replaces the start's last parts), `OS-9\.4` (inside a regex)
CITED = re.compile(r"(?<![A-Za-z0-9_])(AE|OS|BS)-(\d+(?:\\?\.\d+)*)(?:-(\d+(?:\.\d+)*))?")
# a test named after its rule: `test_BS_6_3_empty_deck`, `test_AE_7_3_and_AE_11_4_...`
NAMED = re.compile(r"(?<![A-Za-z0-9])(AE|OS|BS)((?:_\d+)+)(?![0-9])")
HEADING = re.compile(r"^(#{1,6}) +(.*?)\s*$")
RULE_HEADING = re.compile(r"^((AE|OS|BS)-(\d+(?:\.\d+)*)) +\S.*?\s*\{#([a-z0-9-]+)\}$")


def cited_in(text: str, *, test_names: bool = False) -> Iterator[str]:
    """Every rule id `text` cites (both ends of a range); with `test_names`, also those in `test_XX_n_m` names."""
    for m in CITED.finditer(text):
        prefix, start = m.group(1), m.group(2).replace("\\", "").split(".")
        yield f"{prefix}-{'.'.join(start)}"
        if m.group(3):
            end = m.group(3).split(".")
            yield f"{prefix}-{'.'.join(start[:max(len(start) - len(end), 0)] + end)}"
    if test_names:
        for m in NAMED.finditer(text):
            yield f"{m.group(1)}-{m.group(2)[1:].replace('_', '.')}"


def citing_files() -> Iterator[Path]:
    for name in CITING_ROOTS:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in paths:
            rel = path.relative_to(ROOT)
            if path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIP_DIRS.intersection(rel.parts[:-1]):
                yield path


def citations() -> dict[str, set[str]]:
    """rule id -> the files (relative paths) citing it."""
    found: dict[str, set[str]] = {}
    for path in citing_files():
        text = path.read_text(errors="replace")
        rel = str(path.relative_to(ROOT))
        for rule_id in cited_in(text, test_names=path.suffix == ".py" and rel.startswith("tests/")):
            found.setdefault(rule_id, set()).add(rel)
    return found


def headings(page: Path) -> list[tuple[int, str]]:
    """(level, text) of every heading of a page, outside fenced code."""
    out, fenced = [], False
    for line in page.read_text().splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (m := HEADING.match(line)):
            out.append((len(m.group(1)), m.group(2)))
    return out


def rule_headings(prefix: str) -> list[tuple[int, str, str]]:
    """(level, rule id, anchor) of every rule heading of a game's page; a heading that names an id must be one."""
    page = RULES / f"{PAGES[prefix]}.md"
    out = []
    for level, text in headings(page):
        if re.match(r"(AE|OS|BS)-\d", text):
            m = RULE_HEADING.match(text)
            assert m, f"{page.name}: the heading {text!r} must read 'ID Title {{#anchor}}'"
            out.append((level, m.group(1), m.group(4)))
    return out


def documented() -> set[str]:
    return {rule_id for prefix in PAGES for _level, rule_id, _anchor in rule_headings(prefix)}


def parts(rule_id: str) -> tuple[int, ...]:
    return tuple(int(n) for n in rule_id.split("-", 1)[1].split("."))


def test_every_cited_rule_id_has_a_heading_in_the_rules_reference() -> None:
    cited = citations()
    known = documented()
    # the scan reaches every kind of place ids are cited from: the engines' errors, tests, the client, the docs
    sources = {rel.split("/")[0] for files in cited.values() for rel in files}
    assert {"engine", "tests", "services", "docs"} <= sources, sources
    missing = {rule_id: sorted(files)[:5] for rule_id, files in cited.items() if rule_id not in known}
    assert not missing, f"rule ids cited but not in docs/rules/ (add the rule, or fix the citation): {missing}"


@pytest.mark.parametrize("prefix", sorted(PAGES))
def test_each_rules_page_has_unique_ordered_anchored_ids(prefix: str) -> None:
    rules = rule_headings(prefix)
    assert rules, f"no rule headings on {PAGES[prefix]}.md"
    ids = [rule_id for _level, rule_id, _anchor in rules]
    duplicates = sorted({rule_id for rule_id in ids if ids.count(rule_id) > 1})
    assert not duplicates, f"ids used by more than one heading: {duplicates}"
    for level, rule_id, slug in rules:
        assert rule_id.startswith(prefix + "-"), f"{rule_id} is on {PAGES[prefix]}.md"
        assert slug == anchor(rule_id), f"{rule_id}'s anchor is #{slug}, links expect #{anchor(rule_id)}"
        assert level == len(parts(rule_id)) + 1, f"{rule_id} is a level-{level} heading: its depth is its parts + 1"
    out_of_order = [(a, b) for a, b in itertools.pairwise(ids) if parts(a) >= parts(b)]
    assert not out_of_order, f"ids out of order: {out_of_order}"
    # a rule sits under its parent: BS-8.6.4 after BS-8.6, BS-8.6 after BS-8
    seen: set[tuple[int, ...]] = set()
    for rule_id in ids:
        assert len(parts(rule_id)) == 1 or parts(rule_id)[:-1] in seen, f"{rule_id} has no parent heading before it"
        seen.add(parts(rule_id))


def test_cross_references_inside_the_rules_pages_resolve() -> None:
    known = {anchor(rule_id) for rule_id in documented()}
    broken = []
    for page in sorted(RULES.glob("*.md")):
        for target, slug in re.findall(r"\]\(([a-z]*\.md)?#([a-z0-9-]+)\)", page.read_text()):
            if slug not in known or (target and not (RULES / target).is_file()):
                broken.append(f"{page.name}: {target}#{slug}")
    assert not broken, broken


def test_the_extraction_reads_every_citation_form_and_an_unknown_id_fails() -> None:
    text = ('raise IllegalAction("no gate", "BS-5.1")  # AE-14.1-14.8, BS-9.2.4-6 (OS-11.3(c)), AE-16.\n'
            'pytest.raises(ValueError, match=r"OS-9\\.4")  macOS-13 XBS-1 BS-8.n\n'
            'def test_AE_7_3_and_AE_11_4_increased_production(): ...\n')
    found = list(cited_in(text, test_names=True))
    assert found == ["BS-5.1", "AE-14.1", "AE-14.8", "BS-9.2.4", "BS-9.2.6", "OS-11.3", "AE-16", "OS-9.4", "BS-8",
                     "AE-7.3", "AE-11.4"]
    assert set(found) <= documented()
    unknown = "BS-6." + "9"  # written in two parts so that this file does not cite it
    assert unknown not in documented() and list(cited_in(f"see {unknown}")) == [unknown]


def test_the_reference_matches_the_specification_where_it_is_checked_out() -> None:
    """Where the rule specifications sit beside the checkout (../shared/rules/), the reference has exactly their ids."""
    spec_dir = ROOT.parent / "shared" / "rules"
    if not spec_dir.is_dir():
        pytest.skip("the rule specifications are not beside this checkout")
    spec: set[str] = set()
    for name in PAGES.values():
        text = (spec_dir / f"{name}.md").read_text()
        spec |= set(re.findall(r"^(?:#+ |\*\*|\s*- \*\*)((?:AE|OS|BS)-\d+(?:\.\d+)*)", text, re.M))
        if re.search(r"^## 0\. Conventions", text, re.M):
            spec.add(f"{next(p for p, n in PAGES.items() if n == name)}-0")
    assert documented() == spec, (sorted(spec - documented()), sorted(documented() - spec))


def test_the_blue_skies_reference_tables_are_the_data_file() -> None:
    """BS-10.4's airport and region tables state the board the engine loads (engine/blueskies/data/blueskies.json)."""
    data = json.loads((ROOT / "engine/blueskies/data/blueskies.json").read_text())
    text = (RULES / "blueskies.md").read_text()
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()
            if re.match(r"\| [A-Z]{2,3} \|", line)]
    airports = {row[0]: row for row in rows if len(row) == 8}
    regions = {row[0]: row for row in rows if len(row) == 5}
    assert sorted(airports) == sorted(a["code"] for a in data["airports"])
    for a in data["airports"]:
        buyout = "N/A" if a["buyout"] is None else str(a["buyout"])
        costs = "-".join(str(s["cost"]) for s in a["spaces"])
        assert airports[a["code"]][1:] == [a["name"], f"{a['col']},{a['row']}", str(a["cards"]), str(a["value"]), costs,
                                           buyout, ", ".join(a["regions"])], a["code"]
    assert sorted(regions) == sorted(r["id"] for r in data["regions"])
    for r in data["regions"]:
        members = [a for a in data["airports"] if r["id"] in a["regions"]]
        row = regions[r["id"]]
        assert row[1] == r["name"] and row[4] == str(r["bonus"]), r["id"]
        assert sorted(row[2].split(", ")) == sorted(a["code"] for a in members), r["id"]
        assert row[3] == str(sum(a["value"] for a in members)), r["id"]


def test_the_site_links_rule_ids_in_prose_but_not_in_code_or_headings() -> None:
    page = ("## Taking back (BS-5.8)\n"
            "Gates opened (BS-5.1) and `BS-5.4` in code, [AE-8.9](../rules/aeroplanes.md#ae-8-9) already linked.\n"
            "```\nBS-6.3\n```\n"
            "| x | OS-10.1, AE-15.2's money |")
    assert link_rules(page, "games/blueskies.md").split("\n") == [
        "## Taking back (BS-5.8)",
        "Gates opened ([BS-5.1](../rules/blueskies.md#bs-5-1)) and `BS-5.4` in code, "
        "[AE-8.9](../rules/aeroplanes.md#ae-8-9) already linked.",
        "```", "BS-6.3", "```",
        "| x | [OS-10.1](../rules/opensky.md#os-10-1), [AE-15.2](../rules/aeroplanes.md#ae-15-2)'s money |",
    ]
    assert link_rules("see AE-3.3", "errors.md") == "see [AE-3.3](rules/aeroplanes.md#ae-3-3)"
