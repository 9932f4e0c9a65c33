"""The matchmaker: tickets wait in Redis; a loop groups them into games through the game-state service.

Modules: `store` (tickets and their atomic claims, Lua), `grouping` (which
tickets play together; pure), `matcher` (one pass: group, claim, create,
publish), `settings` (its GATEWAY_* variables), `__main__` (the loop, `python -m services.matchmaker`).
It imports nothing from the gateway; both share `services.accounts`.
"""
