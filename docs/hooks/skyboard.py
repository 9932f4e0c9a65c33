"""MkDocs hook: fills the `<!-- skyboard:... -->` markers of the pages from the code itself at build time, so the
site cannot drift from the engines, the OpenAPI document or the proto.

Markers: `actions GAME`, `events GAME`, `view GAME`, `phases GAME`, `catalog`, `operations` (every REST
operation of /openapi.json), `file PATH` (a repository file as a code block: the proto, the example bot),
`tokens GAME` (the adapters' integer for every action part, engine/adapters/actions.py).
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MARKER = re.compile(r"<!-- skyboard:(\w+)(?: ([^ ]+))? -->")
LANGS = {".proto": "proto", ".py": "python", ".json": "json", ".ts": "ts"}


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def code(value: Any, limit: int = 110) -> str:
    from services.gateway.openapi.vocabulary import compact

    return f"`{cell(compact(value, limit))}`"


def types(seen: set[str]) -> str:
    return " or ".join(sorted(seen)) if seen else "any"


@functools.cache
def openapi() -> dict[str, Any]:
    from services.gateway.app import create_app
    from services.gateway.settings import GatewaySettings

    # only the document is read: no connection is made, the secret is a placeholder
    settings = GatewaySettings(service_secret="docs-build-" + "x" * 40, metrics_port=0,
                               archive_url="sqlite+aiosqlite:///:memory:")  # never connected: the schema only
    return create_app(settings).openapi()


def actions(game: str) -> str:
    from engine import get
    from services.gateway.openapi.types import game_action_schemas
    from services.gateway.openapi.vocabulary import vocabulary

    schemas, _union = game_action_schemas(get(game))
    vocab = vocabulary(game)
    rows = ["| `type` | fields | example |", "|---|---|---|"]
    for action_type, shape in vocab.actions.items():
        props = next(s for s in schemas.values() if s["properties"]["type"]["const"] == action_type)["properties"]
        fields = ", ".join(f"`{f}` ({_schema_type(p)})" for f, p in props.items() if f != "type") or "none"
        rows.append(f"| `{action_type}` | {fields} | {code(shape.example)} |")
    return "\n".join(rows)


def _schema_type(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_schema_type(s) for s in schema["anyOf"])
    if schema.get("type") == "array":
        return f"array of {_schema_type(schema.get('items', {}))}" if "items" in schema else "array"
    return str(schema.get("type", "any"))


def events(game: str) -> str:
    from services.gateway.openapi.vocabulary import vocabulary

    rows = ["| `type` | fields | example |", "|---|---|---|"]
    for event_type, shape in vocabulary(game).events.items():
        fields = ", ".join(f"`{f}` ({types(t)})" for f, t in shape.fields.items()) or "none"
        example = code({"type": event_type, **(shape.example or {})}) if shape.example else "(rare: not seen in "\
            "the seeded games that build this page)"
        rows.append(f"| `{event_type}` | {fields} | {example} |")
    return "\n".join(rows)


def view(game: str) -> str:
    from services.gateway.openapi.vocabulary import vocabulary

    shape = vocabulary(game).view
    rows = ["| field | JSON type | example (seat 0, start of a game) |", "|---|---|---|"]
    for name, seen in shape.fields.items():
        example = code(shape.example[name], 80) if shape.example and name in shape.example else "(later in a game)"
        rows.append(f"| `{name}` | {types(seen)} | {example} |")
    return "\n".join(rows)


def phases(game: str) -> str:
    from services.gateway.openapi.vocabulary import vocabulary

    return ", ".join(f"`{p}`" for p in vocabulary(game).phases)


def catalog(_arg: str | None) -> str:
    import engine

    rows = ["| name | title | players | options |", "|---|---|---|---|"]
    for name in engine.games():
        g = engine.get(name)
        opts = "; ".join(f"`{k}`: {', '.join(f'`{c}`' for c in v.get('choices', []))} (default `{v['default']}`)"
                         for k, v in g.options.items()) or "none"
        rows.append(f"| `{name}` | {g.title} | {g.min_players}-{g.max_players} | {cell(opts)} |")
    return "\n".join(rows)


def credential(security: list[dict[str, Any]]) -> str:
    """An operation's `security`, read as the credential it takes."""
    names = {"ApiKey": "API key", "SeatToken": "seat token"}
    needed = [names.get(next(iter(r), ""), "") for r in security if r]
    if not security:
        return "none"
    return " or ".join(needed) + (" (optional)" if {} in security else "")


def operations(_arg: str | None) -> str:
    rows = ["| method | path | what it does | credential | operationId | Python SDK |", "|---|---|---|---|---|---|"]
    from skyboard_client._core import OPERATIONS

    for path, item in openapi()["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, op in item.items():
            sdk = OPERATIONS.get((method, path))
            rows.append(f"| `{method.upper()}` | `{path}` | {cell(op.get('summary', ''))} | "
                        f"{credential(op.get('security', []))} | `{op.get('operationId', '')}` | "
                        f"{f'`{sdk}`' if sdk else ''} |")
    return "\n".join(rows)


def file(path: str) -> str:
    source = ROOT / path
    return f"```{LANGS.get(source.suffix, '')}\n{source.read_text().rstrip()}\n```"


def tokens(game: str) -> str:
    """The research adapters' token table: how each action type is spelt, then every token's integer."""
    from engine.adapters.actions import table

    t = table(game)
    rows = ["| action type | integer | then |", "|---|---|---|"]
    for kind, fields in t.fields.items():
        parts = ", ".join(f"`{f}`: each item, then `END`" if is_tuple else f"`{f}`" for f, is_tuple in fields)
        rows.append(f"| `{kind}` | {t.index['type:' + kind]} | {parts or 'nothing'} |")
    rows += ["", f"All {t.size} integers of {game} (`END` and field values after the action types):", "",
             "| integers | tokens |", "|---|---|"]
    for start in range(0, t.size, 8):
        chunk = t.tokens[start:start + 8]
        rows.append(f"| {start}-{start + len(chunk) - 1} | {cell(' '.join(f'`{label}`' for label in chunk))} |")
    return "\n".join(rows)


RENDER = {"tokens": tokens, "actions": actions, "events": events, "view": view, "phases": phases, "catalog": catalog,
          "operations": operations, "file": file}


def on_page_markdown(markdown: str, **_kwargs: Any) -> str:
    return MARKER.sub(lambda m: RENDER[m.group(1)](m.group(2)), markdown)
