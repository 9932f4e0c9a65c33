"""Pure rules engines: no I/O, deterministic from a seed, redacted per seat.

    import engine
    engine.games()                 # ['aeroplanes', 'blueskies', 'opensky']
    game = engine.get("opensky")
    state = game.new(players=2, seed=7)

Each game lives in its own subpackage exposing `GAME`, an instance of
`engine.core.Game`; subpackages are discovered, so adding a game touches no
shared file.
"""

from __future__ import annotations

import importlib
import pkgutil

from engine.core import (
    JSON,
    Action,
    ActionCodec,
    Event,
    Game,
    IllegalAction,
    State,
    Whereabouts,
    redact_events,
)

__all__ = [
    "JSON",
    "Action",
    "ActionCodec",
    "Event",
    "Game",
    "IllegalAction",
    "State",
    "Whereabouts",
    "games",
    "get",
    "redact_events",
]

_REGISTRY: dict[str, Game] | None = None


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{module.name}")
        game = getattr(package, "GAME", None)
        if isinstance(game, Game):
            if game.name in found:
                raise RuntimeError(f"two games are named {game.name!r}")
            found[game.name] = game
    return dict(sorted(found.items()))


def _registry() -> dict[str, Game]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _discover()
    return _REGISTRY


def games() -> list[str]:
    """Names of the registered games, sorted."""
    return list(_registry())


def get(name: str) -> Game:
    """The game called `name`; KeyError naming the known games otherwise."""
    try:
        return _registry()[name]
    except (KeyError, TypeError):
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(games())}") from None
