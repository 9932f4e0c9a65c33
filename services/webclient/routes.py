"""Read-only helper endpoints of the web client: static board data, replay steps and a finished game's events."""

from __future__ import annotations

import functools
import importlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query, Request

import engine
from services.gateway.context import Context, Ctx
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.routes.games import _game_id
from services.webclient.replays import Replays

router = APIRouter(prefix="/webclient", responses=ERROR_RESPONSES, tags=["webclient"])


@functools.cache
def board_data(game: str) -> dict[str, Any]:
    """Every JSON data file of the engine `game`, by file stem (read once; they never change)."""
    package = ".".join(type(engine.get(game)).__module__.split(".")[:2])
    data_dir = Path(importlib.import_module(package).__file__).parent / "data"
    return {p.stem: json.loads(p.read_text()) for p in sorted(data_dir.glob("*.json"))}


@router.get("/boards/{game}", summary="Static board data of a game (the engine's data files, by name)")
async def boards(game: str) -> dict[str, Any]:
    if game not in engine.games():
        raise ApiError(404, f"no game {game[:64]!r}")
    return board_data(game)


async def _finished_log(game_id: str, c: Context) -> dict[str, Any]:
    """A finished game's published log (from Redis or the archive alike), for a title this client has an engine of."""
    found = asdict(await c.gamestate.get_log(_game_id(game_id)))
    log = {**found, "game_id": game_id, "actions": found.pop("entries")}
    if log["game"] not in engine.games():  # a title this client has no engine for (test-only games)
        raise ApiError(404, f"no replay for {log['game'][:64]!r} games")
    return log


@router.get("/replay/{game_id}", summary="The public view of a finished game after its first `step` actions")
async def replay(game_id: str, request: Request, c: Ctx, step: int = Query(0, ge=0, le=1_000_000)) -> dict[str, Any]:
    log = await _finished_log(game_id, c)
    if step > len(log["actions"]):
        raise ApiError(422, f"step must be between 0 and {len(log['actions'])}")
    replays: Replays = request.app.state.replays
    return await replays.step(log, step)


@router.get("/events/{game_id}", summary="Every public event of a finished game, each with its version")
async def events(game_id: str, request: Request, c: Ctx) -> dict[str, Any]:
    """The end screen's and the event log's source for a finished game: the same whether the game is still in
    Redis or already in the archive (which keeps its log, not its events), on every device (issue #38)."""
    replays: Replays = request.app.state.replays
    return await replays.events(await _finished_log(game_id, c))
