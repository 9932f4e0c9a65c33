"""Aeroplanes: Aviation Ascendant, rules per docs/rules/aeroplanes.md (rule ids AE-n.m)."""

from engine.aeroplanes.game import AeroplanesGame

GAME = AeroplanesGame()

__all__ = ["GAME"]
