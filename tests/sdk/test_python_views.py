"""The Python SDK's view and event types (skyboard_client/views.py) and its response models
(skyboard_client/records.py) are generated from the committed OpenAPI document, whose schemas are the engines'
declarations and the gateway's REST contract: a stale module fails here (`make sdk-generate`). Type checkers see the
views on `Game.view` and `Submitted.events`; at run time those stay the server's dicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from skyboard_client import models, records, views
from skyboard_client.models import Game
from typing_extensions import is_typeddict

import engine

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "tools"))
import write_python_models  # noqa: E402  (clients/tools is a folder of scripts, not a package)
import write_python_views  # noqa: E402


def test_the_committed_module_is_what_the_openapi_document_makes() -> None:
    doc = json.loads((ROOT / "clients" / "openapi.json").read_text())
    assert write_python_views.TARGET.read_text() == write_python_views.text(doc), (
        "clients/python/skyboard_client/views.py is stale: run `make sdk-generate`")


def test_the_committed_response_models_are_what_the_openapi_document_makes() -> None:
    doc = json.loads((ROOT / "clients" / "openapi.json").read_text())
    assert write_python_models.TARGET.read_text() == write_python_models.text(doc), (
        "clients/python/skyboard_client/records.py is stale: run `make sdk-generate`")


def test_the_sdk_answers_with_the_generated_models() -> None:
    """`skyboard_client.models` re-exports every generated model (`CreatedGame` adds a helper in a subclass)."""
    for name in write_python_models.MODELS:
        assert issubclass(getattr(models, name), getattr(records, name)), name
    assert models.Game is records.Game and models.GameSummary is records.GameSummary


def test_a_field_added_to_the_rest_game_reaches_the_sdk_by_regeneration_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walkthrough of docs/platform/game-record.md, step 3: a field every title's `GameOut` gains (and
    `GameSummaryOut`) is in the regenerated `Game`/`GameSummary` with its type and default, no hand edit."""
    doc = json.loads((ROOT / "clients" / "openapi.json").read_text())
    schemas = doc["components"]["schemas"]
    added = {"type": "string", "title": "Rematch Of", "description": "The game this one is a rematch of", "default": ""}
    for ref in [*schemas["GameOut"]["discriminator"]["mapping"].values(), "GameSummaryOut"]:
        schemas[ref.rsplit("/", 1)[-1]]["properties"]["rematch_of"] = added
    module = types.ModuleType("regenerated")  # pydantic resolves the annotations in the module's namespace
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(write_python_models.text(doc), module.__dict__)
    namespace = module.__dict__
    game = namespace["Game"].model_validate({
        "game_id": "g", "game": "opensky", "version": 1, "status": "active", "to_act": [0], "seat": 0,
        "view": {"game": "opensky"}, "scores": None, "winners": None, "places": None, "players": 2, "bots": {},
        "rematch_of": "g0"})
    assert game.rematch_of == "g0" and "rematch_of" not in (game.model_extra or {})
    assert namespace["GameSummary"].model_fields["rematch_of"].default == ""
    assert "#: The game this one is a rematch of" in write_python_models.text(doc)


@pytest.mark.parametrize("name", engine.games())
def test_each_title_has_its_view_with_the_declared_fields(name: str) -> None:
    declared = engine.get(name).view_type
    sdk = getattr(views, f"{name.capitalize()}View")
    assert is_typeddict(sdk)
    assert sdk.__required_keys__ == declared.__required_keys__
    assert sdk.__optional_keys__ == declared.__optional_keys__


@pytest.mark.parametrize("name", engine.games())
def test_each_declared_event_has_its_type(name: str) -> None:
    for event_type, declared in engine.get(name).event_types.items():
        sdk = getattr(views, "".join(p.capitalize() for p in f"{name}_{event_type}_event".split("_")))
        assert sdk.__required_keys__ == {"type"} | declared.__required_keys__, event_type


def test_at_run_time_a_view_keeps_every_field_the_server_sent() -> None:
    """A field a newer server adds is not dropped by the declared types."""
    game = Game.model_validate({"game_id": "g", "game": "opensky", "version": 1, "status": "active", "to_act": [0],
                                "seat": 0, "view": {"game": "opensky", "added_later": [1]}, "scores": None,
                                "winners": None, "places": None, "players": 2, "bots": {}})
    assert game.view == {"game": "opensky", "added_later": [1]}


@pytest.mark.slow  # mypy over the SDK: about 15 s
def test_a_view_narrowed_by_its_game_is_typed_for_mypy(tmp_path: Path) -> None:
    """A type checker narrows `game.view` by `game.view["game"]`, and refuses a field the title does not have."""
    script = tmp_path / "narrow.py"
    script.write_text(
        "from skyboard_client.models import Game\n\n\n"
        "def month(game: Game) -> str:\n"
        "    view = game.view\n"
        "    if view[\"game\"] == \"opensky\":\n"
        "        return view[\"month_name\"]\n"
        "    return view[\"no_such_field\"]\n")
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "c"),
                          str(script)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "MYPYPATH": str(ROOT / "clients" / "python")})
    lines = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(lines) == 2 and all("no_such_field" in line for line in lines), out.stdout  # the two other titles
    assert not any(":7:" in line for line in lines), out.stdout  # month_name is an OpenSky field
