// Package templates holds the templ components of notch-web's two live
// pages: the board (the folded tab and its rows, mirroring the desktop
// overlay) and the Settings pane. Components take view models and never do
// I/O; the hub renders each once per change and sends the same bytes to every
// open tab.
package templates

import (
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// BoardView is what the board page draws.
type BoardView struct {
	// Doc is the schema-4 snapshot, exactly as state.json carries it.
	Doc state.Document
	// Unknown is rule 3: the host's heartbeat is stale (follow mode) or no
	// document has been read yet. The page then shows the unknown state,
	// never the last summary as though it were current.
	Unknown bool
	// Follow is true when the board mirrors another host's state.json.
	Follow bool
	// NowMs is the server's clock at render, for relative times; the page
	// ticks them on the client from there.
	NowMs int64
}

// PaneView is what the Settings pane draws.
type PaneView struct {
	View    settings.View
	Summary state.Summary
	Unknown bool
}
