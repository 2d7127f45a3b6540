package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
	"github.com/notch-web/notch-web/web/templates"
)

// fill opens n sessions in varied states on the env's board.
func fill(b testing.TB, e *testEnv, n int) {
	var evs []state.Event
	tokens := int64(412034)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("session-%02d", i)
		evs = append(evs,
			state.Event{Type: "session.opened", Session: id, Cwd: fmt.Sprintf("/home/me/src/project-%d", i%5)},
			state.Event{Type: "session.titled", Session: id, Title: fmt.Sprintf("Refactor the module loader, part %d", i)},
			state.Event{Type: "turn.started", Session: id},
			state.Event{Type: "tool.started", Session: id, Tool: "bash"},
			state.Event{Type: "context.tokens", Session: id, Tokens: &tokens},
		)
		switch i % 4 {
		case 1:
			evs = append(evs, state.Event{Type: "approval.requested", Session: id, Tool: "pwsh", Reason: "writes outside the workspace"})
		case 2:
			evs = append(evs, state.Event{Type: "tool.ended", Session: id, Tool: "bash", Outcome: "error"})
		case 3:
			evs = append(evs, state.Event{Type: "turn.ended", Session: id, Outcome: "completed"})
		}
	}
	if _, err := e.board.Ingest(evs, time.Now()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRenderBoard40 renders the board fragment with 40 sessions, as the
// hub does once per change.
func BenchmarkRenderBoard40(b *testing.B) {
	e := newEnv(b, envOpts{})
	fill(b, e, 40)
	bv, _ := e.hub.Models(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if err := templates.Board(bv).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefresh40 is the hub's whole work for one change with 40
// sessions: snapshot, change check, render of both pages, fan-out.
func BenchmarkRefresh40(b *testing.B) {
	e := newEnv(b, envOpts{})
	fill(b, e, 40)
	title := "Refactor the module loader, part 0"
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		e.board.Ingest([]state.Event{{Type: "session.titled", Session: "session-00", Title: fmt.Sprint(title, i)}}, time.Now())
		e.hub.Refresh(time.Now())
	}
}

// BenchmarkSettingsPost is a settings POST end to end over loopback HTTP,
// with the durable write (fsync and rename).
func BenchmarkSettingsPost(b *testing.B) {
	e := newEnv(b, envOpts{})
	client := &http.Client{}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		res, err := client.Post(e.base+"/agents-notch/settings", "application/json", strings.NewReader(fmt.Sprintf(`{"holdMs":%d}`, 500+i%3000)))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatal(res.Status)
		}
	}
}
