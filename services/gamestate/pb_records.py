"""The client's records of a game (`GameState`, `Summary`: services/gamestate/client.py) generated from the protobuf
messages they decode (`GameView`, `GameSummary`), so a field added to the message is in the record with no edit here.

Why: the client's records were hand-written copies of the messages with a hand-written decoder each; a field was
added to the message, the record and the decoder. Now the message is the declaration: each of its fields is a field
of the record under its Python name (`python_name`), decoded by its kind (`decode`); a message field needs a decoder
of its own only where its Python value is not the protobuf's (a seat list, a time control), and a record may add
fields computed from the message (`derived`). docs/platform/game-record.md walks through adding a field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import field, make_dataclass
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

_SCALARS: dict[int, type] = {
    FieldDescriptor.CPPTYPE_INT32: int, FieldDescriptor.CPPTYPE_INT64: int, FieldDescriptor.CPPTYPE_UINT32: int,
    FieldDescriptor.CPPTYPE_UINT64: int, FieldDescriptor.CPPTYPE_DOUBLE: float, FieldDescriptor.CPPTYPE_FLOAT: float,
    FieldDescriptor.CPPTYPE_BOOL: bool, FieldDescriptor.CPPTYPE_STRING: str, FieldDescriptor.CPPTYPE_ENUM: int,
}


def _is_map(f: FieldDescriptor) -> bool:
    return f.message_type is not None and f.message_type.GetOptions().map_entry


def _repeated(f: FieldDescriptor) -> bool:
    return f.is_repeated


def python_name(f: FieldDescriptor) -> str:
    """The record's name of a message field: a JSON text's value under the name without `_json` (`view_json` ->
    `view`), a seat -> ms map under the name without `_ms` (`deadlines_ms` -> `deadlines`); else the same name."""
    if f.name.endswith("_json") and not _repeated(f):
        return f.name[: -len("_json")]
    if f.name.endswith("_ms") and _is_map(f):
        return f.name[: -len("_ms")]
    return f.name


def _type(f: FieldDescriptor) -> Any:
    """The record field's annotation (documentation: nothing checks it at run time)."""
    if _is_map(f):
        key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
        return dict[_SCALARS.get(key.cpp_type, Any), _SCALARS.get(value.cpp_type, Any)]
    if f.name.endswith("_json") and not _repeated(f):
        return Any
    item = _SCALARS.get(f.cpp_type, dict[str, Any])
    if _repeated(f):
        return list[item]
    return item | None if f.has_presence else item


def _default(f: FieldDescriptor) -> Any:
    if _is_map(f):
        return field(default_factory=dict)
    if _repeated(f):
        return field(default_factory=list)
    if f.name.endswith("_json") or f.has_presence:
        return field(default=None)
    return field(default=_SCALARS[f.cpp_type]())


def decode(f: FieldDescriptor, msg: Any) -> Any:
    """A message field's Python value by its kind: a JSON text parsed, a map a dict, a repeated field a list, a field
    with presence None when unset, a scalar as it is."""
    value = getattr(msg, f.name)
    if f.name.endswith("_json") and not _repeated(f):
        return json.loads(value)
    if _is_map(f):
        return dict(value)
    if _repeated(f):
        return list(value)
    if f.has_presence and not msg.HasField(f.name):
        return None
    return value


def pb_record(name: str, message: Descriptor, *, module: str, doc: str,
              decoders: dict[str, Callable[[Any], Any]] | None = None,
              derived: dict[str, tuple[Any, Any, Callable[[Any], Any]]] | None = None) -> type:
    """A frozen dataclass with one field per field of `message` (its Python name, in the message's order), then the
    `derived` fields (name -> (annotation, its `dataclasses.field`, how to compute it from the message));
    `from_pb(msg)` decodes a message, each field by `decoders[field name]` where given, else by `decode`."""
    decoders = decoders or {}
    derived = derived or {}
    specs: list[tuple[str, Any, Any]] = [(python_name(f), _type(f), _default(f)) for f in message.fields]
    readers: list[tuple[str, Callable[[Any], Any]]] = []
    for f in message.fields:
        own = decoders.get(f.name)
        readers.append((python_name(f), own if own is not None else (lambda msg, f=f: decode(f, msg))))
    for extra, (annotation, default, compute) in derived.items():
        specs.append((extra, annotation, default))
        readers.append((extra, compute))
    unknown = set(decoders) - {f.name for f in message.fields}
    if unknown:
        raise ValueError(f"decoders for fields {message.name} does not have: {sorted(unknown)}")

    def from_pb(cls: type, msg: Any) -> Any:
        return cls(**{key: read(msg) for key, read in readers})

    cls = make_dataclass(name, specs, frozen=True, slots=True, namespace={"from_pb": classmethod(from_pb)})
    cls.__module__, cls.__doc__ = module, doc
    return cls
