"""The Redis key layout, in one place.

Per game (the `{id}` hash tag keeps one game's keys in one cluster slot):
  {p}game:{id}:meta     hash   game, players, options, seed, bots, resigned, abandoned, token
                                hashes (tok:<seat>), status (active | finished | aborted), version,
                                digest, to_act, scores, winners, created_ms, updated_ms, clock_ms
                                (ms per decision), time_control (JSON or null), reserves (seat ->
                                ms), timeouts (seat -> consecutive), rated ("1"/"0"), deadline_ms,
                                owner (player id or ""), bot_key (the secret that seeds
                                its bots' randomness; never leaves the platform)
  {p}game:{id}:log      list   one JSON entry per accepted action: {v, seat, kind, action, at_ms};
                                entry i created version i+1 (version = accepted actions)
  {p}game:{id}:snap     hash   state (engine JSON), version, digest
  {p}game:{id}:events   stream one entry per version, id "<version>-1" (0-1 = creation):
                                fields v, kind, actor, events (full JSON, visible_to kept;
                                watchers redact), status, to_act, scores, winners
  {p}game:{id}:idem:<seat>:<key>  string  the first accepted outcome, with a TTL
  {p}game:{id}:idems    set    the names of its idempotency keys (so archival can delete them)
  {p}game:{id}:archiving string the archiver lease on a finished game (archiver.py), with a TTL
  {p}game:{id}:refused  hash   why the SQL archive refused the finished game (archiver.py): kind, error,
                                sqlstate, message (the database's sentence, no values), digest, attempts,
                                first_ms, last_ms; deleted with the game once it is archived
Global:
  {p}token:<sha256>     string "<game_id>:<seat>" for every live human seat token; expires
                                SEAT_TOKEN_TTL_AFTER_END_S after the game ends (set by the commit that ends it)
  {p}games:active / {p}games:finished   zsets of game ids scored by creation ms (finished: every ended
                                game, finished or aborted)
  {p}clock              zset   game id -> deadline ms of its current decision
  {p}games:touched      zset   active game id -> ms of its last commit (INACTIVE_GAME_DAYS sweep)
  {p}botwait            zset   game id -> when to re-queue its bot move if no bot has acted by then
  {p}games:quarantined  zset   finished game id the archive refused -> ms of its next automatic retry (inf:
                                only an operator's `python -m services.archive retry`); archive passes skip it
Per owner (a player who created games; services/gamestate/quotas.py):
  {p}owner:<id>:games   hash   game id -> "<bot seats>:<reserved ms>", of the games it owns that were active
                                (or being written) at its last creation
  {p}owner:<id>:made:<hour>  string  games created in that clock hour (expires with it)
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
