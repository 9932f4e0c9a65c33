"""The compiled build (ai/native.py): what `make test` tests is what runs, and a stale build is noticed."""

from __future__ import annotations

import importlib
import os
import time

import pytest

from ai import native


def _module(source: str) -> str:
    return source[: -len(".py")].replace("/", ".")


def test_every_listed_module_is_a_source_file():
    for source in native.MODULES:
        assert (native.ROOT / source).is_file(), source


def test_built_modules_are_the_ones_imported():
    """Under CI the build is required, so the suite exercises the compiled code that `make run` serves."""
    if os.environ.get("CI") == "true":
        assert not native.missing(), "make compile did not build every module"
    for source in native.MODULES:
        if native.compiled_path(source).exists():
            assert importlib.import_module(_module(source)).__file__ == str(native.compiled_path(source))


def test_a_compiled_file_older_than_its_source_is_stale():
    source = native.MODULES[0]
    built = native.compiled_path(source)
    if not built.exists():
        pytest.skip("no compiled build here (make compile)")
    stat = built.stat()
    try:
        os.utime(built, (stat.st_atime, (native.ROOT / source).stat().st_mtime - 60))
        assert native.stale() == [source]
    finally:
        os.utime(built, (stat.st_atime, max(stat.st_mtime, time.time())))
    assert native.stale() == []
