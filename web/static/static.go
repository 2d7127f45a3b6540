// Package static embeds the pages' stylesheet, scripts and icons, and the
// Datastar client that the build fetches and checksum-verifies into
// vendor/ (never committed).
package static

import "embed"

// FS holds the static files, served under /agents-notch/static/.
//
//go:embed *.css *.js vendor
var FS embed.FS
