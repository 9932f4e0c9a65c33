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


def test_the_compiled_build_imports_from_any_directory(tmp_path):
    """The group's shared library is a top-level module, which an editable install does not map: without
    the .pth that `build` writes, a process started outside the repository failed to import the search.
    Its compiled modules also know their own files (the fitted models are found beside `ai/learned.py`)."""
    import subprocess
    import sys

    if native.missing():
        pytest.skip("no compiled build here (make compile)")
    # the environment as it is: the installed (editable) package, not a path that would hide the problem
    code = "import ai.ismcts, ai.learned; print(ai.ismcts.__file__); print(ai.learned.FITTED_DIR.is_dir())"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(native.compiled_path("ai/ismcts.py")), "True"]


def test_the_builder_runs_without_importing_the_ai_package():
    """`make compile` runs `ai/native.py` as a script. Run with `-m`, it imported `ai` first and with it the old
    compiled search, which failed to import once a source it was built from had changed (a name it imports
    removed), so the stale build could not be rebuilt."""
    import subprocess
    import sys

    code = (
        "import runpy, sys; sys.argv = ['native.py', 'status']; "
        f"runpy.run_path({str(native.ROOT / 'ai' / 'native.py')!r}, run_name='__main__'); "
        "assert 'ai' not in sys.modules and 'ai.ismcts' not in sys.modules, sorted(sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=native.ROOT / "bench")
    assert out.returncode == 0, out.stderr
    assert "ai/ismcts.py" in out.stdout


def test_the_cost_benchmark_runs_listed_modules_from_source(tmp_path):
    """`bench.native_cost` compares the build with some compiled modules run from source: its finder must load the
    `.py` (else both passes would time the same compiled code and report a ratio of 1), and only those modules."""
    import subprocess
    import sys

    if native.missing():
        pytest.skip("no compiled build here (make compile)")
    code = (
        "import sys; from bench.native_cost import SourceFinder, compiled_sources; "
        "sys.meta_path.insert(0, SourceFinder(compiled_sources(['engine/aeroplanes']))); "
        "import engine.aeroplanes.state, ai.ismcts; print(engine.aeroplanes.state.__file__); print(ai.ismcts.__file__)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=native.ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(native.ROOT / "engine/aeroplanes/state.py"),
                                  str(native.compiled_path("ai/ismcts.py"))]


def test_the_cost_benchmark_refuses_a_path_with_no_compiled_module():
    from bench.native_cost import compiled_sources

    assert set(compiled_sources(["ai/heuristics/aeroplanes.py"])) == {"ai.heuristics.aeroplanes"}
    with pytest.raises(SystemExit, match="no compiled module"):
        compiled_sources(["engine/opensky"])
