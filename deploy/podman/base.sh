#!/usr/bin/env bash
# Builds the local Debian base image (no registry needed): mmdebstrap --variant=minbase bookworm from this
# machine's apt sources, then `podman import`. Cached: the tag is a hash of this script and the apt sources,
# so it is built once per machine (until either changes). Prints the image reference on stdout.
set -euo pipefail
. "$(dirname "$0")/env.sh"
SUITE="${SKYBOARD_BASE_SUITE:-bookworm}"
hash="$( { cat "$0"; echo "$SUITE"; cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
           /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } | sha256sum | cut -c1-12)"
ref="localhost/skyboard-debian-base:$SUITE-$hash"
if podman image exists "$ref"; then
  echo "base image $ref is cached" >&2
  echo "$ref"; exit 0
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
echo "building $ref with mmdebstrap (about 80 s)" >&2
mmdebstrap --quiet --variant=minbase "$SUITE" "$work/rootfs.tar" >&2
podman import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' "$work/rootfs.tar" "$ref" >&2
echo "$ref"
