#!/bin/sh
# docker-compose.yml's Redis nodes (as deploy/k8s/redis.yaml's init.sh): `redis-node.sh <my address>`.
# Asks the Sentinels ($SENTINELS) who is master right now; the very first start (no Sentinel answers yet)
# takes $REDIS_FIRST_MASTER (redis-0's address). Fixed addresses, not names: Redis resolves a master's name on
# its main thread, and a name that stops resolving (the master's container is gone) can stall a replica
# long enough for the Sentinels to count it down too, and then nobody can be promoted. A node that comes back after a failover therefore starts as a replica of
# the new master, never as a second master. Runs with the upstream redis image or Debian's redis-server.
set -eu
me="$1"
# A node that ran before (its data is on the volume) and just came back, after a crash say, first waits
# REDIS_REJOIN_DELAY_S (15 s, more than Sentinel's down-after 5 s plus the failover): the Sentinels decide
# without it, and it then rejoins as whatever they say. Otherwise a quick restart of a failed master would
# race the failover and could come back as a second master.
if [ -e /data/appendonlydir ] || [ -e /data/appendonly.aof ]; then
  echo "redis-node $me: restarting; waiting ${REDIS_REJOIN_DELAY_S:-15}s for the Sentinels to settle"
  sleep "${REDIS_REJOIN_DELAY_S:-15}"
fi
master=""
for s in $SENTINELS; do
  m="$(timeout 3 redis-cli -h "$s" -p 26379 sentinel get-master-addr-by-name skyboard 2>/dev/null | head -n1 || true)"
  if [ -n "$m" ]; then master="$m"; break; fi
done
[ -n "$master" ] || master="$REDIS_FIRST_MASTER"
conf=/tmp/redis.conf
cat > "$conf" <<CONF
port 6379
protected-mode no
dir /data
appendonly yes
appendfsync everysec
save ""
replica-announce-ip $me
replica-serve-stale-data yes
min-replicas-to-write 0
CONF
if [ "$master" != "$me" ]; then echo "replicaof $master 6379" >> "$conf"; fi
echo "redis-node $me: master is $master"
exec redis-server "$conf"
