"""The lock files (requirements/*.txt, clients/tools/requirements.lock; `make lock`) against what the project declares.

Why: `make install`, CI and the image install only from the locks, so a dependency added to pyproject.toml but not
re-locked would be missing everywhere but on the machine of whoever added it, and a raised minimum would silently stay
at the old pin. Each declared requirement must be pinned in its lock at a version it admits, and each pin the lock
says it took from a declaration must still be declared (a removed dependency is re-locked too). The lock files are
read as text: no network, no resolver.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s;\\]+)\s*(?:;\s*([^\\]*?))?\s*\\?$")


@dataclass
class Pin:
    """One pinned line. The locks are universal: a package may be pinned twice, under exclusive markers (numpy for
    Python < 3.12 and for >= 3.12)."""

    name: str
    version: str
    marker: str = ""
    hashes: int = 0
    via: list[str] = field(default_factory=list)


def read_lock(path: Path) -> list[Pin]:
    """Every pinned line, with its marker, its hashes counted and its `# via` sources."""
    pins: list[Pin] = []
    current: Pin | None = None
    in_via = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := PIN.match(line):
            current = Pin(canonicalize_name(match[1]), match[3], match[4] or "")
            pins.append(current)
            in_via = False
        elif current is not None and line.strip().startswith("--hash="):
            current.hashes += 1
        elif current is not None and line.strip().startswith("# via"):
            rest = line.strip()[len("# via"):].strip()
            in_via = not rest
            if rest:
                current.via.append(rest)
        elif current is not None and in_via and line.startswith("    #   "):
            current.via.append(line.strip()[1:].strip())
    return pins


def pyproject(path: str) -> dict:
    return tomllib.loads((ROOT / path).read_text(encoding="utf-8"))


def runtime_requirements() -> list[Requirement]:
    return [Requirement(r) for r in pyproject("pyproject.toml")["project"]["dependencies"]]


def dev_requirements() -> list[Requirement]:
    """Everything `make install` installs: the project with every extra, and the Python SDK."""
    project = pyproject("pyproject.toml")["project"]
    declared = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        declared += extra
    declared += pyproject("clients/python/pyproject.toml")["project"]["dependencies"]
    return [Requirement(r) for r in declared]


def tools_requirements() -> list[Requirement]:
    lines = (ROOT / "clients/tools/requirements.txt").read_text(encoding="utf-8").splitlines()
    return [Requirement(line.split("#", 1)[0].strip()) for line in lines if line.split("#", 1)[0].strip()]


def mypyc_requirements() -> list[Requirement]:
    lines = (ROOT / "requirements/mypyc.in").read_text(encoding="utf-8").splitlines()
    return [Requirement(line.split("#", 1)[0].strip()) for line in lines if line.split("#", 1)[0].strip()]


# lock file -> (its declarations, the `# via` sources naming a declaration in it)
LOCKS = {
    "requirements/dev.txt": (dev_requirements, ("skyboard (pyproject.toml)",
                                                "skyboard-client (clients/python/pyproject.toml)")),
    "requirements/runtime.txt": (runtime_requirements, ("skyboard (pyproject.toml)",)),
    "requirements/mypyc.txt": (mypyc_requirements, ("-r requirements/mypyc.in",)),
    "clients/tools/requirements.lock": (tools_requirements, ("-r clients/tools/requirements.txt",)),
}


@pytest.mark.parametrize("lock", LOCKS)
def test_every_declared_requirement_is_pinned_at_a_version_it_admits(lock: str) -> None:
    declared, _ = LOCKS[lock]
    pins = read_lock(ROOT / lock)
    problems = []
    for req in declared():
        mine = [pin for pin in pins if pin.name == canonicalize_name(req.name)]
        if not mine:
            problems.append(f"{req} is declared but not in {lock}")
        problems += [f"{req} is declared but {lock} pins {req.name}=={pin.version} ({pin.marker or 'everywhere'})"
                     for pin in mine if not req.specifier.contains(pin.version, prereleases=True)]
    assert not problems, "; ".join(problems) + ": run `make lock`"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_taken_from_a_declaration_is_still_declared(lock: str) -> None:
    declared, sources = LOCKS[lock]
    names = {canonicalize_name(req.name) for req in declared()}
    stale = [pin.name for pin in read_lock(ROOT / lock)
             if any(source in pin.via for source in sources) and pin.name not in names]
    assert not stale, f"{lock} pins {stale} for a declaration that is gone: run `make lock`"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_carries_hashes(lock: str) -> None:
    """pip's --require-hashes refuses a lock with a bare pin; checked here so `make lock`'s flags stay as they are."""
    pins = read_lock(ROOT / lock)
    assert pins
    assert [pin.name for pin in pins if pin.hashes == 0] == []


@pytest.mark.parametrize("lock", ["requirements/runtime.txt", "requirements/mypyc.txt"])
def test_the_image_locks_pin_the_dev_locks_versions(lock: str) -> None:
    """The image runs what the tests ran: its locks are resolved under the dev lock (`-c requirements/dev.txt`)."""
    dev = {(pin.name, pin.version) for pin in read_lock(ROOT / "requirements/dev.txt")}
    differ = [f"{pin.name}=={pin.version}" for pin in read_lock(ROOT / lock) if (pin.name, pin.version) not in dev]
    assert not differ, f"{lock} pins what requirements/dev.txt does not: {differ}"


def test_the_lock_reader_sees_a_dropped_and_an_unlocked_requirement(tmp_path: Path) -> None:
    """The checks above can fail: a lock missing a declaration, and one pinning a dependency no longer declared."""
    lock = tmp_path / "lock.txt"
    lock.write_text("alpha==1.0 \\\n    --hash=sha256:00\n    # via\n    #   beta\n    #   skyboard (pyproject.toml)\n"
                    "gamma==2.0 ; python_version >= '3.11' \\\n    --hash=sha256:11\n"
                    "    # via skyboard (pyproject.toml)\n", encoding="utf-8")
    pins = read_lock(lock)
    assert pins == [Pin("alpha", "1.0", "", 1, ["beta", "skyboard (pyproject.toml)"]),
                    Pin("gamma", "2.0", "python_version >= '3.11'", 1, ["skyboard (pyproject.toml)"])]
    assert not Requirement("gamma>=2.1").specifier.contains(pins[1].version)
