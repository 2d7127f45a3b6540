package host

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

func newTestBoard() *Board {
	return NewBoard(BoardConfig{}, false, settings.NewService(settings.Options{}))
}

func ingest(t *testing.T, b *Board, evs ...state.Event) {
	t.Helper()
	if _, err := b.Ingest(evs, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// A row's history keeps its last HistoryLen events, newest first; a
// context count is not an event of it.
func TestHistoryRing(t *testing.T) {
	b := newTestBoard()
	ingest(t, b, state.Event{Type: state.TypeSessionOpened, Session: "s", Cwd: "/src/a", At: 1000}, state.Event{Type: state.TypeTurnStarted, Session: "s", At: 1001})
	tokens := int64(5)
	for i := 0; i < 70; i++ {
		at := int64(2000 + 2*i)
		ingest(t, b,
			state.Event{Type: state.TypeToolStarted, Session: "s", Tool: fmt.Sprintf("tool-%d", i), At: at},
			state.Event{Type: state.TypeContextTokens, Session: "s", Tokens: &tokens, At: at},
			state.Event{Type: state.TypeToolEnded, Session: "s", Tool: fmt.Sprintf("tool-%d", i), Outcome: state.OutcomeOK, At: at + 1})
	}
	h, ok := b.History("s")
	if !ok || len(h) != HistoryLen {
		t.Fatalf("history: %d entries (ok %v), want %d", len(h), ok, HistoryLen)
	}
	if h[0] != (HistoryEntry{AtMs: 2139, What: "tool ended", Tool: "tool-69", Outcome: "ok"}) {
		t.Errorf("newest %+v", h[0])
	}
	if last := h[HistoryLen-1]; last.Tool != "tool-45" || last.What != "tool started" {
		t.Errorf("oldest kept %+v, want tool-45 started", last)
	}
	for i := 1; i < len(h); i++ {
		if h[i].AtMs > h[i-1].AtMs {
			t.Fatalf("not newest first at %d: %+v after %+v", i, h[i], h[i-1])
		}
	}
}

// The history lives as long as the row: retired or finished, it is gone,
// and a row reopened under the same id starts afresh; rows restored from
// state.json start with none; a row the board does not hold has none.
func TestHistoryLifecycle(t *testing.T) {
	b := newTestBoard()
	open := func(id string) {
		ingest(t, b, state.Event{Type: state.TypeSessionOpened, Session: id, Cwd: "/src/a"}, state.Event{Type: state.TypeTurnStarted, Session: id})
	}
	open("a")
	open("b")
	b.setWhere("a", terminal.Where{KittyWindow: "3"})
	if h, _ := b.History("a"); len(h) != 2 {
		t.Fatalf("a: %+v", h)
	}
	b.Retire("a")
	if _, ok := b.History("a"); ok {
		t.Error("a retired row still has a history")
	}
	if len(b.hist) != 1 || len(b.facts) != 0 {
		t.Errorf("kept beside the rows after a retire: %d histories, %d terminals", len(b.hist), len(b.facts))
	}
	ingest(t, b, state.Event{Type: state.TypeSessionFinished, Session: "b"})
	open("b")
	if h, _ := b.History("b"); len(h) != 2 || h[1].What != "session opened" {
		t.Errorf("a reopened row's history: %+v, want its two new events", h)
	}
	if _, ok := b.History("nobody"); ok {
		t.Error("a row the board never held has a history")
	}

	// Restored rows (a restart): there, with nothing behind them.
	r := newTestBoard()
	doc, _ := b.Snapshot(time.Now())
	if n := r.restore(doc); n == 0 {
		t.Fatal("nothing restored")
	}
	if h, ok := r.History("b"); !ok || len(h) != 0 {
		t.Errorf("a restored row's history: %+v (ok %v), want empty", h, ok)
	}
}

// Strings are the row's own text rule, bounded: control and bidi
// characters are seen as U+FFFD, a long tool name is cut.
func TestHistoryHostileStrings(t *testing.T) {
	b := newTestBoard()
	ingest(t, b, state.Event{Type: state.TypeSessionOpened, Session: "s", Cwd: "/src/a"})
	b.mu.Lock()
	b.recordLocked([]state.Event{
		{Type: state.TypeToolStarted, Session: "s", Tool: "rm\x1b[2J\u202e<script>", At: 5},
		{Type: state.TypeToolEnded, Session: "s", Tool: strings.Repeat("x", 1<<20), Outcome: "ok\n\u2066", At: 6},
		{Type: state.TypeToolEnded, Session: "other", Tool: "t", At: 7}, // a row the fold does not hold
	})
	b.mu.Unlock()
	h, _ := b.History("s")
	if len(h) != 3 {
		t.Fatalf("%d entries: %+v", len(h), h)
	}
	if h[1].Tool != "rm\uFFFD[2J\uFFFD<script>" {
		t.Errorf("tool %q", h[1].Tool)
	}
	if len(h[0].Tool) > maxHistoryText || !strings.HasSuffix(h[0].Tool, "…") || h[0].Outcome != "ok\uFFFD\uFFFD" {
		t.Errorf("bounded entry: %d bytes, outcome %q", len(h[0].Tool), h[0].Outcome)
	}
	if _, ok := b.hist["other"]; ok {
		t.Error("a history was started for a row the fold does not hold")
	}
}
