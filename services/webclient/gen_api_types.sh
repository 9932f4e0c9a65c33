#!/bin/sh
# The web client's types of the gateway's answers (static/js/api-types.d.ts) from the gateway's OpenAPI document,
# view schemas included, with openapi-typescript (pinned in package.json). Run it after a change of the gateway's
# models; tests/webclient/test_js.py fails while the committed file differs from what this writes.
# Usage (from the repository root): services/webclient/gen_api_types.sh [output]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$here/static/js/api-types.d.ts}
doc=$(mktemp --suffix=.json)
trap 'rm -f "$doc"' EXIT
(cd "$root" && "${PYTHON:-$root/.venv/bin/python}" -m services.webclient.openapi_doc) > "$doc"
"$here/node_modules/.bin/openapi-typescript" "$doc" --output "$out" >/dev/null
