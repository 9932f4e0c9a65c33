# Sourced by the deploy/podman scripts and `make test-deploy`: the podman configuration of the tests.
SKYBOARD_PODMAN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export CONTAINERS_CONF="$SKYBOARD_PODMAN_DIR/containers.conf"
