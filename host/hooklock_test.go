package host

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// TestBigHookParsedOutsideTheLock: a hook's payload is parsed (mapped) off
// the board's lock, so a small hook beside a big one never waits for its
// parse (issue 19: beside a 6 MiB hook a small one waited 102 ms p99). The
// big hook's parse is held here until the small hook is through: under the
// lock, the small one could never get through.
func TestBigHookParsedOutsideTheLock(t *testing.T) {
	h := newHost(t, t.TempDir())
	small := func(session, event string) {
		t.Helper()
		body := `{"session_id":"` + session + `","cwd":"/src/a","hook_event_name":"` + event + `"}`
		if _, err := h.Hook("claude-code", []byte(body), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	small("big", "SessionStart")
	parsing, release := make(chan struct{}), make(chan struct{})
	slow := func(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
		close(parsing)
		<-release // the parse of megabytes
		return claudecode.Map(payload, lookup)
	}
	done := make(chan error, 1)
	go func() {
		_, _, _, err := h.board.applyHook(slow, []byte(`{"session_id":"big","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt":"go"}`), time.Now())
		done <- err
	}()
	<-parsing
	through := make(chan struct{})
	go func() {
		small("small", "SessionStart")
		small("small", "UserPromptSubmit")
		close(through)
	}()
	select {
	case <-through:
	case <-time.After(5 * time.Second):
		close(release)
		<-done
		t.Fatal("a small hook waited for a big hook's parse: it is parsed under the board's lock")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := rows(t, h)
	if got["big"].Status != state.StatusWorking || got["small"].Status != state.StatusWorking {
		t.Errorf("rows after both: big %+v, small %+v", got["big"], got["small"])
	}
}

// TestHookMappedAgainWhenItsRowMoved: a hook mapped off the lock against a
// row that another hook changed meanwhile is mapped again against the row
// as it is, so it still sees a pending approval exactly as its events will
// find it.
func TestHookMappedAgainWhenItsRowMoved(t *testing.T) {
	h := newHost(t, t.TempDir())
	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("claude-code", []byte(body), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	hook(`{"session_id":"s","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt":"go"}`)
	parsing, release := make(chan struct{}), make(chan struct{})
	calls := 0
	var saw []string
	slow := func(payload []byte, lookup hookjson.Lookup) (hookjson.Mapping, error) {
		calls++
		row, _ := lookup("s") // what the mapping depends on
		saw = append(saw, row.Status)
		if calls == 1 {
			close(parsing)
			<-release
		}
		return claudecode.Map(payload, lookup)
	}
	done := make(chan error, 1)
	go func() {
		_, _, _, err := h.board.applyHook(slow, []byte(`{"session_id":"s","cwd":"/src/a","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}`), time.Now())
		done <- err
	}()
	<-parsing
	hook(`{"session_id":"s","cwd":"/src/a","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make"}}`)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if calls != 2 || saw[1] != state.StatusAttention {
		t.Errorf("mapped %d times, seeing %q; want again, against the row as it moved (attention)", calls, saw)
	}
}

// TestCapDropIsLogged: at the cap, a new session from a hook is taken and
// the row that made room is named in the log.
func TestCapDropIsLogged(t *testing.T) {
	var log strings.Builder
	home := t.TempDir()
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	h := New(Config{StatePath: filepath.Join(home, "state.json"), ManualPath: filepath.Join(home, "manual.json"),
		Log: slog.New(slog.NewJSONHandler(&syncWriter{w: &log}, nil))}, svc)
	var evs []state.Event
	for i := range state.MaxTracked {
		id := fmt.Sprintf("old%d", i)
		evs = append(evs, state.Event{Type: state.TypeSessionOpened, Session: id},
			state.Event{Type: state.TypeTurnEnded, Session: id, Outcome: state.OutcomeCompleted})
	}
	if _, err := h.Board().Ingest(evs, time.Now()); err != nil {
		t.Fatal(err)
	}
	body := `{"session_id":"new","cwd":"/src/a","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make"}}`
	if _, err := h.Hook("claude-code", []byte(body), time.Now()); err != nil {
		t.Fatalf("a new session at the cap: %v", err)
	}
	if s := rows(t, h)["new"]; s.Status != state.StatusAttention {
		t.Errorf("the new session is not on the board: %+v", s)
	}
	if !strings.Contains(log.String(), "old0") || !strings.Contains(log.String(), "dropped") {
		t.Errorf("the drop is not in the log:\n%s", log.String())
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
