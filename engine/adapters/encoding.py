"""A seat's observation, read from the engine's redacted view and nothing else.

Both adapters observe a seat through `State.view(seat)`, the view the engines already redact (what the
rules let that seat know), plus the tokens that seat has chosen so far in its own pending decision
(`Cursor.prefix`; another seat never sees them). Two encodings:

- text: the canonical JSON of `{"view": view, "pending": [token labels]}` (sorted keys, no spaces);
- tensor: feature hashing of that JSON into `FEATURES` float32 slots. The view is walked as a tree and every
  leaf becomes one feature named by its path (dict keys, list positions):
    * a number or a bool at `path` adds its value to slot h("path");
    * a string `s` at `path` adds 1 to slot h("path=s") (a one-hot over the strings seen there);
    * a list of strings at `path` counts: each element `s` adds 1 to slot h("path[]=s") (hands, piles);
    * None adds nothing;
  and each pending token at position i adds 1 to slot h("pending[i]=label").
  h is CRC-32 modulo FEATURES. Collisions are possible and harmless to honesty (a slot only ever sums
  what the view holds); the text form is exact.

Because every feature comes from the view, two states that differ only in what the seat cannot see give
identical encodings; `tests/adapters` checks this on determinisations of real positions.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from engine.adapters.actions import Cursor
from engine.core import canonical_json

#: slots of the hashed observation tensor (the same for every game, so tooling can be shared)
FEATURES = 4096
#: the tensor's bounds as a space (money, scores and counts stay far inside them)
LOW, HIGH = -1e6, 1e6

_slots: dict[str, int] = {}


def _slot(name: str) -> int:
    slot = _slots.get(name)
    if slot is None:
        slot = _slots[name] = zlib.crc32(name.encode()) % FEATURES
    return slot


def _walk(value: Any, path: str, out: np.ndarray) -> None:
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            _walk(item, f"{path}.{key}", out)
    elif kind is list:
        if value and all(type(v) is str for v in value):
            for v in value:
                name = f"{path}[]={v}"
                out[_slots.get(name) or _slot(name)] += 1.0
        else:
            for i, item in enumerate(value):
                _walk(item, f"{path}[{i}]", out)
    elif kind is str:
        name = f"{path}={value}"
        out[_slots.get(name) or _slot(name)] += 1.0
    elif kind is int or kind is bool or kind is float:
        out[_slots.get(path) or _slot(path)] += value


def observed(cursor: Cursor, seat: int | None) -> tuple[dict[str, Any], list[str]]:
    """What `seat` observes: its view, and its own pending tokens (none for a seat not asked, a spectator)."""
    pending = cursor.pending() if seat is not None and seat == cursor.seat() else []
    return cursor.state.view(seat), pending


def observation_text(cursor: Cursor, seat: int | None) -> str:
    view, pending = observed(cursor, seat)
    return canonical_json({"view": view, "pending": pending})


def observation_tensor(cursor: Cursor, seat: int | None, out: np.ndarray | None = None) -> np.ndarray:
    """The hashed encoding (written into `out` if given, which must hold FEATURES float32)."""
    if out is None:
        out = np.zeros(FEATURES, np.float32)
    else:
        out.fill(0.0)
    view, pending = observed(cursor, seat)
    _walk(view, "", out)
    for i, label in enumerate(pending):
        out[_slot(f"pending[{i}]={label}")] += 1.0
    np.clip(out, LOW, HIGH, out=out)
    return out
