"""The engine-inferred parts of /openapi.json, generated ahead of time into `inferred_schemas.json` (issue #37).

Why ahead of time: inferring each title's view and event schemas plays seeded random games of every title
(`views.samples`, `vocabulary.vocabulary`: 5-15 CPU s, 20+ s on a loaded machine), and done inside the first
GET /openapi.json that blocked the gateway's event loop. The file is package data (pyproject's `*.json`), so
wheels and container images carry it; the gateway reads it and serves /openapi.json from cold in milliseconds.

`make openapi-generate` (and `make sdk-generate`, which runs it first) rewrites it:
`python -m services.gateway.openapi.inferred`. tests/gateway/test_openapi_inferred.py regenerates it in-process
and fails while the committed file is stale, so a changed engine view or event fails CI until regenerated.
"""

from __future__ import annotations

import functools
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

FILE = "inferred_schemas.json"
#: Where `make openapi-generate` writes the file (in the source tree; the installed copy is package data)
SOURCE = Path(__file__).with_name(FILE)


def compute() -> dict[str, Any]:
    """Infer every title's schemas by playing its seeded games (the slow part): the per-title view schemas, the
    game event component schemas and each title's example view."""
    import engine
    from services.gateway.openapi.events import game_event_schemas
    from services.gateway.openapi.views import view_schema
    from services.gateway.openapi.vocabulary import vocabulary

    games = engine.games()
    doc = {"views": {name: view_schema(name) for name in games},
           "events": game_event_schemas(),
           "view_examples": {name: vocabulary(name).view.example for name in games}}
    return json.loads(json.dumps(doc))  # as the file holds it (tuples as lists)


def text(doc: dict[str, Any]) -> str:
    """The file's text, one value a line so a regeneration's diff shows what changed; keys keep their order (the
    served document's order, which clients/openapi.json records)."""
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


@functools.cache
def _committed_text() -> str:
    return resources.files(__package__).joinpath(FILE).read_text(encoding="utf-8")


def load() -> dict[str, Any]:
    """The committed schemas, a fresh copy per call (each app's document is edited in place after)."""
    return json.loads(_committed_text())


def main() -> None:
    SOURCE.write_text(text(compute()), encoding="utf-8")
    print(f"wrote {SOURCE}", file=sys.stderr)


if __name__ == "__main__":
    main()
