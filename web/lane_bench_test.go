package web

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// fillWaiting opens n sessions in 5 projects, of which waiting (one in
// five at most) wait on the human, each since a moment of its own.
func fillWaiting(b testing.TB, e *testEnv, n, waiting int) {
	var evs []state.Event
	tokens := int64(412034)
	now := time.Now()
	asked := 0
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("session-%02d", i)
		evs = append(evs,
			state.Event{Type: "session.opened", Session: id, Cwd: fmt.Sprintf("/home/me/src/project-%d", i%5)},
			state.Event{Type: "session.titled", Session: id, Title: fmt.Sprintf("Refactor the module loader, part %d", i)},
			state.Event{Type: "turn.started", Session: id},
			state.Event{Type: "tool.started", Session: id, Tool: "bash"},
			state.Event{Type: "context.tokens", Session: id, Tokens: &tokens},
		)
		switch {
		case i%5 == 1 && asked < waiting:
			asked++
			evs = append(evs, state.Event{Type: "approval.requested", Session: id, Tool: "pwsh", Reason: "writes outside the workspace",
				At: now.Add(-time.Duration(n-i) * time.Minute).UnixMilli()})
		case i%5 == 2:
			evs = append(evs, state.Event{Type: "tool.ended", Session: id, Tool: "bash", Outcome: "error"})
		case i%5 == 3:
			evs = append(evs, state.Event{Type: "turn.ended", Session: id, Outcome: "completed"})
		}
	}
	if _, err := e.board.Ingest(evs, now); err != nil {
		b.Fatal(err)
	}
	if asked != waiting {
		b.Fatalf("%d wait, want %d", asked, waiting)
	}
}

// BenchmarkRenderBoard40Waiting8 renders the board fragment with 40
// sessions, 8 of them waiting on the human: with the lane, the 8 are drawn
// twice (their entry, their row). docs/bench has it against the board
// before the lane, in one run.
func BenchmarkRenderBoard40Waiting8(b *testing.B) {
	e := newEnv(b, envOpts{})
	fillWaiting(b, e, 40, 8)
	bv, _ := e.hub.Models(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if err := templates.Board(bv).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
