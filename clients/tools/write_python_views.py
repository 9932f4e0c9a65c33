"""Write clients/python/skyboard_client/views.py: each title's view and each engine event as a `TypedDict`, generated
from clients/openapi.json (whose schemas come from the engines' declarations, engine/<game>/shapes.py).

`make sdk-generate` runs this after write_openapi.py; tests/sdk/test_python_views.py fails while the committed module
is stale. The SDK's models type `Game.view` and `Submitted.events` with these for type checkers only: at run time
they stay the dicts the server sent, so a field a newer server adds is kept.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "clients" / "openapi.json"
TARGET = ROOT / "clients" / "python" / "skyboard_client" / "views.py"
REF = "#/components/schemas/"
_SCALARS = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}
HEADER = '''"""Each title's view and each engine event, as `TypedDict`s: what `Game.view` and `Submitted.events` hold.

Generated from the OpenAPI document (`clients/tools/write_python_views.py`, `make sdk-generate`), whose schemas are
the engines' declarations: do not edit. Narrow a view by its `game` and an event by its `type`:

    if game.view["game"] == "opensky":
        print(game.view["month_name"])
"""

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict
'''


def _py(schema: dict[str, Any]) -> str:
    """The Python type of a JSON Schema (the forms the declared shapes produce)."""
    if "$ref" in schema:
        return schema["$ref"].removeprefix(REF)
    if "const" in schema:
        return f"Literal[{schema['const']!r}]"
    if "enum" in schema:
        return f"Literal[{', '.join(repr(v) for v in schema['enum'])}]"
    if "anyOf" in schema or "oneOf" in schema:
        return " | ".join(_py(s) for s in schema.get("anyOf", schema.get("oneOf")))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_py({**schema, "type": k}) for k in kind)
    if kind == "array":
        return f"list[{_py(schema.get('items', {}))}]"
    if kind == "object":
        extra = schema.get("additionalProperties", True)
        if "properties" in schema:
            raise ValueError(f"an inline record has no name: {schema}")
        return f"dict[str, {_py(extra) if isinstance(extra, dict) else 'Any'}]"
    return _SCALARS.get(kind, "Any") if kind else "Any"


def _typed_dict(name: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    fields = {k: _py(v) if k in required else f"NotRequired[{_py(v)}]" for k, v in schema["properties"].items()}
    doc = schema.get("description", "").strip()
    if all(k.isidentifier() and not keyword.iskeyword(k) for k in fields):
        body = [f'    """{doc}"""\n'] if doc else []
        body += [f"    {k}: {t}" for k, t in fields.items()] or ["    pass"]
        return f"class {name}(TypedDict):\n" + "\n".join(body) + "\n"
    items = ", ".join(f"{k!r}: {t}" for k, t in fields.items())
    comment = f"#: {doc}\n" if doc else ""
    return f"{comment}{name} = TypedDict({name!r}, {{{items}}})\n"


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].removeprefix(REF)} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def module(doc: dict[str, Any]) -> str:
    """The module's text: every title's view, the events of its union, and every shape they name."""
    schemas = doc["components"]["schemas"]
    titles = [ref.removeprefix(REF).removesuffix("GameOut")
              for ref in schemas["GameOut"]["discriminator"]["mapping"].values()]
    roots = [f"{t}View" for t in titles]
    unions = {f"{t}Event": [r["$ref"].removeprefix(REF) for r in schemas[f"{t}Event"]["oneOf"]] for t in titles}
    wanted: list[str] = []
    todo = roots + [n for members in unions.values() for n in members]
    while todo:
        name = todo.pop(0)
        if name not in wanted:
            wanted.append(name)
            todo.extend(sorted(_refs(schemas[name]) - set(wanted)))
    parts = [HEADER]
    done: set[str] = set()

    def emit(name: str) -> None:  # every shape after those it names: the module evaluates its annotations
        if name not in done:
            done.add(name)
            for ref in sorted(_refs(schemas[name])):
                emit(ref)
            parts.append("\n" + _typed_dict(name, schemas[name]))

    for name in sorted(wanted):
        emit(name)
    parts.append(f"\n#: Any title's view (`Game.view`): its `game` says which\nView = {' | '.join(roots)}\n")
    for union, members in unions.items():
        title = union.removesuffix("Event")
        parts.append(f"#: An event of a game of {title} (its `type` says which), or the platform's\n"
                     f"{union} = {' | '.join(members)}\n")
    parts.append(f"#: An event of any title's game (`Submitted.events`)\nGameEventData = {' | '.join(unions)}\n")
    return re.sub(r"\n{3,}", "\n\n\n", "\n".join(p.rstrip("\n") + "\n" for p in parts)).replace(
        "\n\nclass", "\n\n\nclass")


def _tidy(text: str) -> str:
    """Two blank lines before each top-level definition, as the project's formatter writes it."""
    lines = text.splitlines()
    out: list[str] = []
    for line in lines:
        top = line and not line[0].isspace() and (line.startswith(("class ", "#: ")) or " = TypedDict(" in line)
        if top and out and not out[-1].startswith("#: "):
            while out and out[-1] == "":
                out.pop()
            out += ["", ""]
        out.append(line)
    return "\n".join(out) + "\n"


def text(doc: dict[str, Any]) -> str:
    return _tidy(module(doc))


if __name__ == "__main__":
    TARGET.write_text(text(json.loads(SOURCE.read_text())))
    print(f"wrote {TARGET.relative_to(ROOT)}", file=sys.stderr)
