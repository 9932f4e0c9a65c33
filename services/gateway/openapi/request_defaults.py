"""Request fields with a default are optional in /openapi.json under every generator's default flags.

Why: pydantic writes a field with a default as a property with a `default` and leaves it out of `required`, which
most generators read as optional. openapi-typescript, with its default `--default-non-nullable`, reads a property
with a `default` as always present, so required, except inline in a request body; the request schemas are
components, so a client generated with its defaults had to send six fields the server defaults. In the schemas
a request body refers to, the default therefore moves from the `default` keyword into the description, where
people still read it and no generator makes the field required.
"""

from __future__ import annotations

import json
from typing import Any


def request_schemas(doc: dict[str, Any]) -> set[str]:
    """The component schemas a request body refers to, directly or through other schemas."""
    schemas, seen = doc["components"]["schemas"], set()
    pending: list[Any] = [op["requestBody"] for item in doc["paths"].values() for op in item.values()
                          if "requestBody" in op]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in seen:
                    seen.add(name)
                    pending.append(schemas[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return seen


def apply(doc: dict[str, Any]) -> None:
    """Move each request schema property's `default` into its description (in place)."""
    schemas = doc["components"]["schemas"]
    for name in request_schemas(doc):
        schema = schemas[name]
        for prop in schema.get("properties", {}).values():
            if "default" not in prop:
                continue
            said = f"Default: `{json.dumps(prop.pop('default'))}` (optional: the server fills it in)."
            prop["description"] = f"{prop['description'].rstrip('.')}. {said}" if prop.get("description") else said
