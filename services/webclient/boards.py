"""The engines' static board data (e.g. airport coordinates) the client draws its boards with: views carry only the
dynamic state. Served by the gateway at `GET /webclient/boards/{game}` (services/gateway/routes/webclient.py)."""

from __future__ import annotations

import functools
import importlib
import json
from pathlib import Path
from typing import Any

import engine


@functools.cache
def board_data(game: str) -> dict[str, Any]:
    """Every JSON data file of the engine `game`, by file stem (read once; they never change)."""
    package = ".".join(type(engine.get(game)).__module__.split(".")[:2])
    data_dir = Path(importlib.import_module(package).__file__).parent / "data"
    return {p.stem: json.loads(p.read_text()) for p in sorted(data_dir.glob("*.json"))}
