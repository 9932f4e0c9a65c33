"""No reference to an issue tracker's numbers in the code, tests, build files or configs.

Why: the tracker is not part of the repository, so "issue #40" or "(#36)" tells a reader nothing. A reason that fits
a line is written where it applies; one that recurs is a decision record under docs/decisions/, linked by its path
(those records keep the old numbers as history, and are the only files here that may).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: what counts as code, tests, build files and configs, by suffix or by name
SUFFIXES = {".py", ".pyi", ".js", ".mjs", ".ts", ".lua", ".proto", ".sh", ".toml", ".yml", ".yaml", ".cfg", ".ini",
            ".html", ".css", ".in", ".txt", ".conf", ".json", ".mako", ".md"}
NAMES = {"Makefile", "Dockerfile", "Containerfile", "Containerfile.infra", "run", "entrypoint.sh", ".gitignore"}
#: where the numbers may stay: the decision records (history), third-party code kept as shipped, the locks (hashes,
#: not prose), this file's own examples, and the dated research record (bench/RESULTS.md's history sections and
#: research/'s dated folders and index, whose experiments name the issue that asked for them; the research tools
#: beside them, research/lab and research/train, are code and are searched)
EXEMPT = ("docs/decisions/", "tests/webclient/vendor/", "requirements/", "clients/tools/requirements.lock",
          "package-lock.json", "tests/test_issue_references.py", "bench/RESULTS.md", "research/20",
          "research/README.md")

#: "issue 34", "Issue #37", "issues #34 and #35"
ISSUE_WORD = re.compile(r"\bissues?\s*#?\d+", re.I)
#: a bare "#40" after a space, bracket or punctuation (not a colour such as "#333" in a string: CSS is not searched
#: for these, and a colour in code stands in quotes; nor prose, where "#9" is a card of a rule's example)
BARE = re.compile(r"(?<![^\s(\[,;/])#\d{1,4}\b(?![\w-])")
#: a docstring that opens with one: """#37: ... (a colour never opens a triple-quoted string)
DOCSTRING_OPENING = re.compile(r'(?:"""|\'\'\')#\d{1,4}\b')


def searched_files() -> list[str]:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    return sorted(f for f in files if f and (ROOT / f).is_file() and not f.startswith(EXEMPT)
                  and not f.endswith(EXEMPT) and (Path(f).suffix in SUFFIXES or Path(f).name in NAMES))


def references(path: str, text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        bare = not path.endswith((".css", ".md"))
        hits = ISSUE_WORD.findall(line) + (BARE.findall(ISSUE_WORD.sub("", line)) if bare else [])
        hits += DOCSTRING_OPENING.findall(line)
        found += [f"{path}:{number}: {hit}" for hit in hits]
    return found


def test_no_code_test_build_file_or_config_cites_an_issue_number() -> None:
    found = []
    for path in searched_files():
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += references(path, text)
    assert not found, f"{len(found)} issue-number references (give the reason, or link docs/decisions/):\n" + \
        "\n".join(found[:60])


def test_the_search_finds_each_form_and_passes_over_colours() -> None:
    """The check above can fail: each way a number was written is found, and colours and anchors are not."""
    text = ('# Redis Cluster (issue #40): one slot\n"""Issue #35: targets"""\nper issue 34, "Streams"\n'
            "stays in make test (#36)\n// exact on a cluster: #40\n"
            'fill = "#333"; see docs/grpc.md#with-an-api-key; # 1 in 3\n')
    assert [hit.split(": ", 1)[1] for hit in references("x.py", text)] == \
        ["issue #40", "Issue #35", "issue 34", "#36", "#40"]
    assert references("app.css", "svg .slot { stroke: #333; }\n") == []
    assert references("rules.md", "display [#3, #5, #9], buying #9 (issue #40)\n") == ["rules.md:1: issue #40"]
    assert references("x.py", 'fill = "#333"  # the colour\nurl = "a.md#with-an-api-key"\n') == []
