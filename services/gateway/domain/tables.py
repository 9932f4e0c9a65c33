"""What a ticket or a challenge may ask of a game: the catalog's own limits (player counts, option choices).

Checked before queueing or sending, so a table that could never become a game is refused at once (422), not
when the game-state service is asked to create it. No game rules: the catalog says all of it.
"""

from __future__ import annotations

from services.gateway.http.errors import ApiError


def check_table(entry: dict, players: int, options: dict) -> None:
    """Refuse tickets that could never become a game (the catalog's own limits, no rules)."""
    if not entry["min_players"] <= players <= entry["max_players"]:
        raise ApiError(422, f"{entry['title']} takes {entry['min_players']}-{entry['max_players']} players")
    for key, value in options.items():
        spec = entry["options"].get(key)
        if spec is None:
            raise ApiError(422, f"unknown option {key!r}; known: {', '.join(entry['options']) or 'none'}")
        if value not in spec.get("choices", []):
            raise ApiError(422, f"option {key!r} must be one of {spec.get('choices')}")
