// Package static embeds what the pages load: the stylesheet (notch.css),
// the page script (notch.js), the app's icons (drawn by scripts/icons) and,
// under vendor/, the pinned Datastar 1.0.0 client with its licence. They are
// served under /agents-notch/static/. The service worker (sw.js), which
// shows the pushes, is served at /agents-notch/sw.js for its scope.
package static

import "embed"

// FS holds the static files.
//
//go:embed *.css *.js *.svg *.png vendor
var FS embed.FS

// DatastarSHA256 is the sha256 of vendor/datastar.js: Datastar 1.0.0's
// bundles/datastar.js, as the Go module proxy serves it.
const DatastarSHA256 = "e7d6ad0e83980b37706f4494a36db3c58b5dc6cd5a9e5bd5166dbffa6b56a06a"
