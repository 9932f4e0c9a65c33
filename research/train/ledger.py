"""The labelling job's ledger: one JSONL file of labelled positions, committed a whole game at a time.

Why a game at a time: a position's outcome label is known only once its game ends, and a job killed mid-game must
neither leave half a game behind nor label it twice. So a game's position lines and then its closing `game` line
are written in one `write` and fsynced; on opening, anything after the last `game` line (a game cut short by a
kill, a torn line) is truncated away, and the game indexes with a `game` line are done. A restarted job therefore
resumes at the first game not done, and never duplicates one.

Lines (JSON objects, `kind` says which):
- `position`: one decision with a choice: run, game, players (the level at each seat), deal (the engine seed),
  game_index, index (decision number in the game), seat, legal (the actions' JSON), features (one row per legal
  action, `ai.policy.features`), feature_version, visits (the teacher's root visits per legal action), values (the
  mean result its root edge backed up, the seat's win share; null if unvisited; from game 11 of bs2-distill-r1 on),
  iterations,
  chosen (index of the action played), outcome (final scores, win credit per seat), code (fingerprint).
- `game`: deal, game_index, actions ([seat, action JSON] of every decision, forced ones included: the game replays
  from its deal), scores, winners, positions, cpu_seconds, code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path


class Ledger:
    """A resumable JSONL ledger (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.done: set[int] = set()
        self.positions = 0
        self._recover()

    def _recover(self) -> None:
        """Read what is complete; truncate whatever follows the last complete game."""
        if not self.path.exists():
            self.path.touch()
            return
        keep = 0
        offset = 0
        pending = 0
        with open(self.path, "rb") as handle:
            for raw in handle:
                offset += len(raw)
                if not raw.endswith(b"\n"):
                    break
                try:
                    entry = json.loads(raw)
                except ValueError:
                    break
                if entry.get("kind") == "position":
                    pending += 1
                elif entry.get("kind") == "game":
                    self.done.add(int(entry["game_index"]))
                    self.positions += pending
                    pending = 0
                    keep = offset
        if keep != self.path.stat().st_size:
            with open(self.path, "r+b") as handle:
                handle.truncate(keep)

    def commit_game(self, positions: list[dict], game: dict) -> None:
        """Append one finished game (its positions, then its `game` line) in one write, and fsync."""
        if game["game_index"] in self.done:
            raise ValueError(f"game {game['game_index']} is already in {self.path}")
        text = "".join(json.dumps(p, separators=(",", ":")) + "\n" for p in positions)
        text += json.dumps({"kind": "game", **game}, separators=(",", ":")) + "\n"
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        self.done.add(game["game_index"])
        self.positions += len(positions)


def read_positions(path: str | Path) -> Iterator[dict]:
    """Every `position` line of complete games in a ledger (plain or .gz), in file order."""
    import gzip

    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    pending: list[dict] = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n"):
                break
            try:
                entry = json.loads(line)
            except ValueError:
                break
            if entry.get("kind") == "position":
                pending.append(entry)
            elif entry.get("kind") == "game":
                yield from pending
                pending = []


def write_json_atomic(path: str | Path, obj: dict) -> None:
    """Write `obj` as JSON via a temporary file and a rename, so a reader never sees half of it."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def snapshot(run_dir: str | Path) -> Path:
    """Copy the whole games of a run's live ledger (it may be growing) to `ledger-<games>g.jsonl.gz` beside it:
    a fixed, compressed data set to train on and to commit. Returns its path."""
    import gzip

    run_dir = Path(run_dir)
    kept: list[bytes] = []
    pending: list[bytes] = []
    games = 0
    with open(run_dir / "ledger.jsonl", "rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            pending.append(raw)
            if raw.startswith(b'{"kind":"game"'):
                kept += pending
                pending = []
                games += 1
    out = run_dir / f"ledger-{games}g.jsonl.gz"
    with gzip.open(out, "wb", compresslevel=9) as handle:
        handle.writelines(kept)
    return out
