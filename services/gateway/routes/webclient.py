"""Read-only helper endpoints of the web client: static board data, replay steps and a finished game's events.

The gateway mounts the web client (services/webclient): `install(app)` adds these routes and serves the client's
static files for every path no route takes. The web client's Python side (its board data, its replay cache) knows
nothing of the gateway; the routes that serve it over HTTP, with the gateway's errors and game-state client, are
here. The routes:
- `GET /webclient/boards/{game}`: the game's static board data (the engine's own data files, e.g. airport
  coordinates), so the client can draw the board; views carry only the dynamic state.
- `GET /webclient/replay/{game_id}?step=n`: the public (spectator) view of a finished game after its first
  n logged actions, with the action and events of step n, for the replay viewer. It replays the published
  log (`/v1/games/{id}/log`) with the engine, like any client holding the engine could: once per step, off
  the event loop, in a bounded cache (`services.webclient.replays`).
- `GET /webclient/events/{game_id}`: every public event of a finished game with its version, from the same
  log replayed once (cached with the steps): the end screen's categories and the event log of a game opened after
  its end, the same whether it is still in Redis or in the archive (which keeps the log, not the events).
- the static files (lobby, game page, JS modules, CSS) at `/`: the router's fallback, served for a path no
  API route takes. (Mounted at `/`, they matched every path, so a wrong method on an API path, e.g.
  `PUT /v1/games`, got the static files' 405 with `Allow: GET, HEAD` instead of the route's own 405.)
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.staticfiles import StaticFiles

import engine
from services.gateway.context import Context, Ctx
from services.gateway.http.errors import ERROR_RESPONSES, ApiError
from services.gateway.routes.games import _game_id
from services.webclient import STATIC_DIR
from services.webclient.boards import board_data
from services.webclient.replays import Replays

router = APIRouter(prefix="/webclient", responses=ERROR_RESPONSES, tags=["webclient"])


def install(app: FastAPI) -> None:
    """Register the client's helper routes and serve the static files for every path no route takes."""
    ctx = app.state.ctx
    app.state.replays = Replays(ctx.settings.replay_cache_size, ctx.metrics.replays_computed)
    app.include_router(router)
    app.router.default = StaticFiles(directory=STATIC_DIR, html=True)


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
    Redis or already in the archive (which keeps its log, not its events), on every device."""
    replays: Replays = request.app.state.replays
    return await replays.events(await _finished_log(game_id, c))
