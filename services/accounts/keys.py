"""Redis key layout of the gateway and the matchmaker (one place, one prefix).

Redis Cluster (docs/decisions/redis-cluster.md): every script and transaction touches ONE slot, so keys that one
operation touches together share a hash tag (the `{...}` part; docs/platform/redis-cluster-running.md):

- per account `{a:<player id>}`: its event stream, sealed seat-token hand-offs, ongoing games, challenge indexes
  and the last version of each game the outcomes consumer published to it;
- per matchmaking pool `{mm:<pool tag>}` (`pool_tag`: 4 hex digits of the pool's bucket string): the pool's
  queue, claims and tickets; a ticket id begins with its pool's tag, so a poll finds the slot from the id alone;
- per rate-limit subject `{rl:<kind>:<who>}` (one key per script call on a cluster);
- indexes a loop walks are split into a fixed number of buckets, an entry in the bucket of its id (`bucket_of`;
  services/common/slot_buckets.py, the bucketing the game-state side shares):
  the account-held seats of each game (`{f:<n>}`), the rated games with their pending set (`{r:<n>}`), the
  challenges with their expiry index (`{c:<n>}`).

A key touched alone (the API-key cache, the pool registry) is one slot whatever its name.
"""

from __future__ import annotations

import hashlib

from services.common.slot_buckets import SlotBuckets

#: Buckets of each walked index. Part of the layout: changing it moves keys (a drained deployment only).
BUCKETS = 32

#: The walked indexes' buckets (services/common/slot_buckets.py), plain tags `{<label>:<n>}` as before the shared
#: module: keeping their names keeps the keys of a running deployment (rated games in play, games' seats,
#: pending challenges) where they are. Balanced tags would spread 32 buckets more evenly over 3 primaries, at the
#: price of renaming every one of these keys.
FOLLOWED = SlotBuckets(BUCKETS, "f")
RATED = SlotBuckets(BUCKETS, "r")
CHALLENGES = SlotBuckets(BUCKETS, "c")
#: the accounts that hold webhooks, which the webhook deliverer walks (services/webhooks/deliverer.py)
WEBHOOK_ACCOUNTS = SlotBuckets(BUCKETS, "w")


def token_hash(secret: str) -> str:
    """What we store or key on instead of a secret (api keys, seat tokens)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def bucket_of(ident: str) -> int:
    """The bucket of a game or challenge id: a stable hash (CRC-32, the same in every process and release); the
    same in the three walked indexes, which share the count."""
    return RATED.bucket_of(ident)


def pool_tag(bucket: str) -> str:
    """4 hex digits naming a matchmaking pool's slot (pools that share them share a slot: harmless)."""
    return hashlib.sha256(bucket.encode()).hexdigest()[:4]


class Keys:
    """Every key is `<prefix><kind>:...`; tests give each run its own prefix."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    # players, keys and ratings live in SQL (services/accounts/repository.py); Redis caches key lookups
    def api_key_cache(self, key_hash: str) -> str:
        """A cached API-key lookup: the player id (or "-" once revoked), TTL <= 30 s and <= the key's grace."""
        return f"{self.prefix}akc:{key_hash}"

    # rated games in play (hot; their settlement is recorded in SQL, `settled_games`), per bucket {r:<n>}

    def rated_game(self, game_id: str) -> str:
        """Hash seat -> entity id of a rated game created by the matchmaker."""
        return f"{self.prefix}rated:{RATED.tag_of(game_id)}:{game_id}"

    def rated_pending(self, bucket: int) -> str:
        """Set of the bucket's rated game ids not yet settled."""
        return f"{self.prefix}rated_pending:{RATED.tag(bucket)}"

    # rate limits: one subject's window counter
    def rate(self, kind: str, who: str, window: int | str) -> str:
        return f"{self.prefix}rl:{{rl:{kind}:{who}}}:{window}"

    # matchmaking, per pool {mm:<pool tag>}; a ticket id's first 4 characters are its pool's tag
    def ticket(self, ticket_id: str) -> str:
        return f"{self.prefix}mm:t:{{mm:{ticket_id[:4]}}}:{ticket_id}"

    def ticket_alive(self, ticket_id: str) -> str:
        return f"{self.prefix}mm:alive:{{mm:{ticket_id[:4]}}}:{ticket_id}"

    def queue(self, bucket: str) -> str:
        return f"{self.prefix}mm:q:{{mm:{pool_tag(bucket)}}}:{bucket}"

    def claims(self, bucket: str) -> str:
        """Sorted set ticket id -> claim time (ms) of the pool's tickets being made into a game."""
        return f"{self.prefix}mm:claims:{{mm:{pool_tag(bucket)}}}"

    def buckets(self) -> str:
        """Set of the pools (bucket strings) that have had tickets: what a matchmaking pass walks."""
        return f"{self.prefix}mm:buckets"

    # accounts, per account {a:<id>} (services/accounts/events.py, services/gateway/domain/: api_keys,
    # challenges, the outcomes consumer)
    @staticmethod
    def account_tag(player_id: str) -> str:
        return f"{{a:{player_id}}}"

    def account_events(self, player_id: str) -> str:
        """Redis stream of one account's events (bounded length): what GET /v1/players/me/events replays."""
        return f"{self.prefix}acct:ev:{self.account_tag(player_id)}"

    def handoff(self, player_id: str, game_id: str) -> str:
        """A seat token sealed for its owner's account stream, deleted by the one delivery that takes it."""
        return f"{self.prefix}acct:handoff:{self.account_tag(player_id)}:{game_id}"

    def account_games(self, player_id: str) -> str:
        """Hash game_id -> JSON {"seat", "game", "since_ms"} of an account's ongoing games."""
        return f"{self.prefix}acct:games:{self.account_tag(player_id)}"

    def seat_holder(self, token_hash: str) -> str:
        """The account holding the seat of a seat token (by the token's SHA-256): whose budget the rate limiters
        charge a call with that token to (docs/decisions/accounts.md). Touched alone (its own slot)."""
        return f"{self.prefix}acct:holder:{{h:{token_hash[:8]}}}:{token_hash[:32]}"

    def game_accounts(self, game_id: str) -> str:
        """Hash seat -> player_id of the account-held seats of one game (in its bucket's slot, `{f:<n>}`): whom the
        outcomes consumer tells of the game's turns and end."""
        return f"{self.prefix}acct:seats:{FOLLOWED.tag_of(game_id)}:{game_id}"

    def follow_sent(self, player_id: str, game_id: str) -> str:
        """The last version of the game whose events reached this account (the outcomes consumer's exactly once, by
        script: services/accounts/lua/follow_publish.lua)."""
        return f"{self.prefix}follow:sent:{self.account_tag(player_id)}:{game_id}"

    def challenge(self, challenge_id: str) -> str:
        return f"{self.prefix}ch:{CHALLENGES.tag_of(challenge_id)}:{challenge_id}"

    def challenges_of(self, player_id: str) -> str:
        """Sorted set challenge_id -> created ms of the challenges a player sent or received."""
        return f"{self.prefix}ch:of:{self.account_tag(player_id)}"

    def challenges_open(self, direction: str, player_id: str) -> str:
        """Sorted set challenge_id -> expiry ms of the challenges a player sent (`from`) or received (`to`) that
        are still pending (or being accepted): what the per-sender and per-recipient bounds count."""
        return f"{self.prefix}ch:open:{direction}:{self.account_tag(player_id)}"

    def challenges_due(self, bucket: int) -> str:
        """Sorted set challenge_id -> expiry ms of the bucket's pending challenges (the expiry sweep walks them)."""
        return f"{self.prefix}ch:due:{CHALLENGES.tag(bucket)}"

    # webhooks, per account {a:<id>}: the endpoints, which event types go where (read by the account-stream
    # append itself, services/accounts/lua/webhook_enqueue.lua), the due deliveries and each endpoint's log
    def webhooks(self, player_id: str) -> str:
        """Hash webhook id -> JSON of the endpoint (URL, event types, sealed secrets, enabled)."""
        return f"{self.prefix}wh:{self.account_tag(player_id)}"

    def webhook_routes(self, player_id: str) -> str:
        """Hash event type -> space-separated ids of the enabled endpoints that take it (derived from `webhooks`)."""
        return f"{self.prefix}wh:routes:{self.account_tag(player_id)}"

    def webhook_off(self, player_id: str) -> str:
        """Hash webhook id -> JSON {reason, at_ms} of the account's disabled endpoints (no key: enabled)."""
        return f"{self.prefix}wh:off:{self.account_tag(player_id)}"

    def webhook_due(self, player_id: str) -> str:
        """Sorted set delivery id -> when it is due (ms): a leased delivery is due again when its lease ends."""
        return f"{self.prefix}wh:due:{self.account_tag(player_id)}"

    def webhook_jobs(self, player_id: str) -> str:
        """Hash delivery id -> JSON of the queued delivery (endpoint, event, attempts so far)."""
        return f"{self.prefix}wh:jobs:{self.account_tag(player_id)}"

    def webhook_failing(self, player_id: str) -> str:
        """Hash webhook id -> ms of the first failure since its last success (what disabling reads)."""
        return f"{self.prefix}wh:failing:{self.account_tag(player_id)}"

    def webhook_log(self, player_id: str, webhook_id: str) -> str:
        """List of one endpoint's last attempts, newest first (JSON each), trimmed to 100."""
        return f"{self.prefix}wh:log:{self.account_tag(player_id)}:{webhook_id}"

    def webhook_accounts(self, bucket: int) -> str:
        """Set of the bucket's accounts that hold webhooks (`{w:<n>}`): what the deliverer walks."""
        return f"{self.prefix}wh:accounts:{WEBHOOK_ACCOUNTS.tag(bucket)}"
