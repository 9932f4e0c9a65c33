"""What the runtime packages carry and where research lives: `ai/` holds what plays (at most 3 MB: code, the shipped
models, the fitted weights), `bench/RESULTS.md` is a report of current figures (at most 700 lines), and every
experiment is a dated folder of `research/` with its write-up, beside the research tools (the `research` package:
`research/lab/`, `research/train/`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Build outputs beside the sources (compiled modules, bytecode): not part of the repository.
BUILT = (".so", ".pyc")
#: The research tools' packages inside research/ (research/__init__.py says why they are there).
TOOLS = {"lab", "train"}


def _source_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix not in BUILT]


def test_the_runtime_bot_package_is_at_most_3_mb_and_holds_no_ledgers():
    files = _source_files(ROOT / "ai")
    size = sum(p.stat().st_size for p in files)
    assert size <= 3 * 1024 * 1024, f"ai/ holds {size / 1e6:.1f} MB"
    ledgers = [p for p in files if p.name.endswith((".jsonl", ".jsonl.gz", ".log"))]
    assert not ledgers, f"ledgers and logs belong in research/: {ledgers[:5]}"


def test_the_models_folder_holds_only_the_manifests_models_and_their_cards():
    models = ROOT / "ai" / "policy" / "models"
    manifest = json.loads((models / "manifest.json").read_text(encoding="utf-8"))["models"]
    expected = {"manifest.json"} | set(manifest) | {entry["card"] for entry in manifest.values()}
    assert {p.name for p in _source_files(models)} == expected


def test_the_report_is_at_most_700_lines():
    lines = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 700, f"bench/RESULTS.md has {lines} lines: move history to research/"


def test_every_experiment_is_a_dated_folder_with_its_write_up_listed_in_the_index():
    index = (ROOT / "research" / "README.md").read_text(encoding="utf-8")
    folders = [p for p in (ROOT / "research").iterdir() if p.is_dir() and p.name not in TOOLS | {"__pycache__"}]
    assert folders
    for folder in folders:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+", folder.name), folder.name
        assert (folder / "README.md").is_file(), folder.name
        assert f"`{folder.name}`" in index, f"{folder.name} is not in research/README.md"
        assert {p.name for p in folder.iterdir() if p.is_dir()} <= {"ledgers", "models", "data"}, folder.name


def test_research_holds_the_tools_as_one_package_and_ai_holds_none_of_them():
    """The tools are the `research` package (lab, train) and nothing else there is code; `ai/` keeps no research
    tool, and the worker image copies `ai/` but not `research/` (deploy/Dockerfile, .dockerignore)."""
    research = ROOT / "research"
    assert (research / "__init__.py").is_file()
    for tool in TOOLS:
        assert (research / tool / "__init__.py").is_file() and (research / tool / "README.md").is_file(), tool
    code = {p.relative_to(research).parts[0] for p in research.rglob("*.py")}
    assert code == TOOLS | {"__init__.py"}, f"code outside the tools' packages: {sorted(code - TOOLS)}"
    assert not (ROOT / "ai" / "lab").exists() and not (ROOT / "ai" / "train").exists()
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    copied = {line.split()[1] for line in dockerfile.splitlines() if line.startswith("COPY ") and "--" not in line}
    assert "ai" in copied and not any(c == "research" or c.startswith("research/") for c in copied), copied
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert "research" in ignored


def test_the_tools_and_the_write_ups_name_no_path_on_the_machine_that_wrote_them():
    """A reader has the repository, not the machine it was written on: the tools' READMEs, the experiments' write-ups
    and the runtime's notes name paths inside the repository only (no home or work folder, no sibling folder)."""
    machine = re.compile(r"(?<![\w.])/(?:work|home|Users)/|\.\./shared/")
    notes = [*(ROOT / "research").glob("*/README.md"), ROOT / "research" / "README.md", *(ROOT / "ai").rglob("*.md")]
    assert len(notes) > 20
    named = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in notes for m in [machine.search(p.read_text("utf-8"))] if m]
    assert named == []
    assert machine.search("see /work/shared/design/x.md") and machine.search("(`../shared/design/x.md`)")


def test_every_first_party_command_the_docs_and_records_name_is_a_module():
    """`python -m <module>` in the README, the docs, the report, the experiments' write-ups and transcripts and the
    models' cards names a module that exists, so a command copied from them runs (the research tools moved out of
    `ai/` once: their commands moved with them)."""
    import importlib.util

    texts = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "bench").glob("*.md"),
             *(ROOT / "bench" / "results").glob("*.txt"), *(ROOT / "ai").rglob("*.md"),
             *(ROOT / "ai" / "policy" / "models").glob("*.card.json"), *(ROOT / "research").rglob("*.md"),
             *(ROOT / "research").glob("*/ledgers/*.txt"), *(ROOT / "research").glob("*/models/*.card.json"),
             *(ROOT / "research").glob("*/data/*/manifest.json")]
    ours = {"ai", "research", "bench", "services", "engine", "clients", "tests"}
    named: dict[str, str] = {}
    for path in texts:
        for m in re.finditer(r"python -m ((\w+)(?:\.\w+)*)(?![\w<]|\.[\w<])", path.read_text(encoding="utf-8")):
            if m.group(2) in ours:
                named.setdefault(m.group(1), str(path.relative_to(ROOT)))
    assert {"research.lab.tournament", "research.train", "research.lab.ladder_fit"} <= set(named)
    missing = {name: where for name, where in named.items() if importlib.util.find_spec(name) is None}
    assert missing == {}
