package web

import (
	"bytes"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/htmldiff"
	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// The hub's diff, on real renders of the board: patching the old board with
// the parts gives the new one, and a one-row change costs about a row.
func TestDeltaPatchesTurnTheOldBoardIntoTheNew(t *testing.T) {
	tokens := int64(900000)
	tests := []struct {
		name     string
		events   []state.Event
		smallest bool // the patch must be smaller than the page
	}{
		{"a title changes", []state.Event{{Type: "session.titled", Session: "session-03", Title: "A new title"}}, true},
		{"a tool starts", []state.Event{{Type: "tool.started", Session: "session-04", Tool: "grep"}}, true},
		{"context grows past hotAt", []state.Event{{Type: "context.tokens", Session: "session-02", Tokens: &tokens}}, true},
		{"an approval is asked", []state.Event{{Type: "approval.requested", Session: "session-08", Tool: "rm", Reason: "deletes files"}}, false},
		{"a session opens", []state.Event{{Type: "session.opened", Session: "zz-new", Cwd: "/x/y"}}, false},
		{"a session finishes", []state.Event{{Type: "session.finished", Session: "session-05"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOpts{patch: "- id: agents-notch\n  config:\n    context: {budget: 1000000, hotAt: 0.5}\n"})
			fill(t, e, 12)
			now := time.Now()
			bv, _ := e.hub.Models(now)
			before, _ := renderHTML(templates.Board(bv))
			if _, err := e.board.Ingest(tt.events, now); err != nil {
				t.Fatal(err)
			}
			bv, _ = e.hub.Models(now)
			after, _ := renderHTML(templates.Board(bv))
			parts, _ := htmldiff.Diff(before, nil, after)
			if parts == nil {
				if tt.smallest {
					t.Fatalf("no piecewise patch for a one-row change")
				}
				return // the whole board is sent: correct by construction
			}
			got, err := htmldiff.Apply(before, parts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, after) {
				t.Fatalf("patching did not give the new board:\n got %s\nwant %s", got, after)
			}
			if n := len(htmldiff.Join(parts)); tt.smallest && n >= len(after)/3 {
				t.Errorf("the patch is %d bytes for a %d-byte board", n, len(after))
			}
		})
	}
}
