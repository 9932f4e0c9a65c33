"""Redis key layout of the gateway and the matchmaker (one place, one prefix)."""

from __future__ import annotations

import hashlib


def token_hash(secret: str) -> str:
    """What we store or key on instead of a secret (api keys, seat tokens)."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Keys:
    """Every key is `<prefix><kind>:...`; tests give each run its own prefix."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    # players and ratings
    def player(self, player_id: str) -> str:
        return f"{self.prefix}player:{player_id}"

    def api_key(self, key_hash: str) -> str:
        return f"{self.prefix}apikey:{key_hash}"

    def rating(self, entity: str) -> str:
        """Hash game -> JSON {"mu", "sigma", "games"} of one rated entity (a player id)."""
        return f"{self.prefix}rating:{entity}"

    def leaderboard(self, game: str) -> str:
        """Sorted set player_id -> ordinal for one game (humans only)."""
        return f"{self.prefix}board:{game}"

    def rated_game(self, game_id: str) -> str:
        """Hash seat -> entity id of a rated game created by the matchmaker."""
        return f"{self.prefix}rated:{game_id}"

    def rated_done(self, game_id: str) -> str:
        return f"{self.prefix}rated_done:{game_id}"

    def rated_pending(self) -> str:
        """Set of rated game ids not yet settled."""
        return f"{self.prefix}rated_pending"

    def rated_due(self) -> str:
        """Sorted set game id -> epoch ms when the matchmaker next checks whether that rated game finished."""
        return f"{self.prefix}rated_due"

    # rate limits
    def rate(self, kind: str, who: str, window: int) -> str:
        return f"{self.prefix}rl:{kind}:{who}:{window}"

    # matchmaking
    def ticket(self, ticket_id: str) -> str:
        return f"{self.prefix}mm:t:{ticket_id}"

    def ticket_alive(self, ticket_id: str) -> str:
        return f"{self.prefix}mm:alive:{ticket_id}"

    def queue(self, bucket: str) -> str:
        return f"{self.prefix}mm:q:{bucket}"

    def claims(self) -> str:
        """Sorted set ticket id -> claim time (ms) of the tickets being made into a game."""
        return f"{self.prefix}mm:claims"

    def buckets(self) -> str:
        return f"{self.prefix}mm:buckets"
