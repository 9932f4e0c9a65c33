#!/usr/bin/env bash
# Builds the images `make test-deploy` runs, with podman and no registry:
#   skyboard:latest        deploy/Dockerfile on the local Debian base (BASE_IMAGE build argument)
#   skyboard-infra:latest  Debian's redis-server, redis-sentinel, haproxy and prometheus on the same base
#                          (stand-ins for the redis, haproxy and prom/prometheus images compose names)
# pip inside the build trusts what the host trusts: the host's CA bundle and a pip.conf naming it (plus the
# host's /etc/pip.conf settings and /etc/xdg/pip) are mounted into the build only (`podman build -v`), so
# nothing of them stays in the image.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
. "$here/env.sh"
base="$("$here/base.sh")"
# a fixed place for the generated pip.conf: the mount's source path is part of the build cache's key
work="${XDG_CACHE_HOME:-$HOME/.cache}/skyboard-build"; mkdir -p "$work"
mounts=()
ca=/etc/ssl/certs/ca-certificates.crt
# mounted beside, not over, the image's own bundle: Debian's ca-certificates (pulled in by python3-venv)
# rewrites /etc/ssl/certs/ca-certificates.crt while it installs
ca_in_build=/etc/skyboard-build/ca-certificates.crt
if [ -f "$ca" ]; then
  python3 - "$work/pip.conf" "$ca_in_build" <<'PY'
import configparser, sys
out, ca = sys.argv[1:]
conf = configparser.ConfigParser()
conf.read("/etc/pip.conf")  # the host's index settings, if any
if not conf.has_section("global"):
    conf.add_section("global")
conf.set("global", "cert", ca)
with open(out, "w") as f:
    conf.write(f)
PY
  mounts+=(-v "$ca:$ca_in_build:ro" -v "$work/pip.conf:/etc/pip.conf:ro")
fi
[ -d /etc/xdg/pip ] && mounts+=(-v "/etc/xdg/pip:/etc/xdg/pip:ro")
cd "$root"
echo "building skyboard:latest on $base" >&2
podman build -q "${mounts[@]}" --build-arg "BASE_IMAGE=$base" -f deploy/Dockerfile -t skyboard:latest . >&2
echo "building skyboard-infra:latest on $base" >&2
podman build -q --build-arg "BASE_IMAGE=$base" -f deploy/podman/Containerfile.infra -t skyboard-infra:latest \
  deploy/podman >&2
