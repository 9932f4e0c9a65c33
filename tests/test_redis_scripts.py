"""The Lua script loader (services/common/redis_scripts.py): names ordered by the script's header, a wrong name refused
before Redis sees the call, tails, shared functions, and every service script's header well formed."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from services.common.redis_scripts import LuaScript, ScriptArgsError
from tests.redis_required import redis_db, require_redis
from tests.run_id import RUN

ROOT = Path(__file__).resolve().parents[1]


def _script(tmp_path: Path, text: str, lib: str = "") -> LuaScript:
    (tmp_path / "lua").mkdir()
    (tmp_path / "lua" / "s.lua").write_text(text)
    if lib:
        (tmp_path / "lua" / "lib.lua").write_text(lib)
    return LuaScript.beside(str(tmp_path / "module.py"), "s")


ECHO = "-- KEYS: a b\n-- ARGV: x y\n-- ARGV: rest...\nreturn {K.a, K.b, A.x, A.y, unpack(A.rest)}\n"


def test_names_are_ordered_by_the_header(tmp_path: Path) -> None:
    s = _script(tmp_path, ECHO)
    assert s.keys == ("a", "b") and s.args == ("x", "y", "rest...")
    assert s.ordered({"b": "kb", "a": "ka"}, {"rest": [3, 4], "y": 2, "x": 1}) == (["ka", "kb"], [1, 2, 3, 4])
    assert s.ordered({"a": 1, "b": 2}, {"x": 1, "y": 2, "rest": []})[1] == [1, 2]


@pytest.mark.parametrize("keys, args", [
    ({"a": 1}, {"x": 1, "y": 2, "rest": []}),  # a key missing
    ({"a": 1, "b": 2, "c": 3}, {"x": 1, "y": 2, "rest": []}),  # a key not declared
    ({"a": 1, "b": 2}, {"x": 1, "rest": []}),  # an argument missing
    ({"a": 1, "b": 2}, {"x": 1, "y": 2, "rest": [], "z": 0}),  # an argument not declared
    ({"a": 1, "b": 2}, {"x": 1, "y": 2}),  # the tail missing
    ({"a": 1, "b": 2}, {"x": 1, "y": 2, "rest": "ab"}),  # a tail that is not a sequence of values
])
def test_a_wrong_name_is_refused_before_the_call(tmp_path: Path, keys: dict, args: dict) -> None:
    class NoRedis:
        def register_script(self, source: str):
            return lambda **kw: pytest.fail("reached Redis")

    bound = _script(tmp_path, ECHO).register(NoRedis())
    with pytest.raises(ScriptArgsError):
        bound(keys=keys, args=args)


@pytest.mark.parametrize("text", ["-- ARGV: a... b\nreturn 1\n", "-- KEYS: a a\nreturn 1\n", "-- KEYS: a-b\nreturn 1\n",
                                  "-- ARGV: 2nd\nreturn 1\n"])
def test_a_misplaced_tail_a_repeated_name_or_not_an_identifier_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(ValueError):
        _script(tmp_path, text)


def test_the_script_reads_its_names_and_shared_functions_in_redis(tmp_path: Path) -> None:
    r = redis.Redis.from_url(require_redis(redis_db(0), "the loader's test"), decode_responses=True)
    s = _script(tmp_path, "-- USES: lib\n" + ECHO.replace("return {", "return {twice(A.x), "),
                lib="local function twice(v) return v .. v end\n")
    key = f"sbtest{RUN}:lua"
    assert s.register(r)(keys={"a": key, "b": key + "b"}, args={"x": "1", "y": "2", "rest": ["3", "4"]}) == [
        "11", key, key + "b", "1", "2", "3", "4"]
    assert s.register(r)(keys={"a": key, "b": key}, args={"x": "1", "y": "2", "rest": []}) == ["11", key, key, "1", "2"]


def test_every_service_script_loads_and_uses_only_the_names_it_declares() -> None:
    """A typo in a name (`A.dealine`) would read nil in Redis: each `K.` / `A.` a script reads is declared."""
    import re

    scripts = sorted(ROOT.glob("services/**/lua/*.lua"))
    assert scripts
    for path in scripts:
        s = LuaScript.beside(str(path.parent.parent / "x.py"), path.stem)
        body = path.read_text()
        declared = {"K": {n.rstrip(".") for n in s.keys}, "A": {n.rstrip(".") for n in s.args}}
        for table, name in re.findall(r"\b([KA])\.([a-z_]+)", body):
            assert name in declared[table], f"{path.name}: {table}.{name} is not declared"


def test_the_shared_append_spares_the_mark_account_events_writes() -> None:
    """lua/append.lua spells CREDENTIAL_MARK itself (Lua cannot import it): the two must agree."""
    from services.accounts.events import ADD, CREDENTIAL_MARK

    assert f"'{CREDENTIAL_MARK}'" in ADD.source
