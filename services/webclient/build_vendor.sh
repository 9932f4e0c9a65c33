#!/bin/sh
# Rebuilds static/vendor/intl-messageformat.js: FormatJS's ICU MessageFormat library (plural, select, number)
# bundled by esbuild into one ES module, so the buildless client imports it with no outside request.
# Run from anywhere with Node.js and npm; it writes the bundle and the licenses of everything bundled.
#   sh services/webclient/build_vendor.sh
set -eu
VERSION=10.7.18   # intl-messageformat; esbuild 0.28.2
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/static/vendor"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
npm init -y >/dev/null
npm install --no-audit --no-fund "intl-messageformat@$VERSION" esbuild@0.28.2 >/dev/null
echo 'export { IntlMessageFormat } from "intl-messageformat";' > entry.js
npx esbuild entry.js --bundle --format=esm --minify --target=es2020 --legal-comments=none \
  --banner:js="/* intl-messageformat $VERSION (FormatJS), bundled with esbuild by services/webclient/build_vendor.sh; BSD-3-Clause, see intl-messageformat.LICENSE */" \
  --outfile="$OUT/intl-messageformat.js"
{
  for p in intl-messageformat @formatjs/icu-messageformat-parser @formatjs/icu-skeleton-parser @formatjs/fast-memoize \
           @formatjs/ecma402-abstract @formatjs/intl-localematcher tslib; do
    v=$(node -p "require('./node_modules/$p/package.json').version")
    echo "==== $p $v ===="
    cat node_modules/$p/LICENSE* 2>/dev/null || true
    echo
  done
} > "$OUT/intl-messageformat.LICENSE"
