"""The generated clients: both generators run clean on /openapi.json, a play loop type-checks strictly against
each, the committed generated artefacts are current, and both SDKs are built, packed and played end to end.

Fast (`make test`): clients/openapi.json is the gateway's document and clients/typescript/src/schema.ts is what
openapi-typescript makes of it (a stale artefact fails here; `make sdk-generate` rewrites both).
Slow (`make test-slow`, CI): openapi-python-client with no warning, `mypy --strict` on a play loop against its
client and the loop played against a live gateway; `tsc --strict` and node's test runner against the platform;
the Python SDK's wheel and sdist through `twine check`; `npm pack`.
The tool chain is `make sdk-tools`: build/sdk-tools (clients/tools/requirements.txt) and clients/typescript's
`npm ci`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.rate_windows import HOUR

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
TS = CLIENTS / "typescript"
TOOLS = ROOT / "build" / "sdk-tools" / "bin"
sys.path.insert(0, str(CLIENTS / "tools"))
import write_openapi  # noqa: E402  (clients/tools is a folder of scripts, not a package)


def run(args: list[str | Path], cwd: Path = ROOT, timeout: float = 600, **env: str) -> str:
    """Run a tool; its output (stdout and stderr); fails the test with that output on a non-zero exit."""
    for tool in (TOOLS / "openapi-python-client", TS / "node_modules" / ".bin" / "tsc"):
        assert tool.exists(), f"{tool} is missing: run `make sdk-tools`"
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **env})
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"{args[0]} exited {done.returncode}:\n{out[-4000:]}"
    return out


@pytest.fixture(scope="module")
def openapi() -> dict:
    return write_openapi.document()


def test_the_committed_openapi_document_is_the_gateways(openapi: dict) -> None:
    committed = (CLIENTS / "openapi.json").read_text()
    assert committed == write_openapi.text(openapi), "clients/openapi.json is stale: run `make sdk-generate`"


def test_the_typescript_types_are_generated_from_it(tmp_path: Path) -> None:
    # the package's own bin, not through npx: npm's warnings about the machine's npmrc are not the generator's
    out = run([TS / "node_modules" / ".bin" / "openapi-typescript", CLIENTS / "openapi.json", "--default-non-nullable",
               "false", "-o", tmp_path / "schema.ts"], cwd=TS)
    assert "warn" not in out.lower(), out
    assert (tmp_path / "schema.ts").read_text() == (TS / "src" / "schema.ts").read_text(), \
        "clients/typescript/src/schema.ts is stale: run `make sdk-generate`"


def test_a_stale_artefact_would_fail(openapi: dict) -> None:
    changed = json.loads(json.dumps(openapi))
    changed["components"]["schemas"]["Version"]["properties"]["version"]["description"] = "changed"
    assert write_openapi.text(changed) != (CLIENTS / "openapi.json").read_text()


@pytest.mark.slow  # generation, mypy over ~450 generated modules and three games: about 1-2 min
def test_openapi_python_client_generates_cleanly_and_its_client_plays(tmp_path: Path, sdk_gateway) -> None:
    out = run([TOOLS / "openapi-python-client", "generate", "--path", CLIENTS / "openapi.json", "--output-path",
               tmp_path / "gen", "--config", CLIENTS / "tools" / "openapi-python-client.yaml"], cwd=tmp_path)
    assert out.strip() == f"Generating {tmp_path / 'gen'}", f"warnings or dropped schemas:\n{out}"
    package = tmp_path / "gen" / "skyboard_api"
    shutil.copy(CLIENTS / "tools" / "play_loop.py", tmp_path / "play_loop.py")
    checked = run([TOOLS / "mypy", "--config-file", CLIENTS / "tools" / "mypy.ini", "--cache-dir",
                   tmp_path / "mypy-cache", "play_loop.py", package], cwd=tmp_path, MYPYPATH=str(tmp_path / "gen"))
    assert "Success: no issues found" in checked, checked
    played = run([TOOLS / "python", "play_loop.py", sdk_gateway.url], cwd=tmp_path,
                 PYTHONPATH=str(tmp_path / "gen"))
    assert re.findall(r"^(\w+): (\d+) moves$", played, re.M) and all(
        int(n) > 0 for _t, n in re.findall(r"^(\w+): (\d+) moves$", played, re.M)), played
    assert {t for t, _n in re.findall(r"^(\w+): (\d+) moves$", played, re.M)} == {"aeroplanes", "blueskies", "opensky"}


@pytest.mark.slow  # tsc, then node's test runner: whole games, streams, 429s, two example bots matched (~1 min)
def test_the_typescript_sdk_type_checks_strictly_and_plays_end_to_end(sdk_gateway, make_sdk_gateway,
                                                                       matchmaker) -> None:
    shutil.rmtree(TS / "dist", ignore_errors=True)
    run(["npx", "--no-install", "tsc", "-p", "tsconfig.json"], cwd=TS)  # strict: tsconfig.json
    limited = make_sdk_gateway(rate_limit_token=3, rate_limit_window_s=1)  # Retry-After waited out
    hourly = make_sdk_gateway(rate_limit_token=3, rate_limit_window_s=HOUR)  # a burst refused wherever windows fall
    out = run(["node", "--test", "--test-reporter=tap", "dist/test/*.test.js"], cwd=TS, timeout=300,
              SKYBOARD_URL=sdk_gateway.url, SKYBOARD_LIMITED_URL=limited.url, SKYBOARD_HOURLY_URL=hourly.url)
    passed = re.search(r"^# pass (\d+)$", out, re.M)
    assert passed and int(passed.group(1)) >= 10 and re.search(r"^# fail 0$", out, re.M), out[-4000:]


@pytest.mark.slow  # `npm pack` builds with tsc first (prepack)
def test_npm_pack_makes_a_package_with_the_client_and_its_types(tmp_path: Path) -> None:
    out = run(["npm", "pack", "--pack-destination", tmp_path], cwd=TS)
    (tarball,) = tmp_path.glob("skyboard-client-*.tgz")
    with tarfile.open(tarball) as tar:
        names = set(tar.getnames())
    assert {"package/dist/src/index.js", "package/dist/src/index.d.ts", "package/dist/src/schema.d.ts",
            "package/src/schema.ts", "package/package.json", "package/README.md"} <= names, (out, sorted(names))
    assert not any("/test/" in n or "node_modules" in n for n in names), sorted(names)


@pytest.mark.slow  # a wheel and an sdist built without network (no build isolation), `twine check`, Python 3.10
def test_the_python_sdk_builds_a_wheel_and_an_sdist_that_pass_twine_check(tmp_path: Path) -> None:
    run([TOOLS / "python", "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", tmp_path,
         CLIENTS / "python"])
    built = sorted(p.name for p in tmp_path.iterdir())
    assert any(n.endswith(".whl") for n in built) and any(n.endswith(".tar.gz") for n in built), built
    out = run([TOOLS / "twine", "check", "--strict", *sorted(tmp_path.iterdir())])
    assert out.count("PASSED") == 2, out
    # requires-python >=3.10: the package type-checks against 3.10's standard library and typing
    checked = run([sys.executable, "-m", "mypy", "--python-version", "3.10", "--no-incremental",
                   CLIENTS / "python" / "skyboard_client"])
    assert "Success: no issues found" in checked, checked
