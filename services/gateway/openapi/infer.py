"""A JSON Schema inferred from sample values: the nested shape of the views' and events' fields.

Why inferred: the views and events are the engines' own JSON, with no declaration to read, and a generated
client needs typed arrays and objects (not `list[Any]`) to be usable without casts. The samples are the seeded
random games of `vocabulary.py` and `openapi_views.py`, so the schema covers what games produce. It stays
lenient where the samples cannot prove more: a nested key is required only when every one of many samples had
it, integers and floats seen in one place make a `number`, and an object whose keys are data (airport codes,
seat numbers) is a map (`additionalProperties`), not a record of fixed fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from services.gateway.openapi.vocabulary import json_type

#: A record's key: a lower-case identifier. Any other key (ATL, 0, LHR-CDG) makes the object a map.
RECORD_KEY = re.compile(r"^[a-z_][a-z0-9_]*$")
#: More distinct keys than this: a map, whatever they look like.
MAX_RECORD_KEYS = 20
#: A nested key is required only when at least this many samples of its object all had it.
REQUIRED_AFTER = 10


_SCALARS = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string"}
_KINDS = {**_SCALARS, dict: "object", list: "array", tuple: "array"}


def kind_of(value: Any) -> str:
    """The JSON type of `value` (`vocabulary.json_type`, by a lookup first: this runs for every value of every
    sampled view)."""
    return _KINDS.get(type(value)) or json_type(value)


@dataclass
class Sketch:
    """The merged shape of every value added: the JSON types seen, and for arrays and objects their parts."""

    types: set[str] = field(default_factory=set)
    items: Sketch | None = None
    props: dict[str, Sketch] = field(default_factory=dict)
    key_counts: dict[str, int] = field(default_factory=dict)
    objects: int = 0

    def add(self, value: Any) -> None:
        kind = kind_of(value)
        self.types.add(kind)
        if kind == "array":
            items = self.items = self.items or Sketch()
            for item in value:
                scalar = _SCALARS.get(type(item))  # the common case, without a call (views are large)
                if scalar is None:
                    items.add(item)
                else:
                    items.types.add(scalar)
        elif kind == "object":
            self.objects += 1
            for key, item in value.items():
                self.key_counts[key] = self.key_counts.get(key, 0) + 1
                self.props.setdefault(key, Sketch()).add(item)

    def is_map(self) -> bool:
        return len(self.props) > MAX_RECORD_KEYS or any(not RECORD_KEY.match(k) for k in self.props)

    def _object_schema(self) -> dict[str, Any]:
        if self.is_map():
            merged = Sketch()
            for sketch in self.props.values():
                merged.merge(sketch)
            return {"type": "object", "additionalProperties": merged.schema()}
        out: dict[str, Any] = {"type": "object", "properties": {k: s.schema() for k, s in sorted(self.props.items())}}
        required = sorted(k for k, n in self.key_counts.items() if n == self.objects >= REQUIRED_AFTER)
        if required:
            out["required"] = required
        return out

    def _one(self, kind: str) -> dict[str, Any]:
        if kind == "array":
            return {"type": "array", "items": self.items.schema() if self.items else {}}
        if kind == "object":
            return self._object_schema()
        return {"type": kind}

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of every value added ({} when none was: any value)."""
        kinds = set(self.types)
        if {"integer", "number"} <= kinds:
            kinds.discard("integer")
        options = [self._one(k) for k in sorted(kinds - {"null"})]
        if "null" in kinds:
            options.append({"type": "null"})
        if not options:
            return {}
        return options[0] if len(options) == 1 else {"anyOf": options}

    def merge(self, other: Sketch) -> None:
        """Fold `other`'s samples into this one (a map's values are one shape)."""
        self.types |= other.types
        if other.items is not None:
            self.items = self.items or Sketch()
            self.items.merge(other.items)
        self.objects += other.objects
        for key, sketch in other.props.items():
            self.key_counts[key] = self.key_counts.get(key, 0) + other.key_counts.get(key, 0)
            self.props.setdefault(key, Sketch()).merge(sketch)
