#!/usr/bin/env bash
# make update-datastar: fetch the Datastar client from the Go module proxy,
# verify its sha256, and copy it (with its licence) into web/static/vendor/.
# The bundle is committed; this runs only when someone means to refresh it.
set -euo pipefail

module=github.com/starfederation/datastar
version=v1.0.0
# The pinned sha256 lives in one place, web/static's DatastarSHA256, which
# the tests check the committed file against: change it there first.
want=$(sed -n 's/^const DatastarSHA256 = "\([0-9a-f]*\)"$/\1/p' web/static/static.go)
dest=web/static/vendor

sum() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1 || shasum -a 256 "$1" | cut -d' ' -f1; }

dir=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -f "$dir/bundles/datastar.js" ]; then
  echo "update-datastar: could not download $module@$version" >&2
  exit 1
fi
got=$(sum "$dir/bundles/datastar.js")
if [ "$got" != "$want" ]; then
  echo "update-datastar: checksum mismatch for $module@$version bundles/datastar.js: got $got, want $want" >&2
  exit 1
fi
install -m 0644 "$dir/bundles/datastar.js" "$dest/datastar.js"
install -m 0644 "$dir/LICENSE.md" "$dest/datastar.LICENSE.md"
echo "update-datastar: $dest/datastar.js is $module@$version ($want)"
