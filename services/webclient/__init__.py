"""The browser client of Skyboard: static files served at `/` plus two read-only helpers.

`install(app)` is the one hook the gateway's app factory calls. It adds:
- `GET /webclient/boards/{game}`: the game's static board data (the engine's own data files, e.g. airport
  coordinates), so the client can draw the board; views carry only the dynamic state.
- `GET /webclient/replay/{game_id}?step=n`: the public (spectator) view of a finished game after its first
  n logged actions, with the action and events of step n, for the replay viewer. It replays the published
  log (`/v1/games/{id}/log`) with the engine, like any client holding the engine could: once per step, off
  the event loop, in a bounded cache (`replays`).
- `GET /webclient/events/{game_id}`: every public event of a finished game with its version, from the same
  log replayed once (cached with the steps): the end screen's categories and the event log of a game opened after
  its end, the same whether it is still in Redis or in the archive (which keeps the log, not the events).
- the static files (lobby, game page, JS modules, CSS) at `/`: the router's fallback, served for a path no
  API route takes. (Mounted at `/`, they matched every path, so a wrong method on an API path, e.g.
  `PUT /v1/games`, got the static files' 405 with `Allow: GET, HEAD` instead of the route's own 405.)
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from services.webclient.replays import Replays
from services.webclient.routes import router

STATIC_DIR = Path(__file__).parent / "static"


def install(app: FastAPI) -> None:
    """Register the client's helper routes and serve the static files for every path no route takes."""
    ctx = app.state.ctx
    app.state.replays = Replays(ctx.settings.replay_cache_size, ctx.metrics.replays_computed)
    app.include_router(router)
    app.router.default = StaticFiles(directory=STATIC_DIR, html=True)
