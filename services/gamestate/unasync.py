"""`python -m services.gamestate.unasync`: writes `client_sync.py`, the blocking twin of `client.py`'s clients.

Why generated: bot workers, scripts and tests call the service without an event loop, and a hand-kept second
copy of every call drifts from the first. The async clients are the one source; this rewrites their section
token for token (`async def` -> `def`, `await` dropped, grpc.aio -> grpc), as httpcore does with unasync.
`tests/services/test_sync_client.py` fails when the checked-in file is not what this writes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SOURCE = Path(__file__).with_name("client.py")
TARGET = Path(__file__).with_name("client_sync.py")
MARKER = "# ---------------------------------------------------------------------- clients\n"

#: whole-word rewrites, in order
WORDS = [
    ("AsyncGameClient", "GameClient"),
    ("AsyncAdminClient", "AdminClient"),
    ("AsyncIterator", "Iterator"),
    ("__aenter__", "__enter__"),
    ("__aexit__", "__exit__"),
]
#: literal rewrites, in order
TEXT = [
    ("async def ", "def "),
    ("async for ", "for "),
    ("await ", ""),
    ("grpc.aio.", "grpc."),
]

HEADER = '''"""Blocking clients of the game-state gRPC API (bot workers, scripts, tests): `GameClient`, `AdminClient`.

Generated from client.py by `python -m services.gamestate.unasync`; do not edit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.credentials import call_metadata
from services.gamestate.client import (
{names}
)
from services.gamestate.pb import pb2, pb2_grpc
from services.gamestate.updates import HEARTBEAT, Update

'''


def _module_names(source: str) -> list[str]:
    """The top-level names `client.py` defines before its clients' section."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return names


def generate(source: str) -> str:
    head, _, body = source.partition(MARKER)
    if not body:
        raise ValueError(f"client.py lost its marker line {MARKER.strip()!r}")
    for old, new in WORDS:
        body = re.sub(rf"\b{old}\b", new, body)
    for old, new in TEXT:
        body = body.replace(old, new)
    body = body.split("\n", 1)[1].lstrip("\n")  # the marker's note on how this file is made
    used = sorted((n for n in _module_names(head) if re.search(rf"\b{n}\b", body)),
                  key=lambda n: (not n.isupper(), not n[0].isupper(), n))  # isort's order: constants, classes, rest
    return HEADER.format(names="\n".join(f"    {n}," for n in used)) + "\n" + body


def main() -> None:
    TARGET.write_text(generate(SOURCE.read_text()))
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
