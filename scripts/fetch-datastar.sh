#!/usr/bin/env bash
# Fetches the Datastar 1.0.0 client from the Go module proxy, verifies its
# sha256 and copies it into web/static/vendor/. Third-party code is never
# committed; this runs before every build.
set -euo pipefail

module=github.com/starfederation/datastar
version=v1.0.0
want=e7d6ad0e83980b37706f4494a36db3c58b5dc6cd5a9e5bd5166dbffa6b56a06a
dest=web/static/vendor/datastar.js

sum() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1 || shasum -a 256 "$1" | cut -d' ' -f1; }

if [ -f "$dest" ] && [ "$(sum "$dest")" = "$want" ]; then
  exit 0
fi
dir=$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$dir" ] || [ ! -f "$dir/bundles/datastar.js" ]; then
  echo "fetch-datastar: could not download $module@$version" >&2
  exit 1
fi
got=$(sum "$dir/bundles/datastar.js")
if [ "$got" != "$want" ]; then
  echo "fetch-datastar: checksum mismatch for $module@$version bundles/datastar.js: got $got, want $want" >&2
  exit 1
fi
mkdir -p "$(dirname "$dest")"
install -m 0644 "$dir/bundles/datastar.js" "$dest"
echo "fetch-datastar: $dest verified ($want)"
