"""The browser client of Skyboard: static files served at `/` plus the Python side of two read-only helpers.

The gateway mounts it (services/gateway/routes/webclient.py: the helper routes `/webclient/boards/{game}`,
`/webclient/replay/{game_id}` and `/webclient/events/{game_id}`, and these static files as the router's fallback
for every path no API route takes). This package imports nothing of the gateway:
- `boards.board_data`: the engine's own data files (e.g. airport coordinates), so the client can draw the board;
- `replays.Replays`: the bounded cache of finished games' replayed steps and events, for the replay viewer and
  the end screen.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
