// Package static embeds the pages' stylesheet, script and icons, and the
// Datastar client that the build fetches and checksum-verifies into
// vendor/ (never committed). The icons are drawn by scripts/icons.
package static

import "embed"

// FS holds the static files, served under /agents-notch/static/.
//
//go:embed *.css *.js *.svg *.png vendor
var FS embed.FS
