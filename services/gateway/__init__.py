"""The REST gateway for third-party clients: accounts, games, matchmaking tickets, ratings.

It holds no game logic: every game operation is a call to the game-state service
(`services.gamestate.client`). `create_app` builds the FastAPI app; `python -m services.gateway` serves it.
Layers: `routes/` (one module per URL prefix), `auth` (who is calling), `domain/` (the gateway's own stores:
API-key cache, challenges, quotas), `http/` (the pipeline around the routes: edge, limits,
JSON bodies, errors), `openapi/` (schema decoration and the docs page), `models/` (request and response bodies).
"""
