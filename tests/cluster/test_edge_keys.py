"""The gateway's and matchmaker's Redis operations on a real Redis Cluster (docs/decisions/redis-cluster.md, items
"matchmaking pools, rate-limit buckets, challenges and account streams keyed so that each operation stays in one slot;
the matchmaker stays race-safe with several matchmaker processes").

A cluster refuses any script or transaction whose keys span slots (CROSSSLOT), so every call below would fail if
a key layout were wrong; the tests also check that the work really spreads over the three primaries. The full
gateway suite (with the game-state service) runs on a cluster through `make test-cluster`.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Iterator

import pytest

from services.accounts.events import AccountEvents
from services.accounts.keys import BUCKETS, Keys, bucket_of, pool_tag, token_hash
from services.accounts.rate_limits import RateLimiter
from services.accounts.ratings import Ratings
from services.accounts.seats import register_on
from services.common.redis_clients import async_redis, sync_redis
from services.common.slot_transactions import SlotTransactions, cluster_ready, is_cluster
from services.dev.local_cluster import LocalCluster
from services.gateway.domain.challenges import Challenges, TooManyChallenges
from services.matchmaker.store import TicketStore
from tests.rate_windows import HOUR, fresh_window

SECRET = "s" * 48


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster() as running:
        yield running


def run(cluster: LocalCluster, body) -> object:
    """`body(redis, keys)` on a fresh asyncio cluster client and key prefix."""

    async def go() -> object:
        redis = async_redis(cluster.url, cluster=True)
        assert is_cluster(redis)
        await cluster_ready(redis)
        try:
            return await body(redis, Keys(f"sbedge:{uuid.uuid4().hex[:8]}:"))
        finally:
            await redis.aclose()

    return asyncio.run(go())


def test_keys_one_operation_touches_together_share_a_slot() -> None:
    """Per account, per pool (the ticket id carries its pool's tag), per bucket (pure; the layout itself)."""
    from redis.crc import key_slot

    keys = Keys("p:")
    slot = lambda key: key_slot(key.encode())  # noqa: E731
    pid = "player-1"
    assert len({slot(k) for k in (keys.account_events(pid), keys.handoff(pid, "g"), keys.account_games(pid),
                                   keys.challenges_of(pid), keys.challenges_open("from", pid),
                                   keys.challenges_open("to", pid), keys.follow_sent(pid, "g"))}) == 1
    bucket = "toybids|2|{}"
    tid = pool_tag(bucket) + "0" * 28
    assert len({slot(k) for k in (keys.queue(bucket), keys.claims(bucket), keys.ticket(tid),
                                   keys.ticket_alive(tid))}) == 1
    for game_id in ("g1", "g2", uuid.uuid4().hex):
        b = bucket_of(game_id)
        assert slot(keys.rated_game(game_id)) == slot(keys.rated_pending(b))
        assert slot(keys.game_accounts(game_id)) == slot(f"{{f:{b}}}")
        assert slot(keys.challenge(game_id)) == slot(keys.challenges_due(b))
    # a seat token's holder (docs/decisions/accounts.md: the bot budget) is written in register_on's transaction on the
    # tag `h:<8 hex>`
    h = token_hash("a-seat-token")
    assert slot(keys.seat_holder(h)) == slot(f"{{h:{h[:8]}}}")
    # the walked indexes spread: 32 buckets land on many slots
    assert len({slot(keys.game_accounts(f"g{i}")) for i in range(2000)}) == BUCKETS


def test_two_matchmakers_racing_on_one_pool_claim_each_ticket_once(cluster: LocalCluster) -> None:
    """Two stores on two clients (two matchmaker processes' view) claim overlapping groups of one pool at once,
    many times: every ticket ends in exactly one claim, and its placement is recorded only by its owner."""

    async def body(redis, keys: Keys) -> None:
        other = async_redis(cluster.url, cluster=True)
        await cluster_ready(other)
        try:
            stores = [TicketStore(r, keys, 30, 600, secret=SECRET) for r in (redis, other)]
            tickets = [await stores[0].create(f"p{i}", "toybids", 2, {}, 60.0, 0.0) for i in range(40)]
            bucket = tickets[0].bucket
            ids = [t.ticket_id for t in tickets]
            assert len({t[:4] for t in ids}) == 1, "one pool, one tag"
            pairs = [ids[i:i + 2] for i in range(0, 40, 2)]
            shifted = [ids[i:i + 2] for i in range(1, 39, 2)]  # overlaps every pair of the first
            # one claim per group, the two matchmakers' calls interleaved on the wire
            calls = [(0, "A", p) for p in pairs] + [(1, "B", p) for p in shifted]
            random.Random(5).shuffle(calls)
            won = await asyncio.gather(*(stores[i].claim(claim, bucket, p) for i, claim, p in calls))
            claimed_a = [p for (_i, claim, p), r in zip(calls, won) if claim == "A" and r == 0]
            claimed_b = [p for (_i, claim, p), r in zip(calls, won) if claim == "B" and r == 0]
            assert claimed_a and claimed_b, "both matchmakers won some groups"
            flat = [t for p in claimed_a + claimed_b for t in p]
            assert len(flat) == len(set(flat)), "no ticket in two claims"
            recorded = await asyncio.gather(
                stores[0].matched_groups("A", bucket, [{t: ("gA", i, "tok") for i, t in enumerate(p)}
                                                       for p in claimed_a]),
                stores[1].matched_groups("B", bucket, [{t: ("gB", i, None) for i, t in enumerate(p)}
                                                       for p in claimed_b]),
                stores[1].matched_groups("B", bucket, [{t: ("gX", i, None) for i, t in enumerate(p)}
                                                       for p in claimed_a]),
            )
            assert all(recorded[0]) and all(recorded[1]) and not any(recorded[2]), "a lost claim writes nothing"
            polled = await stores[1].poll(claimed_a[0][0])
            assert polled.status == "matched" and polled.token == "tok", "the sealed token, once"
            assert (await stores[0].poll(claimed_a[0][0])).token is None
            left = [t for t in ids if t not in flat]
            assert {t.ticket_id for t in await stores[0].queued(bucket)} == set(left)
            late = await stores[1].create("late", "toybids", 2, {}, 60.0, 0.0)
            assert await stores[0].cancel(late.ticket_id) == "cancelled"
        finally:
            await other.aclose()

    run(cluster, body)


def test_pools_spread_over_the_primaries_and_stale_claims_are_released_pool_by_pool(cluster: LocalCluster) -> None:
    async def body(redis, keys: Keys) -> set[int]:
        store = TicketStore(redis, keys, 30, 600, secret=SECRET)
        made = [await store.create(f"q{i}", "toybids", 2, {"rounds": i}, 60.0, 0.0) for i in range(24)]
        for t in made:
            assert await store.claim("dead", t.bucket, [t.ticket_id], now_ms=int(time.time() * 1000) - 600_000) == 0
        assert await store.release_stale_claims(120) == 24
        assert [(await store.get(t.ticket_id)).status for t in made] == ["queued"] * 24
        return {redis.get_node_from_key(keys.queue(t.bucket)).port for t in made}

    assert len(run(cluster, body)) == 3, "24 pools over the 3 primaries"


def test_challenges_bounds_moves_and_expiry_sweep(cluster: LocalCluster) -> None:
    async def body(redis, keys: Keys) -> None:
        ch = Challenges(redis, keys, ttl_s=60, keep_s=60, per_sender=2, per_recipient=3)
        made = [await ch.create("ann", to, "toybids", 2, {}, None, False) for to in ("bob", "cy")]
        with pytest.raises(TooManyChallenges) as full:
            await ch.create("ann", "dee", "toybids", 2, {}, None, False)
        assert full.value.side == "sender"
        for sender in ("eve", "fay"):
            await ch.create(sender, "bob", "toybids", 2, {}, None, False)
        with pytest.raises(TooManyChallenges) as full:
            await ch.create("gus", "bob", "toybids", 2, {}, None, False)
        assert full.value.side == "recipient"
        assert await redis.zcard(keys.challenges_open("from", "gus")) == 0, "the sender's place was given back"
        assert await ch.move(made[0].challenge_id, "pending", "declined") == "ok"
        assert await ch.move(made[0].challenge_id, "pending", "accepting") == "declined"
        assert {c.challenge_id for c in await ch.of("ann")} == {c.challenge_id for c in made}
        await ch.create("ann", "dee", "toybids", 2, {}, None, False)  # a place came free with the decline
        due = await ch.due(int(time.time() * 1000) + 61_000)
        assert made[1].challenge_id in due and made[0].challenge_id not in due

    run(cluster, body)


def test_rate_limits_count_each_subject_in_its_own_slot(cluster: LocalCluster) -> None:
    async def body(redis, keys: Keys) -> tuple[list, list]:
        limiter = RateLimiter(redis, keys, per_ip=3, per_token=2, window_s=HOUR, ip_ceiling=5)
        fresh_window()  # the counts and the counters read below are of one window
        verdicts = [await limiter.check_caller("10.0.0.1", "tok-a") for _ in range(3)]
        verdicts += [await limiter.check_caller("10.0.0.1", None) for _ in range(3)]
        window = int(time.time() // HOUR)
        counters = [await redis.get(keys.rate(kind, who, window)) for kind, who in
                    (("tok", token_hash("tok-a")[:32]), ("ip", "10.0.0.1"), ("ipall", "10.0.0.1"))]
        return [(v.scope, v.exceeded) for v in verdicts], counters

    verdicts, counters = run(cluster, body)
    assert verdicts == [("this credential", False), ("this credential", False), ("this credential", True),
                        ("this address (all requests)", False), ("this address (all requests)", False),
                        ("this address (all requests)", True)]
    assert counters == [b"3", b"3", b"6"], "each subject counted in its own slot, the ceiling across both"


def test_a_new_game_seats_its_accounts_and_rated_games_are_walked_by_bucket(cluster: LocalCluster) -> None:
    """register_on (the game's seats in its bucket + each account), a sealed hand-off with its game_start (one
    account, one MULTI), the rated-game registry per bucket and its pending set across buckets."""

    async def body(redis, keys: Keys) -> None:
        events = AccountEvents(redis, keys, SECRET, 100, 3600)
        games = [uuid.uuid4().hex for _ in range(12)]
        tx = SlotTransactions(redis)
        for g in games:
            register_on(tx, keys, 3600, g, "toybids", {0: "ann", 1: "bob"})
        events.hand_off(tx.on(keys.account_tag("ann")), "ann", games[0], "seat-token-0")
        events.add_to(tx.on(keys.account_tag("ann")), "ann", "game_start",
                      {"game_id": games[0], "seat": 0, "token_pending": True})
        await tx.execute()
        assert set(await redis.hkeys(keys.account_games("bob"))) == {g.encode() for g in games}
        for g in games:
            assert await redis.hgetall(keys.game_accounts(g)) == {b"0": b"ann", b"1": b"bob"}
        ((_entry_id, kind, data),) = await events.read("ann", "0-0", None)
        assert (await events.deliver("ann", kind, data))["token"] == "seat-token-0"
        assert (await events.deliver("ann", kind, data))["token"] is None, "handed out once"

        ratings = Ratings(redis, keys, repo=None)  # type: ignore[arg-type]  (SQL is not touched here)
        await ratings.register_games([(g, "toybids", {0: "player:ann", 1: "bot:greedy"}) for g in games])
        assert await ratings.pending() == sorted(games)
        assert await ratings.is_rated(games[3])

    run(cluster, body)


def test_the_sync_test_client_reads_what_the_services_wrote(cluster: LocalCluster) -> None:
    """tests/redis_required.py's `test_redis` (a sync cluster client) sees the async clients' keys: the gateway
    suite's own reads on a cluster go through it."""

    async def body(redis, keys: Keys) -> str:
        await redis.set(keys.api_key_cache("h"), "p1")
        return keys.api_key_cache("h")

    key = run(cluster, body)
    assert sync_redis(cluster.url, cluster=True, decode_responses=True).get(key) == "p1"
