#!/bin/sh
# One image, one role per container: `entrypoint.sh <role> [extra args]`, each role `python -m services.<role>`.
# Every role reads the same environment variables as `make run` (services/common/settings.py,
# services/gateway/settings.py, services/matchmaker/settings.py, services/ops_exporter.py); nothing is configured here
# except where each process listens inside the container.
set -eu

role="${1:-}"
[ $# -gt 0 ] && shift

case "$role" in
  gamestate)
    # ADMIN_GRPC_ADDR (GameAdmin) listens on the container network for the gateway, matchmaker and workers:
    # never publish it (docker-compose.yml does not; deploy/k8s/ restricts it with a NetworkPolicy)
    export GRPC_ADDR="${GRPC_ADDR:-0.0.0.0:50051}" ADMIN_GRPC_ADDR="${ADMIN_GRPC_ADDR:-0.0.0.0:50052}"
    export METRICS_ADDR="${METRICS_ADDR:-0.0.0.0}"
    exec python -m services.gamestate "$@"
    ;;
  gateway)
    export GATEWAY_HOST="${GATEWAY_HOST:-0.0.0.0}"
    export GATEWAY_METRICS_HOST="${GATEWAY_METRICS_HOST:-0.0.0.0}"
    exec python -m services.gateway "$@"
    ;;
  matchmaker)
    exec python -m services.matchmaker "$@"
    ;;
  outcomes)
    exec python -m services.outcomes "$@"
    ;;
  tournaments)
    exec python -m services.tournament_director "$@"
    ;;
  webhooks)
    exec python -m services.webhooks "$@"
    ;;
  worker)
    # Celery forks its pool: metrics go through prometheus-client's multiprocess files.
    export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/prometheus}" METRICS_ADDR="${METRICS_ADDR:-0.0.0.0}"
    rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
    exec python -m services.workers --name "worker@$(hostname)" --concurrency "${WORKER_CONCURRENCY:-2}" "$@"
    ;;
  exporter)
    export EXPORTER_HOST="${EXPORTER_HOST:-0.0.0.0}"
    exec python -m services.ops_exporter "$@"
    ;;
  healthcheck)
    # healthcheck <grpc|http|celery|redis> <target>; `celery self` pings this container's worker
    if [ "${1:-}" = "celery" ] && [ "${2:-}" = "self" ]; then
      exec python -m services.common.healthcheck celery "worker@$(hostname)"
    fi
    exec python -m services.common.healthcheck "$@"
    ;;
  *)
    echo "usage: entrypoint.sh {gamestate|gateway|matchmaker|outcomes|tournaments|webhooks|worker|exporter|healthcheck} [args]" >&2
    exit 2
    ;;
esac
