"""The engines in the game-AI ecosystem: OpenSpiel and PettingZoo adapters (docs/research.md).

`engine.adapters.pettingzoo.env(game=..., players=...)` is a PettingZoo AEC environment and importing
`engine.adapters.openspiel` registers `python_skyboard_<game>` with pyspiel. Both drive an engine state one
integer at a time through the same action table (`actions`) and see it only through a seat's redacted view
(`encoding`). This package imports no framework at import time, so `engine`'s game discovery (which imports
every subpackage) stays free of them; the two adapter modules need the optional extra `.[research]`.
"""
