"""The REST gateway for third-party clients: accounts, games, matchmaking tickets, ratings.

It holds no game logic: every game operation is a call to the game-state
service (`gamestate`). `create_app` builds the FastAPI app; `python -m
services.gateway` serves it.
"""
