"""Where a process's CPU goes, from py-spy collapsed stacks (`py-spy record -f raw`, e.g. bench.cpu_cost).

Why: the flame graph of a whole load run is too wide to read; this prints the share of samples whose
stack contains a frame (inclusive) for the frames that dominate, and the leaf functions (self time).

    python -m bench.profile_summary /tmp/prof/new-0-gateway.txt [--top 25] [--grep gamestate]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def frames(stack: str) -> list[str]:
    """`func (file:line)` frames without line numbers, outermost first."""
    out = []
    for raw in stack.split(";"):
        m = _FRAME.match(raw.strip())
        out.append(f"{m['func']} ({m['file']})" if m else raw.strip())
    return out


def read(path: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append((frames(stack), int(count)))
    return stacks


def package(frame: str) -> str:
    """Where a frame's code lives: 'services/gateway', 'fastapi', 'asyncio', ... ('?' if unknown)."""
    m = re.search(r"\(([^()]*)\)$", frame)
    path = m.group(1) if m else ""
    parts = path.split("/")
    if parts[0] in ("services", "engine", "bench") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else (path or "?")


def summarise(stacks: list[tuple[list[str], int]], top: int, grep: str | None) -> str:
    total = sum(n for _, n in stacks) or 1
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    packages: Counter[str] = Counter()
    for fs, n in stacks:
        for f in set(fs):
            inclusive[f] += n
        if fs:
            leaf[fs[-1]] += n
            packages[package(fs[-1])] += n
    lines = [f"{total} samples"]
    lines.append("self, by package of the leaf frame (C code is counted in the Python frame that called it):")
    for pkg, n in packages.most_common(top):
        lines.append(f"  {100 * n / total:5.1f}%  {pkg}")
    lines.append("inclusive (stack contains the frame):")
    for f, n in inclusive.most_common():
        if grep and grep not in f:
            continue
        if n / total < 0.01:
            break
        lines.append(f"  {100 * n / total:5.1f}%  {f}")
        if len(lines) > top + 2:
            break
    lines.append("self (leaf frame):")
    for f, n in leaf.most_common(top):
        lines.append(f"  {100 * n / total:5.1f}%  {f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--grep", help="only inclusive frames containing this text")
    args = ap.parse_args()
    stacks = [s for path in args.files for s in read(path)]
    print(summarise(stacks, args.top, args.grep))


if __name__ == "__main__":
    main()
