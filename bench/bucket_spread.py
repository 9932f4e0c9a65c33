"""How evenly games spread over a Redis Cluster's primaries (docs/decisions/redis-cluster.md: largest shard / mean <=
1.2).

    python -m bench.bucket_spread --games 10000

Starts a local cluster (3 primaries, 3 replicas: services/dev/local_cluster.py), draws `--games` game ids as the
service does (creation.new_game_id) and asks the cluster client which primary holds each one's keys (its bucket's
slot: services/gamestate/keys.py). Nothing is written.
"""

from __future__ import annotations

import argparse
from collections import Counter

from services.common.redis_clients import sync_redis
from services.dev.local_cluster import LocalCluster
from services.gamestate.creation import new_game_id
from services.gamestate.keys import BUCKETS, Keys, bucket_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    args = parser.parse_args()
    keys = Keys("sb:")
    with LocalCluster() as cluster:
        client = sync_redis(cluster.url, cluster=True)
        client.ping()
        node_of = {b: client.get_node_from_key(keys.active(b)).port for b in range(BUCKETS)}
        games = Counter(node_of[bucket_of(new_game_id())] for _ in range(args.games))
        buckets = Counter(node_of.values())
    mean = args.games / len(games)
    print(f"{args.games} games, {BUCKETS} buckets over {len(games)} primaries")
    for port, n in sorted(games.items()):
        print(f"primary :{port}: {n} games, {buckets[port]} buckets")
    print(f"largest / mean: {max(games.values()) / mean:.3f}")


if __name__ == "__main__":
    main()
