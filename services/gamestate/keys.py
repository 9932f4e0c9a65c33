"""The Redis key layout, in one place: every key name is built here, so the layout can be read (and changed) once.

The `{id}` hash tag keeps one game's keys in one cluster slot. What each key holds: docs/platform/gamestate.md
("Redis key layout").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str

    def meta(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:meta"

    def log(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:log"

    def snap(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:snap"

    @property
    def meta_head(self) -> str:
        """What precedes the game id in its meta key (a Lua script builds meta keys from game ids)."""
        return f"{self.prefix}game:{{"

    def owner_games(self, owner: str) -> str:
        return f"{self.prefix}owner:{owner}:games"

    def owner_creations(self, owner: str, hour: int) -> str:
        return f"{self.prefix}owner:{owner}:made:{hour}"

    def events(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:events"

    def idem(self, game_id: str, seat: int, key: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:idem:{seat}:{key}"

    def idem_index(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:idems"

    def archiving(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:archiving"

    def refused(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{game_id}}}:refused"

    @property
    def token_head(self) -> str:
        """What precedes a token hash in its index key (the archival script builds them from the metadata)."""
        return f"{self.prefix}token:"

    def token(self, token_hash: str) -> str:
        return f"{self.prefix}token:{token_hash}"

    @property
    def active(self) -> str:
        return f"{self.prefix}games:active"

    @property
    def finished(self) -> str:
        return f"{self.prefix}games:finished"

    @property
    def quarantined(self) -> str:
        return f"{self.prefix}games:quarantined"

    @property
    def clock(self) -> str:
        return f"{self.prefix}clock"

    @property
    def touched(self) -> str:
        return f"{self.prefix}games:touched"

    @property
    def bot_wait(self) -> str:
        return f"{self.prefix}botwait"
