"""The one bucketing of ids into hash-tagged buckets (docs/decisions/redis-cluster.md, services/common/slot_buckets.py),
shared by the game-state key layout and the gateway's walked indexes. No Redis needed: names, slots and spread are
computed.

The game-state names below are the layout already in Redis on a running deployment (64 balanced tags): they must
never change without a migration, so they are spelled out here, not recomputed."""

from __future__ import annotations

import random
import uuid
import zlib
from collections import Counter

import pytest
from redis.crc import key_slot

from services.accounts import keys as account_keys
from services.common.slot_buckets import SLOTS, SlotBuckets
from services.gamestate import keys as game_keys

#: services/gamestate/keys.py's tags before the shared module (the cluster layout's first form): bucket -> tag.
GAME_TAGS = (
    "{b:0.41}", "{b:1.68}", "{b:2.10}", "{b:3.39}", "{b:4.151}", "{b:5.33}", "{b:6.173}", "{b:7.62}", "{b:8.322}",
    "{b:9.20}", "{b:10.38}", "{b:11.11}", "{b:12.3}", "{b:13.79}", "{b:14.0}", "{b:15.121}", "{b:16.3}",
    "{b:17.142}", "{b:18.71}", "{b:19.58}", "{b:20.100}", "{b:21.12}", "{b:22.122}", "{b:23.43}", "{b:24.19}",
    "{b:25.30}", "{b:26.48}", "{b:27.61}", "{b:28.73}", "{b:29.353}", "{b:30.39}", "{b:31.10}", "{b:32.132}",
    "{b:33.303}", "{b:34.8}", "{b:35.31}", "{b:36.70}", "{b:37.59}", "{b:38.3}", "{b:39.303}", "{b:40.30}",
    "{b:41.3}", "{b:42.61}", "{b:43.48}", "{b:44.143}", "{b:45.42}", "{b:46.161}", "{b:47.13}", "{b:48.79}",
    "{b:49.8}", "{b:50.33}", "{b:51.131}", "{b:52.142}", "{b:53.72}", "{b:54.68}", "{b:55.41}", "{b:56.79}",
    "{b:57.50}", "{b:58.362}", "{b:59.52}", "{b:60.31}", "{b:61.18}", "{b:62.60}", "{b:63.49}",
)


def _primary(slot: int) -> int:
    """Which of 3 primaries owns `slot` in the ranges `redis-cli --cluster create` assigns (0-5460, 5461-10922,
    10923-16383)."""
    return 0 if slot <= 5460 else 1 if slot <= 10922 else 2


def test_game_state_keys_keep_their_names_through_the_shared_module() -> None:
    """Keys already in Redis keep their names: the same 64 tags, the same bucket per id, the same key names."""
    assert game_keys.BUCKETS == 64 and game_keys.GAME_BUCKETS.tags == GAME_TAGS
    assert [game_keys.bucket_tag(b) for b in range(64)] == list(GAME_TAGS)
    keys = game_keys.Keys("sb:")
    assert keys.meta("g-abc") == "sb:game:{b:51.131}:g-abc:meta"
    assert keys.active(17) == "sb:games:active:{b:17.142}" and keys.token(3, "h") == "sb:token:{b:3.39}:h"
    for game_id in ("g-abc", "0" * 22, str(uuid.UUID(int=7))):
        assert game_keys.bucket_of(game_id) == zlib.crc32(game_id.encode()) % 64


def test_account_indexes_keep_their_plain_tags_through_the_shared_module() -> None:
    """The gateway's walked indexes keep `{r:<n>}`, `{f:<n>}`, `{c:<n>}` over 32 CRC-32 buckets (no rename, so
    no migration of the rated games, games' seats or challenges of a running deployment)."""
    keys = account_keys.Keys("sbgw:")
    assert account_keys.BUCKETS == 32
    assert account_keys.bucket_of("g1") == zlib.crc32(b"g1") % 32 == 5
    assert keys.rated_game("g1") == "sbgw:rated:{r:5}:g1" and keys.rated_pending(5) == "sbgw:rated_pending:{r:5}"
    assert keys.game_accounts("g1") == "sbgw:acct:seats:{f:5}:g1"
    assert keys.challenge("c1") == "sbgw:ch:{c:1}:c1" and keys.challenges_due(4) == "sbgw:ch:due:{c:4}"
    # a game's rated record and its seats share their index's slot (one script each touches one slot)
    for game_id in (f"g{i}" for i in range(50)):
        b = account_keys.bucket_of(game_id)
        assert key_slot(keys.rated_game(game_id).encode()) == key_slot(keys.rated_pending(b).encode())
        assert key_slot(keys.game_accounts(game_id).encode()) == key_slot(f"{{f:{b}}}".encode())


@pytest.mark.parametrize("count", [1, 3, 32, 64, 100])
def test_balanced_tags_lie_each_in_its_own_share_of_the_slots(count: int) -> None:
    """Balanced bucket b's slot is in [b, b+1) * 16384 / count, so equal slot ranges get equal bucket counts."""
    buckets = SlotBuckets(count, "t", balanced=True)
    for b in range(count):
        assert b * SLOTS // count <= buckets.slot(b) < (b + 1) * SLOTS // count
        assert buckets.tag(b).startswith(f"{{t:{b}") and buckets.tag(b).endswith("}")
    # 3 primaries owning the slot ranges redis-cli --cluster create assigns: each holds count/3 buckets, +-1
    owners = Counter(_primary(buckets.slot(b)) for b in range(count))
    assert max(owners.values()) - min(owners.get(p, 0) for p in range(3)) <= 1


def test_plain_tags_are_label_and_number_and_ids_spread_evenly_over_buckets() -> None:
    """A plain tag is `{<label>:<n>}`; CRC-32 spreads random ids over the buckets (largest / mean <= 1.2)."""
    buckets = SlotBuckets(32, "x")
    assert buckets.tags == tuple(f"{{x:{b}}}" for b in range(32))
    assert buckets.slot(7) == key_slot(b"x:7") and buckets.tag_of("g1") == "{x:5}"
    rng = random.Random(40)
    spread = Counter(buckets.bucket_of(uuid.UUID(int=rng.getrandbits(128)).hex) for _ in range(32_000))
    assert len(spread) == 32 and max(spread.values()) / (32_000 / 32) <= 1.2


def test_balanced_spread_of_ten_thousand_games_over_three_primaries() -> None:
    """The cluster's bar: 10,000 game ids over 3 primaries with equal slot ranges, largest shard / mean <= 1.2."""
    rng = random.Random(10_000)
    ids = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(10_000)]
    primary = Counter(_primary(game_keys.GAME_BUCKETS.slot(game_keys.bucket_of(gid))) for gid in ids)
    assert max(primary.values()) / (10_000 / 3) <= 1.2


@pytest.mark.parametrize(("count", "label"), [(0, "b"), (SLOTS + 1, "b"), (8, ""), (8, "a{b"), (8, "}")])
def test_a_bucketing_that_could_not_be_one_slot_each_is_refused(count: int, label: str) -> None:
    """A count outside 1..16384 or a label with a brace (it would end the hash tag early) is a ValueError."""
    with pytest.raises(ValueError):
        SlotBuckets(count, label)
