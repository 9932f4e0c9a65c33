#!/bin/sh
# Debian's PostgreSQL standing in for the `postgres` image where no registry is reachable (`make test-deploy`,
# tests/containers/compose.test.yml): POSTGRES_USER, POSTGRES_DB and POSTGRES_PASSWORD are honoured as the
# official image does, on first start only; then the server runs in the foreground as the postgres user.
set -eu
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
data=/var/lib/postgresql/data
mkdir -p "$data" /var/run/postgresql
chown -R postgres:postgres "$data" /var/run/postgresql
chmod 700 "$data"
if [ ! -s "$data/PG_VERSION" ]; then
  pw="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" > "$pw"
  chown postgres "$pw"
  runuser -u postgres -- "$bin/initdb" -D "$data" -U "$POSTGRES_USER" --pwfile="$pw" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pw"
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$data/pg_hba.conf"
  runuser -u postgres -- "$bin/pg_ctl" -D "$data" -w -o "-c listen_addresses=''" start >/dev/null
  if [ "$POSTGRES_DB" != "postgres" ]; then
    runuser -u postgres -- "$bin/createdb" -U "$POSTGRES_USER" "$POSTGRES_DB"
  fi
  runuser -u postgres -- "$bin/pg_ctl" -D "$data" -w stop >/dev/null
fi
exec runuser -u postgres -- "$bin/postgres" -D "$data" -c listen_addresses='*'
