"""Shared helpers for the bot tests: the games to test (the toy plus every registered game)."""

from __future__ import annotations

import engine
from engine.core import Game
from tests.ai.toygame import TOY


def all_games() -> list[Game]:
    return [TOY, *(engine.get(name) for name in engine.games())]


GAMES = all_games()
GAME_IDS = [g.name for g in GAMES]
