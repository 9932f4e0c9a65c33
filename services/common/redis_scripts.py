"""Redis Lua scripts kept in `.lua` files, called with named keys and arguments.

A script names its keys and arguments once, in its header:

    -- KEYS: meta log snap
    -- ARGV: expected entry extra...

The caller passes `keys={"meta": ..., ...}` and `args={"expected": ..., ...}`; the loader orders them by the
header, so no list of 24 positions has to match a comment, and a missing or unknown name raises `ScriptArgsError`
before anything reaches Redis. Inside the script the same names are read as `K.meta` and `A.expected` (a prologue
the loader puts before the body binds them). A last name ending in `...` is a variable-length tail: the caller
passes a sequence under the name without the dots, and the script sees a Lua array (`A.extra`, `K.games`).
A `-- USES: name` line puts `lua/name.lua` (a shared Lua function) before the body.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TAIL = "..."
#: a declared name becomes a Lua field (`K.meta`): a plain identifier
_NAME = re.compile(r"[a-z_][a-z0-9_]*(\.\.\.)?")


class ScriptArgsError(TypeError):
    """The names passed do not match the ones the script's header declares."""


def _header(source: str, tag: str) -> list[str]:
    """The names `-- TAG: a b c` lines declare, in order (a long list may take several such lines)."""
    return [n for line in source.splitlines() if line.startswith(f"-- {tag}:") for n in line.split(":", 1)[1].split()]


def _prologue(table: str, redis_table: str, names: Sequence[str]) -> str:
    """Lua binding each declared name to its position: `local K = {meta = KEYS[1], ...}` plus the tail loop."""
    fixed = [n for n in names if not n.endswith(TAIL)]
    fields = ", ".join(f"{n} = {redis_table}[{i}]" for i, n in enumerate(fixed, 1))
    out = f"local {table} = {{{fields}}}\n"
    if len(fixed) < len(names):
        tail = f"{table}.{names[-1][: -len(TAIL)]}"
        first = len(fixed) + 1
        out += f"{tail} = {{}}\nfor i = {first}, #{redis_table} do {tail}[#{tail} + 1] = {redis_table}[i] end\n"
    return out


@dataclass(frozen=True, slots=True)
class LuaScript:
    """A script's source (prologue included) and the key and argument names its header declares."""

    name: str
    keys: tuple[str, ...]
    args: tuple[str, ...]
    source: str

    @classmethod
    def beside(cls, module_file: str, name: str) -> LuaScript:
        """`lua/<name>.lua` in the folder of `module_file` (pass `__file__`)."""
        folder = Path(module_file).parent / "lua"
        text = (folder / f"{name}.lua").read_text()
        keys, args = _header(text, "KEYS"), _header(text, "ARGV")
        for names in (keys, args):
            if (any(n.endswith(TAIL) for n in names[:-1]) or len(set(names)) != len(names)
                    or not all(_NAME.fullmatch(n) for n in names)):
                raise ValueError(f"{name}.lua: names are unique lower-case identifiers; only the last may end in '...'")
        uses = "".join((folder / f"{lib}.lua").read_text() for lib in _header(text, "USES"))
        source = _prologue("K", "KEYS", keys) + _prologue("A", "ARGV", args) + uses + text
        return cls(name, tuple(keys), tuple(args), source)

    def ordered(self, keys: Mapping[str, Any], args: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
        """The positional KEYS and ARGV lists; ScriptArgsError if a name is missing or not declared."""
        return self._order("keys", self.keys, keys), self._order("args", self.args, args)

    def _order(self, what: str, names: tuple[str, ...], given: Mapping[str, Any]) -> list[Any]:
        plain = [n[: -len(TAIL)] if n.endswith(TAIL) else n for n in names]
        missing, extra = set(plain) - set(given), set(given) - set(plain)
        if missing or extra:
            raise ScriptArgsError(f"{self.name}.lua {what}: missing {sorted(missing)}, not declared {sorted(extra)}")
        out = [given[n] for n in plain]
        if names and names[-1].endswith(TAIL):
            tail = out.pop()
            if isinstance(tail, (str, bytes)) or not isinstance(tail, Sequence):
                raise ScriptArgsError(f"{self.name}.lua {what}: the tail {plain[-1]!r} must be a sequence")
            out += list(tail)
        return out

    def queue(self, pipe: Any, keys: Mapping[str, Any], args: Mapping[str, Any] | None = None) -> None:
        """Queue the script on a pipeline by EVAL (a pipeline of any client, sync or asyncio, runs it in turn)."""
        k, a = self.ordered(keys, args or {})
        pipe.eval(self.source, len(k), *k, *a)

    def register(self, redis: Any) -> BoundScript:
        """Registered with `redis` (sync or asyncio client): called by EVALSHA, loaded again if Redis lost it."""
        return BoundScript(self, redis.register_script(self.source))


@dataclass(frozen=True, slots=True)
class BoundScript:
    """A registered script: `script(keys={...}, args={...})`; an awaitable with an asyncio client."""

    script: LuaScript
    registered: Any

    def __call__(self, keys: Mapping[str, Any], args: Mapping[str, Any] | None = None) -> Any:
        k, a = self.script.ordered(keys, args or {})
        return self.registered(keys=k, args=a)
