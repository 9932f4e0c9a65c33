"""Every example program of the SDKs' READMEs and of the docs a newcomer starts from, copied as they would copy it,
plays a whole game on a real stack (game-state service, a Celery bot worker, the gateway, the matchmaker).

A third-party developer's first two programs came from the READMEs: the Python one never moved (it waited for a
`your_turn` sent before its stream opened) and the TypeScript one never ended (nobody played seat 1). So each
```python and ```ts block of these pages runs here, its address pointed at the stack, and must print the finished
game's scores last. The quickstart's curl steps run as a reader follows them, to the end of the game. The example
files the pages include (`<!-- skyboard:file ... -->`) run in their own tests.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gateway.conftest import Gateway

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
PAGES = ("docs/quickstart.md", "docs/bots.md", "docs/sdk.md", "docs/sdk-typescript.md", "clients/python/README.md",
         "clients/typescript/README.md")
#: Every example talks to `make run`'s gateway; the test points that address at its stack.
ADDRESS = "http://127.0.0.1:8000"
#: Example files the pages include, and the test that plays each through a whole matchmade game.
RUN_ELSEWHERE = {"clients/python/examples/random_bot.py": "tests/sdk/test_example_bot.py",
                 "clients/typescript/examples/random_bot.ts": "clients/typescript/test/e2e.test.ts"}
#: What the last line of an example says once its game is over: the scores, [12, 7] (Python) or [12,7] (JSON).
#: Time for one example's game (a few seconds on an idle machine).
TIMEOUT_S = 240
SCORES = re.compile(r"\[\d+(?:, ?\d+)+\]")


def blocks(page: str) -> list[tuple[str, str]]:
    """(language, code) of each fenced block of `page`."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", (ROOT / page).read_text(), re.M | re.S)


def examples() -> list[tuple[str, str, str]]:
    """(id, language, code) of every Python and TypeScript block of the pages."""
    found = []
    for page in PAGES:
        for n, (lang, code) in enumerate(blocks(page), 1):
            if lang in ("python", "ts"):
                found.append((f"{page}#{n}", lang, code))
    return found


def test_the_pages_have_the_examples_this_test_runs() -> None:
    ids = [i for i, _lang, _code in examples()]
    for page in ("docs/quickstart.md", "docs/bots.md", "docs/sdk-typescript.md", "clients/python/README.md",
                 "clients/typescript/README.md"):
        assert any(i.startswith(page + "#") for i in ids), f"{page} has no example program any more: {ids}"
    for example_id, _lang, code in examples():
        assert ADDRESS in code, f"{example_id} does not talk to {ADDRESS}, so it cannot be pointed at a stack"


def test_every_example_file_a_page_includes_runs_in_a_test() -> None:
    marker = re.compile(r"<!-- skyboard:file (\S+) -->")
    included = {path for page in PAGES for path in marker.findall((ROOT / page).read_text()) if "/examples/" in path}
    assert included and included <= set(RUN_ELSEWHERE), included
    for path in included:
        assert Path(path).name.rsplit(".", 1)[0] in (ROOT / RUN_ELSEWHERE[path]).read_text(), path


@pytest.fixture(scope="module")
def ts_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder where `@skyboard/client` is installed, as `npm install` of the packed SDK would: the package built
    (`tsc`, what `npm pack` runs first) and linked into its node_modules."""
    tsc = TS / "node_modules" / ".bin" / "tsc"
    assert tsc.exists(), "run `make sdk-tools`"
    subprocess.run([tsc, "-p", "tsconfig.json"], cwd=TS, check=True, timeout=600)
    home = tmp_path_factory.mktemp("ts-examples")
    (home / "node_modules" / "@skyboard").mkdir(parents=True)
    (home / "node_modules" / "@skyboard" / "client").symlink_to(TS)
    (home / "node_modules" / "@types").symlink_to(TS / "node_modules" / "@types")
    (home / "package.json").write_text(json.dumps({"type": "module", "private": True}))
    return home


def run_ts(home: Path, name: str, code: str) -> subprocess.CompletedProcess[str]:
    """Compile `code` under the SDK's own strict settings, then run it with node."""
    (home / f"{name}.ts").write_text(code)
    (home / f"{name}.json").write_text(json.dumps({
        "extends": str(TS / "tsconfig.json"), "include": [f"{name}.ts"],
        "compilerOptions": {"rootDir": ".", "outDir": "out", "declaration": False, "sourceMap": False},
    }))
    compiled = subprocess.run([TS / "node_modules" / ".bin" / "tsc", "-p", f"{name}.json"], cwd=home,
                              capture_output=True, text=True, timeout=600)
    if compiled.returncode != 0:
        return compiled
    return subprocess.run(["node", f"out/{name}.js"], cwd=home, capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.mark.slow  # a whole game per example against real bots, and the TypeScript ones compiled: about 1-2 min
@pytest.mark.parametrize(("lang", "code"), [pytest.param(lang, code, id=i) for i, lang, code in examples()])
def test_the_example_plays_a_whole_game(bot_stack: Gateway, lang: str, code: str,
                                        request: pytest.FixtureRequest) -> None:
    program = code.replace(ADDRESS, bot_stack.url)
    if lang == "python":
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKYBOARD_")}
        done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    else:
        done = run_ts(request.getfixturevalue("ts_package"), re.sub(r"\W", "_", request.node.callspec.id), program)
    out = done.stdout.strip()
    assert done.returncode == 0, (out[-2000:] + "\n" + done.stderr[-3000:])
    assert out and SCORES.fullmatch(out.splitlines()[-1]), f"no final scores printed:\n{out[-2000:]}"


#: Pages whose SDK blocks are a walk through calls, not a whole game (docs/auth.md: keys, rotation, hot-seat): each
#: block runs against the stack as copied and must finish without an error.
CALL_PAGES = ("docs/auth.md",)


def call_examples() -> list[tuple[str, str]]:
    return [(f"{page}#{n}", code) for page in CALL_PAGES for n, (lang, code) in enumerate(blocks(page), 1)
            if lang == "python"]


def test_the_call_pages_have_their_examples() -> None:
    assert [i for i, _code in call_examples()], CALL_PAGES
    for example_id, code in call_examples():
        assert ADDRESS in code, f"{example_id} does not talk to {ADDRESS}, so it cannot be pointed at a stack"


@pytest.mark.slow  # the stack of the examples above
@pytest.mark.parametrize("code", [pytest.param(code, id=i) for i, code in call_examples()])
def test_the_sdk_calls_a_page_shows_run_as_written(bot_stack: Gateway, code: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKYBOARD_")}
    done = subprocess.run([sys.executable, "-c", code.replace(ADDRESS, bot_stack.url)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + "\n" + done.stderr[-3000:]


#: A line where the quickstart's reader pastes a value from the answer above it (`KEY=sbk_...  # paste yours`).
PASTE = re.compile(r"^[A-Z_]+=\S*\.\.\..*$", re.M)


def shown(step: str) -> list[dict]:
    """The answers a quickstart step shows in its comments (`# {...}`), `...` read as "and more"."""
    return [json.loads(re.sub(r",? \.\.\. ?,?", ",", line[2:]).replace(",]", "]").replace("[,", "["))
            for line in step.splitlines() if line.startswith("# {")]


@pytest.mark.slow  # a whole Blue Skies game against the random bot, one curl per read and per move
def test_the_quickstart_curl_steps_play_a_whole_game(bot_stack: Gateway) -> None:
    steps = [code for lang, code in blocks("docs/quickstart.md") if lang == "sh" and "curl " in code]
    assert len(steps) == 5, steps
    env = {"PATH": os.environ["PATH"], "SKY": bot_stack.url}

    def sh(step: str) -> list[dict]:
        """Run a step as the reader does (the address pointed at the stack, pasted values from `env`); its JSON
        answers, each with the fields the step shows."""
        done = subprocess.run(["bash", "-euc", PASTE.sub("", step.replace(ADDRESS, bot_stack.url))], env=env,
                              capture_output=True, text=True, timeout=60, check=True)
        answers, text, at = [], done.stdout, 0  # curl -s ends no answer with a newline: two of them share a line
        while text[at:].strip():
            answer, at = json.JSONDecoder().raw_decode(text, len(text) - len(text[at:].lstrip()))
            answers.append(answer)
        for answer, example in zip(reversed(answers), reversed(shown(step))):
            assert set(example) <= set(answer), (step, answer)
        return answers

    account, = sh(steps[0])
    env["KEY"] = account["api_key"]
    made, = sh(steps[1])
    env["GAME"], env["TOKEN"] = made["game_id"], made["seats"][0]["token"]
    assert [s["bot"] for s in made["seats"]] == [None, "random"]
    with subprocess.Popen(["bash", "-euc", steps[4].replace(ADDRESS, bot_stack.url)], env=env, text=True,
                          stdout=subprocess.PIPE, start_new_session=True) as follow:  # step 5, to its first state
        assert follow.stdout is not None
        try:
            lines = iter(follow.stdout.readline, "")
            assert "event: state" in (line.strip() for line in lines)  # the first version's state ...
            data = next(line for line in lines if line.startswith("data: "))  # ... with its data, as shown
            assert set(json.loads(data[6:])) >= {"version", "kind", "actor", "status", "to_act"}, data
        finally:
            os.killpg(follow.pid, signal.SIGTERM)
    moves, deadline = 0, time.monotonic() + 180
    while True:  # "Repeat 3 and 4 until `status` is `finished`"
        game, legal = sh(steps[2])
        if game["status"] == "finished":
            break
        assert time.monotonic() < deadline, game
        if not legal["actions"]:
            time.sleep(0.2)  # the bot's turn
            continue
        body = {"action": legal["actions"][-1], "expected_version": legal["version"]}  # `done` is last, if legal
        moves += 1
        move = re.sub(r"-d '\{.*\}'", f"-d '{json.dumps(body)}'", steps[3]).replace("my-move-1", f"my-move-{moves}")
        answer, = sh(move)
        assert answer["version"] == legal["version"] + 1 and not answer["replayed"], answer
    assert moves and game["scores"] and game["winners"] is not None, game
