"""Fixed buckets of ids, each bucket one Redis Cluster hash slot: the one bucketing of the platform
(docs/decisions/redis-cluster.md).

Why: on a Redis Cluster a script or a transaction may touch one hash slot only, so an index that a loop walks (the
active games, the turn clock, the followed games, the pending challenges, ...) cannot be one key: it is split into
a fixed number of buckets, an entry in the bucket of its id, and every key a write of that entry touches carries its
bucket's hash tag. The game-state service (`services/gamestate/keys.py`, 64 buckets, label `b`, balanced tags) and
the gateway's and matchmaker's walked indexes (`services/accounts/keys.py`, 32 buckets each of `f`, `r`, `c`, plain
tags) both use this module.

- `bucket_of(ident)`: CRC-32 of the id modulo the count: the same in every process, release and language.
- Plain tags are `{<label>:<n>}`: their slots are wherever CRC-16 puts them, so a few primaries may hold unequal
  shares of the buckets (32 buckets on 3 primaries: see the unit tests).
- Balanced tags are the first of `<label>:<n>`, `<label>:<n>.0`, `<label>:<n>.1`, ... whose slot lies in the
  bucket's own 1/count of the slot space: the buckets are evenly spaced over the slots, so primaries that own
  equal slot ranges hold equal shares (what the game-state side needs: games are most of the data).

The count, the label and the tag style are part of the key layout: changing any of them renames keys, so a running
deployment must be drained (or migrated) first.
"""

from __future__ import annotations

import itertools
import zlib
from functools import cached_property

from redis.crc import key_slot

#: Redis Cluster's hash slots.
SLOTS = 16384


def _balanced_tag(label: str, bucket: int, count: int) -> str:
    """The first of `<label>:<n>`, `<label>:<n>.0`, ... whose slot lies in [bucket, bucket + 1) * SLOTS / count."""
    low, high = bucket * SLOTS // count, (bucket + 1) * SLOTS // count
    for candidate in itertools.chain([f"{label}:{bucket}"], (f"{label}:{bucket}.{i}" for i in itertools.count())):
        if low <= key_slot(candidate.encode()) < high:
            return candidate
    raise AssertionError("unreachable: some suffix lands in every range of slots")


class SlotBuckets:
    """`count` buckets named `label`, each with one hash tag (`tag(b)`, braces included)."""

    def __init__(self, count: int, label: str, *, balanced: bool = False) -> None:
        if not 1 <= count <= SLOTS:
            raise ValueError(f"a bucket count between 1 and {SLOTS}, not {count}")
        if not label or any(c in label for c in "{}"):
            raise ValueError(f"a label without braces, not {label!r}")
        self.count = count
        self.label = label
        self.balanced = balanced

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """Every bucket's hash tag, computed once (a balanced tag may take a few hundred CRC-16s to find)."""
        if self.balanced:
            return tuple(f"{{{_balanced_tag(self.label, b, self.count)}}}" for b in range(self.count))
        return tuple(f"{{{self.label}:{b}}}" for b in range(self.count))

    def bucket_of(self, ident: str) -> int:
        """The bucket of an id: a stable hash (CRC-32, the same in every process and release) modulo the count."""
        return zlib.crc32(ident.encode()) % self.count

    def tag(self, bucket: int) -> str:
        """The hash tag every key of `bucket` carries (braces included)."""
        return self.tags[bucket]

    def tag_of(self, ident: str) -> str:
        """The hash tag of the id's bucket."""
        return self.tags[self.bucket_of(ident)]

    def slot(self, bucket: int) -> int:
        """The cluster hash slot of `bucket`'s keys."""
        return key_slot(self.tag(bucket)[1:-1].encode())

    def __repr__(self) -> str:
        return f"SlotBuckets({self.count}, {self.label!r}, balanced={self.balanced})"
