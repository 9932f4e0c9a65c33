"""The search's hot modules, compiled to C with mypyc: what is compiled, building it, and a staleness check.

The `.py` files stay the source and the reference; mypyc writes a `.so` beside each, which Python then
imports instead. A bot's strength at a time budget is bought with iterations, and the compiled Blue Skies
engine and search run about 1.4 times as many a second (bench/RESULTS.md). A `.so` older than its source
would silently run old rules, so `make` rebuilds whenever a source is newer and the test session refuses
to start on a stale build.

    python ai/native.py build      # compile if any module is missing or stale (what `make compile` runs)
    python ai/native.py status     # which modules run compiled
    python ai/native.py clean      # delete the compiled files: every module runs from source

Run it as a script: `python -m ai.native` imports the `ai` package first, and with it the old compiled
search, which fails to import once the sources it was built from no longer define what it imports.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Compiled together (one mypyc group): the Blue Skies and Aeroplanes engines, their evaluations and the
#: generic search. Aeroplanes' `actions.py` stays source (its dataclasses subclass the uncompiled
#: `engine.core.Action`, which a native class cannot), and so do `data.py` (read once, at import) and `game.py`
#: (the registry's thin wrapper).
MODULES: tuple[str, ...] = (
    "engine/blueskies/constants.py",
    "engine/blueskies/state.py",
    "engine/blueskies/flow.py",
    "engine/blueskies/knowledge.py",
    "engine/blueskies/views.py",
    "engine/blueskies/passengers.py",
    "engine/blueskies/scoring.py",
    "ai/heuristics/blueskies.py",
    "engine/aeroplanes/dice.py",
    "engine/aeroplanes/era.py",
    "engine/aeroplanes/model.py",
    "engine/aeroplanes/placement.py",
    "engine/aeroplanes/claims.py",
    "engine/aeroplanes/routes.py",
    "engine/aeroplanes/scoring.py",
    "engine/aeroplanes/state.py",
    "engine/aeroplanes/views.py",
    "ai/heuristics/aeroplanes.py",
    "ai/ismcts.py",
    "ai/learned.py",
    "ai/outcome.py",
)
_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # e.g. .cpython-311-x86_64-linux-gnu.so


def compiled_path(source: str) -> Path:
    return ROOT / (source[: -len(".py")] + _SUFFIX)


def stale() -> list[str]:
    """Modules whose compiled file exists but is older than the source (it would run the old code)."""
    out = []
    for source in MODULES:
        built = compiled_path(source)
        if built.exists() and built.stat().st_mtime < (ROOT / source).stat().st_mtime:
            out.append(source)
    return out


def missing() -> list[str]:
    return [source for source in MODULES if not compiled_path(source).exists()]


#: The group's shared library, a top-level module beside `ai` and `engine` (mypyc computes a compiled
#: module's __file__ from it, wrongly when it sits inside a package). `build` puts the repository on the
#: environment's path with a .pth file, so the compiled modules import from any directory, as `ai` does.
GROUP = "skyboard_native"
_SETUP = f"""
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="skyboard-native", script_args=["build_ext", "--inplace", "--build-temp", "build/mypyc"],
      ext_modules=mypycify(["--ignore-missing-imports", "--follow-imports=silent", *sys.argv[1:]],
                           group_name="{GROUP}"))
"""


def build() -> None:
    """Compile every module with mypyc when any is missing or stale (otherwise only the .pth is checked)."""
    _put_root_on_path()
    if not stale() and not missing():
        return
    command = [sys.executable, "-c", _SETUP, *MODULES]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"mypyc failed:\n{result.stdout[-4000:]}{result.stderr[-4000:]}")
    for source in MODULES:  # an unchanged module is not rebuilt and its copy keeps the old time: date all now
        compiled_path(source).touch()


def _put_root_on_path() -> None:
    """Inside a virtual environment, a .pth file naming the repository (an editable install maps only the
    packages it found, not the group's library, which is built afterwards)."""
    if sys.prefix == sys.base_prefix:
        return
    site = Path(sysconfig.get_paths()["purelib"])
    (site / "skyboard-native.pth").write_text(f"{ROOT}\n", encoding="utf-8")


def clean() -> None:
    for source in MODULES:
        compiled_path(source).unlink(missing_ok=True)
    for group in ROOT.glob(f"*__mypyc{_SUFFIX}"):
        group.unlink()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "status", "clean"))
    command = parser.parse_args(argv).command
    if command == "build":
        build()
    elif command == "clean":
        clean()
    old = set(stale())
    for source in MODULES:
        state = "stale" if source in old else "compiled" if compiled_path(source).exists() else "source"
        print(f"{state:9} {source}")


if __name__ == "__main__":
    main()
