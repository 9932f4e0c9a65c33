"""Concurrent-stream bounds per client address and per credential, for every long-lived stream we serve
(gRPC WatchGame, the gateway's SSE game streams and account stream).

A credential here is whose budget a stream counts against, as for rate limits: a seat token, or an account
(`holder_of_account`: every API key of the account together, so minting keys buys no more streams).

Why in memory: a slot is held by an open connection to this process and must be given back the moment it
closes (a crashed process's slots vanish with it); a count in Redis would outlive a killed process. So the
bounds hold per process (per service instance, per gateway), which is where a stream's memory and
connections are spent. 0 disables a bound.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


def holder_of_account(player_id: str) -> str:
    """The credential an API key's streams count against: its account (all its keys together)."""
    return f"account:{player_id}"


def holder_of_token(token_hash: str) -> str:
    """The credential a seat token's streams count against: the token itself (by its hash, never the secret)."""
    return f"token:{token_hash}"


class TooManyStreams(Exception):
    """The caller already holds as many streams as it may; `message` says which bound and how many."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(eq=False, slots=True)
class Slot:
    """One open stream's place; `release()` gives it back (idempotent)."""

    owner: StreamSlots
    address: str
    credential: str | None
    released: bool = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.owner._give_back(self)


class StreamSlots:
    """Counts the open streams of each address and each credential (`holder_of_account`, `holder_of_token`)."""

    def __init__(self, per_address: int, per_credential: int, what: str = "streams") -> None:
        self.per_address = per_address
        self.per_credential = per_credential
        self.what = what
        self._addresses: Counter[str] = Counter()
        self._credentials: Counter[str] = Counter()

    def acquire(self, address: str, credential: str | None) -> Slot:
        """A slot for a new stream, or TooManyStreams naming the bound it would break."""
        if credential is not None and self.per_credential and self._credentials[credential] >= self.per_credential:
            raise TooManyStreams(f"too many open {self.what}: at most {self.per_credential} concurrent streams per "
                                 "credential (a seat token, or an account: all its API keys together); close one "
                                 "first")
        if self.per_address and self._addresses[address] >= self.per_address:
            raise TooManyStreams(f"too many open {self.what}: at most {self.per_address} concurrent streams per "
                                 "address; close one first")
        self._addresses[address] += 1
        if credential is not None:
            self._credentials[credential] += 1
        return Slot(self, address, credential)

    def open(self) -> int:
        return sum(self._addresses.values())

    def _give_back(self, slot: Slot) -> None:
        for counter, key in ((self._addresses, slot.address), (self._credentials, slot.credential)):
            if key is not None:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
