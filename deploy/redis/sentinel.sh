#!/bin/sh
# docker-compose.yml's Sentinels (quorum 2 of 3, as deploy/k8s/): `sentinel.sh <my address>`. The master to
# monitor is whatever the other Sentinels ($SENTINELS) say (after a failover), else $REDIS_FIRST_MASTER.
# Addresses, not names (see redis-node.sh).
set -eu
me="$1"
master=""
for s in $SENTINELS; do
  [ "$s" = "$me" ] && continue
  m="$(timeout 3 redis-cli -h "$s" -p 26379 sentinel get-master-addr-by-name skyboard 2>/dev/null | head -n1 || true)"
  if [ -n "$m" ]; then master="$m"; break; fi
done
[ -n "$master" ] || master="$REDIS_FIRST_MASTER"
# Sentinel resolves the master's name when it reads its configuration: wait until the name answers
for _ in $(seq 1 60); do
  timeout 2 redis-cli -h "$master" -p 6379 ping >/dev/null 2>&1 && break
  sleep 1
done
conf=/tmp/sentinel.conf   # Sentinel rewrites its configuration file: a writable copy
cat > "$conf" <<CONF
port 26379
protected-mode no
sentinel announce-ip $me
sentinel monitor skyboard $master 6379 2
sentinel down-after-milliseconds skyboard ${SENTINEL_DOWN_AFTER_MS:-5000}
sentinel failover-timeout skyboard 60000
sentinel parallel-syncs skyboard 1
CONF
echo "sentinel $me: monitoring $master"
exec redis-sentinel "$conf"
