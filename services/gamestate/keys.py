"""The Redis key layout, in one place: every key name is built here, so the layout can be read (and changed) once.

One shape for a standalone Redis and for Redis Cluster (docs/decisions/redis-cluster.md): every script and transaction
of the game-state service touches ONE slot. Games are spread over BUCKETS fixed buckets (`bucket_of`: CRC-32 of the game
id); a game's keys and the per-bucket indexes carry the bucket's hash tag (`bucket_tag`: `{b:<n>}` or `{b:<n>.<i>}`,
chosen so the buckets' slots are evenly spaced; the bucketing itself is services/common/slot_buckets.py, shared with the
gateway), so a game's commit (which moves it between indexes) is one atomic script in one slot, and every sweeper
walks the BUCKETS indexes (pipelined). BUCKETS is part of the layout: changing it moves every key.
See docs/platform/redis-cluster.md; what each key holds: docs/platform/gamestate.md ("Redis key layout").
"""

from __future__ import annotations

from dataclasses import dataclass

from services.common.slot_buckets import SLOTS, SlotBuckets

#: Fixed number of buckets: enough for many primaries, few enough that a sweep's pipeline of one command per bucket
#: stays cheap (~40 us of client CPU a command: 256 buckets cost a sweep 40 ms). Part of the key layout.
BUCKETS = 64

#: The games' buckets: balanced tags `{b:<n>}` / `{b:<n>.<i>}` spaced evenly over the slots (services/common/
#: slot_buckets.py), so primaries owning equal slot ranges hold equal shares of the games.
GAME_BUCKETS = SlotBuckets(BUCKETS, "b", balanced=True)

__all__ = ["BUCKETS", "GAME_BUCKETS", "SLOTS", "Keys", "bucket_of", "bucket_tag"]


def bucket_of(game_id: str) -> int:
    """The game's bucket: a stable hash (CRC-32, the same in every process and release) of its id."""
    return GAME_BUCKETS.bucket_of(game_id)


def bucket_tag(bucket: int) -> str:
    """The hash tag every key of the bucket carries (a balanced tag)."""
    return GAME_BUCKETS.tag(bucket)


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str

    # ------------------------------------------------------------------ one game

    def _game(self, game_id: str) -> str:
        return f"{self.prefix}game:{bucket_tag(bucket_of(game_id))}:{game_id}"

    def meta(self, game_id: str) -> str:
        return f"{self._game(game_id)}:meta"

    def log(self, game_id: str) -> str:
        return f"{self._game(game_id)}:log"

    def snap(self, game_id: str) -> str:
        return f"{self._game(game_id)}:snap"

    def events(self, game_id: str) -> str:
        return f"{self._game(game_id)}:events"

    def idem(self, game_id: str, seat: int, key: str) -> str:
        return f"{self._game(game_id)}:idem:{seat}:{key}"

    def idem_index(self, game_id: str) -> str:
        return f"{self._game(game_id)}:idems"

    def archiving(self, game_id: str) -> str:
        return f"{self._game(game_id)}:archiving"

    def refused(self, game_id: str) -> str:
        return f"{self._game(game_id)}:refused"

    # ------------------------------------------------------------------ seat tokens

    def token_head(self, bucket: int) -> str:
        """What precedes a token hash in its index key (scripts build them from the metadata's hashes)."""
        return f"{self.prefix}token:{bucket_tag(bucket)}:"

    def token(self, bucket: int, token_hash: str) -> str:
        return f"{self.token_head(bucket)}{token_hash}"

    # ------------------------------------------------------------------ per-bucket indexes

    def active(self, bucket: int) -> str:
        return f"{self.prefix}games:active:{bucket_tag(bucket)}"

    def finished(self, bucket: int) -> str:
        return f"{self.prefix}games:finished:{bucket_tag(bucket)}"

    def quarantined(self, bucket: int) -> str:
        return f"{self.prefix}games:quarantined:{bucket_tag(bucket)}"

    def clock(self, bucket: int) -> str:
        return f"{self.prefix}clock:{bucket_tag(bucket)}"

    def touched(self, bucket: int) -> str:
        return f"{self.prefix}games:touched:{bucket_tag(bucket)}"

    def bot_wait(self, bucket: int) -> str:
        return f"{self.prefix}botwait:{bucket_tag(bucket)}"

    def changes(self, bucket: int) -> str:
        """The bucket's outbox: one entry per committed version of its games, in commit order (services/
        gamestate/outbox.py); in the bucket's slot, so the commit appends to it in the same atomic script."""
        return f"{self.prefix}changes:{bucket_tag(bucket)}"

    def indexes(self, game_id: str) -> dict[str, str]:
        """The indexes of the game's bucket, by the names the scripts give them."""
        b = bucket_of(game_id)
        return {"active": self.active(b), "finished": self.finished(b), "clock": self.clock(b),
                "bot_wait": self.bot_wait(b), "touched": self.touched(b), "changes": self.changes(b)}

    # ------------------------------------------------------------------ accounts

    def owner_games(self, owner: str) -> str:
        return f"{self.prefix}owner:{{{owner}}}:games"

    def owner_creations(self, owner: str, hour: int) -> str:
        return f"{self.prefix}owner:{{{owner}}}:made:{hour}"
