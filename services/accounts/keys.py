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

    # players, keys and ratings live in SQL (services/accounts/repository.py); Redis caches key lookups
    def api_key_cache(self, key_hash: str) -> str:
        """A cached API-key lookup: the player id (or "-" once revoked), TTL <= 30 s and <= the key's grace."""
        return f"{self.prefix}akc:{key_hash}"

    # rated games in play (hot; their settlement is recorded in SQL, `settled_games`)

    def rated_game(self, game_id: str) -> str:
        """Hash seat -> entity id of a rated game created by the matchmaker."""
        return f"{self.prefix}rated:{game_id}"

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

    # accounts (services/accounts/events.py, services/gateway/domain/: api_keys, challenges, following)
    def account_events(self, player_id: str) -> str:
        """Redis stream of one account's events (bounded length): what GET /v1/players/me/events replays."""
        return f"{self.prefix}acct:ev:{player_id}"

    def handoff(self, player_id: str, game_id: str) -> str:
        """A seat token sealed for its owner's account stream, deleted by the one delivery that takes it."""
        return f"{self.prefix}acct:handoff:{player_id}:{game_id}"

    def account_games(self, player_id: str) -> str:
        """Hash game_id -> JSON {"seat", "game", "since_ms"} of an account's ongoing games."""
        return f"{self.prefix}acct:games:{player_id}"

    def game_accounts(self, game_id: str) -> str:
        """Hash seat -> player_id of the account-held seats of one game."""
        return f"{self.prefix}acct:seats:{game_id}"

    def followed(self) -> str:
        """Sorted set game_id -> registration ms of games whose turns are published to account streams."""
        return f"{self.prefix}follow:games"

    def follow_lease(self, game_id: str) -> str:
        return f"{self.prefix}follow:lease:{game_id}"

    def follow_pos(self, game_id: str) -> str:
        """Hash {"v", "to_act"}: the last version whose turns were published (exactly once, by script)."""
        return f"{self.prefix}follow:pos:{game_id}"

    def challenge(self, challenge_id: str) -> str:
        return f"{self.prefix}ch:{challenge_id}"

    def challenges_of(self, player_id: str) -> str:
        """Sorted set challenge_id -> created ms of the challenges a player sent or received."""
        return f"{self.prefix}ch:of:{player_id}"

    def challenges_open(self, direction: str, player_id: str) -> str:
        """Sorted set challenge_id -> expiry ms of the challenges a player sent (`from`) or received (`to`) that
        are still pending (or being accepted): what the per-sender and per-recipient bounds count."""
        return f"{self.prefix}ch:open:{direction}:{player_id}"

    def challenges_due(self) -> str:
        """Sorted set challenge_id -> expiry ms of pending challenges (the expiry sweep reads it)."""
        return f"{self.prefix}ch:due"
