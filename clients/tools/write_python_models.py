"""Write clients/python/skyboard_client/records.py: the SDK's response models (`Game`, `GameSummary`, ...) as
pydantic classes, generated from clients/openapi.json (whose schemas are the gateway's REST contract).

`make sdk-generate` runs this after write_openapi.py; tests/sdk/test_python_views.py fails while the committed module
is stale. The hand-written `skyboard_client/models.py` re-exports these, beside the models that carry behaviour of
their own (properties, helpers) or that requests also build (the time controls). A field added to a REST schema is
then one regeneration here, not one more hand-kept line.

The rules, field by field: a required property has no default; an optional one takes the schema's `default`, else an
empty dict or list for an object or array, else None. A `oneOf` with a discriminator (`GameOut`: one schema per title)
becomes one model with the variants' common fields: the discriminator is the title's name (`str`) and the view is the
SDK's `View` union (typed for type checkers by views.py, a plain dict at run time).
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "clients" / "openapi.json"
TARGET = ROOT / "clients" / "python" / "skyboard_client" / "records.py"
REF = "#/components/schemas/"

#: The generated models: the SDK's name -> its OpenAPI schema. The module orders them (each after those it names).
#: The others in models.py stay hand-written on purpose: each is laxer than its schema where a newer or older server
#: may differ (a `str` where the schema lists values, a default where it requires the field), or types a field with
#: the SDK's own view and action types.
MODELS = {
    "CatalogGame": "CatalogGame", "PlayerCreated": "PlayerCreated", "Rating": "RatingOut",
    "KeyRotated": "KeyRotated", "KeysRevoked": "KeysRevoked", "Seat": "Seat", "CreatedGame": "CreatedGame",
    "SeatInfo": "SeatOut", "Game": "GameOut", "GameSummary": "GameSummaryOut", "Version": "Version",
    "NewToken": "NewToken", "TicketCreated": "TicketCreated", "Ticket": "TicketOut",
    "ChallengeCreated": "ChallengeCreated", "ChallengeAccepted": "ChallengeAccepted",
    "LeaderboardEntry": "LeaderboardEntry", "Leaderboard": "Leaderboard", "HistoryGame": "HistoryGame",
    "History": "History", "YourTurnEvent": "AccountYourTurnEvent", "GameEndEvent": "AccountGameEndEvent",
    "WebhookDisabledEvent": "AccountWebhookDisabledEvent", "WebhookDisabled": "WebhookDisabled",
    "WebhookDeleted": "WebhookDeleted", "SecretRotated": "SecretRotated", "Redelivery": "Redelivery",
    "ResignedSeat": "ResignedSeat", "AccountDeleted": "AccountDeleted", "TournamentCreated": "TournamentCreated",
    "TournamentTable": "TableOut", "TournamentRound": "RoundOut", "Standing": "StandingOut",
    "Standings": "TournamentStandings", "TournamentEntry": "Entry",
}
#: Schemas the SDK declares by hand (`skyboard_client/_base.py`), by the name a generated field gives them.
HAND = {"RealtimeControlOut": "RealtimeControl", "CorrespondenceControlOut": "CorrespondenceControl"}
_SCALARS = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}
HEADER = '''"""The SDK's response models, field for field the schemas of the OpenAPI document.

Generated from clients/openapi.json (`clients/tools/write_python_models.py`, `make sdk-generate`): do not edit.
`skyboard_client.models` re-exports them. Every model keeps the fields it does not know (`extra="allow"`), so a newer
server never breaks an older client.
"""

from __future__ import annotations

from typing import {typing}

from pydantic import Field

from skyboard_client._base import {base}
'''


class Unsupported(ValueError):
    """A schema form this writer does not translate: extend `_py` rather than hand-write the model."""


def _name(ref: str) -> str:
    schema = ref.removeprefix(REF)
    if schema.endswith("View"):
        return "View"
    for sdk, published in MODELS.items():
        if published == schema:
            return sdk
    if schema in HAND:
        return HAND[schema]
    raise Unsupported(f"{schema} is neither generated (MODELS) nor hand-written (HAND)")


def _py(schema: dict[str, Any]) -> str:
    """The Python type of a property's JSON Schema."""
    if "$ref" in schema:
        return _name(schema["$ref"])
    if "const" in schema:
        return f"Literal[{_literal(schema['const'])}]"
    if "enum" in schema:
        return f"Literal[{', '.join(_literal(v) for v in schema['enum'])}]"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(dict.fromkeys(_py(s) for s in schema[key]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_py({**schema, "type": k}) for k in kind)
    if kind == "array":
        return f"list[{_py(schema.get('items', {}))}]"
    if kind == "object":
        extra = schema.get("additionalProperties", True)
        return f"dict[str, {_py(extra) if isinstance(extra, dict) else 'Any'}]"
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind is None and not schema:
        return "Any"
    raise Unsupported(f"no Python type for {schema}")


def _literal(value: Any) -> str:
    """A JSON scalar as Python source, strings in double quotes (the project's style)."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _discriminator(schema: dict[str, Any]) -> str | None:
    for s in [schema, *schema.get("anyOf", [])]:
        if "discriminator" in s:
            return s["discriminator"]["propertyName"]
    return None


def _field(name: str, schema: dict[str, Any], required: bool) -> str:
    kind = _py(schema)
    nullable = kind == "None" or kind.endswith(" | None")
    args = [f"discriminator={_literal(_discriminator(schema))}"] if _discriminator(schema) else []
    if isinstance(schema.get("default"), list | dict) and schema["default"]:
        raise Unsupported(f"a default that is not empty: {schema}")
    if required:
        default = None
    elif "default" in schema and not isinstance(schema["default"], list | dict):
        default = _literal(schema["default"])
    elif schema.get("default", {}) == {} and schema.get("type") == "object":
        default = "Field(default_factory=dict)"
    elif schema.get("default", []) == [] and schema.get("type") == "array":
        default = "Field(default_factory=list)"
    else:
        default = "None"
        if not nullable:
            kind += " | None"
    if args:  # a discriminated union: pydantic picks the variant by the field
        if default is not None and not default.startswith("Field("):
            args.insert(0, default)
        elif default is not None:
            args.insert(0, default.removeprefix("Field(").removesuffix(")"))
        default = f"Field({', '.join(args)})"
    doc = schema.get("description", "").strip()
    comment = "".join(f"    #: {line}\n" for line in textwrap.wrap(doc, 112)) if doc else ""
    return f"{comment}    {name}: {kind}" + ("" if default is None else f" = {default}")


def _merged(schemas: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """One object schema for a discriminated `oneOf` whose variants differ only in the discriminator and the view."""
    if "discriminator" not in schema:
        return schema
    variants = [schemas[r.removeprefix(REF)] for r in schema["discriminator"]["mapping"].values()]
    first = variants[0]
    for v in variants[1:]:
        if v["properties"].keys() != first["properties"].keys() or v.get("required") != first.get("required"):
            raise Unsupported(f"the variants of {schema.get('title')} differ in their fields")
    key = schema["discriminator"]["propertyName"]
    properties = {k: ({"type": "string"} if k == key else p) for k, p in first["properties"].items()}
    for k, p in properties.items():
        if k != key and any(_py(v["properties"][k]) != _py(p) for v in variants):
            raise Unsupported(f"{schema.get('title')}.{k} differs between the variants")
    return {**first, "properties": properties, "description": schema.get("description", first.get("description"))}


def _model(sdk: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    doc = schema.get("description", "").strip()
    lines = [f"class {sdk}(Model):"]
    if doc:
        lines.append(f'    """{textwrap.fill(doc, 112, subsequent_indent="    ")}"""\n')
    lines += [_field(name, prop, name in required) for name, prop in schema["properties"].items()]
    return "\n".join(lines) + "\n"


def _order(schemas: dict[str, Any]) -> list[str]:
    """MODELS' names, each after the generated models it names (then by name): the module reads top to bottom."""
    by_schema = {published: sdk for sdk, published in MODELS.items()}
    done: list[str] = []

    def visit(sdk: str) -> None:
        if sdk not in done:
            for ref in sorted(_refs(schemas[MODELS[sdk]], schemas)):
                if ref in by_schema and by_schema[ref] != sdk:
                    visit(by_schema[ref])
            done.append(sdk)

    for sdk in sorted(MODELS):
        visit(sdk)
    return done


def _refs(node: Any, schemas: dict[str, Any]) -> set[str]:
    """The schemas a schema names, through the per-title variants of `GameOut` (one model in the SDK)."""
    if isinstance(node, dict):
        found = {node["$ref"].removeprefix(REF)} if isinstance(node.get("$ref"), str) else set()
        for ref in list(found):
            if ref.endswith("GameOut"):
                found |= _refs(schemas[ref], schemas)
        return found.union(*(_refs(v, schemas) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v, schemas) for v in node))
    return set()


def text(doc: dict[str, Any]) -> str:
    """The module's text: every model of MODELS."""
    schemas = doc["components"]["schemas"]
    models = [_model(sdk, _merged(schemas, schemas[MODELS[sdk]])) for sdk in _order(schemas)]
    body = "\n\n\n".join(m.rstrip("\n") for m in models)
    code = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(("#", '"""')))
    named = [n for n in ("CorrespondenceControl", "Model", "RealtimeControl", "View") if re.search(rf"\b{n}\b", code)]
    typing = [n for n in ("Any", "Literal") if re.search(rf"\b{n}\b", code)]
    header = HEADER.format(typing=", ".join(typing), base=", ".join(named))
    if not typing:
        header = header.replace("from typing import \n\n", "")
    if "Field(" not in body:
        header = header.replace("from pydantic import Field\n\n", "")
    return header + "\n\n" + body + "\n"


if __name__ == "__main__":
    TARGET.write_text(text(json.loads(SOURCE.read_text())))
    print(f"wrote {TARGET.relative_to(ROOT)}", file=sys.stderr)
