"""Blue Skies (Joe Huber, Rio Grande Games 2020): rules engine per docs/rules/blueskies.md.

Modules: `data` (load + validate the board file), `actions` (JSON vocabulary),
`passengers` (bag and even distribution), `scoring` (end game), `state`
(setup and the round), `game` (factory and JSON restore).
"""

from engine.blueskies.game import BlueSkiesGame

GAME = BlueSkiesGame()

__all__ = ["GAME", "BlueSkiesGame"]
