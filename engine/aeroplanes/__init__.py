"""Aeroplanes: Aviation Ascendant, rules per shared/rules/aeroplanes.md (rule ids AE-n.m)."""

from engine.aeroplanes.game import AeroplanesGame

GAME = AeroplanesGame()

__all__ = ["GAME"]
