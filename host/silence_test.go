package host

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// A hook channel gone silent while Claude Code works: its status file says
// busy, and no hook came in the minute since it went busy. It is said
// beside the row (OnSilence), the row keeps what the hooks said; a hook
// heard again ends it. The clock is the test's: checkSilence is what the
// state.json beat calls.
func TestSilentHookChannel(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	config := filepath.Join(home, ".claude")
	transcript := filepath.Join(config, "projects", "-src-x", "s1.jsonl")
	os.MkdirAll(filepath.Dir(transcript), 0o755)
	os.MkdirAll(filepath.Join(config, "sessions"), 0o755)
	os.WriteFile(transcript, nil, 0o644)
	var mu sync.Mutex
	var said [][]Silence
	h.OnSilence(func(s []Silence) { mu.Lock(); said = append(said, s); mu.Unlock() })
	last := func() []Silence {
		mu.Lock()
		defer mu.Unlock()
		if len(said) == 0 {
			return nil
		}
		return said[len(said)-1]
	}
	calls := func() int { mu.Lock(); defer mu.Unlock(); return len(said) }

	t0 := time.Now().Add(time.Second) // after the host's start
	base := `"session_id":"s1","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x"`
	hook := func(body string, at time.Time) {
		t.Helper()
		if _, err := h.Hook("claude-code", []byte("{"+base+","+body+"}"), at); err != nil {
			t.Fatal(err)
		}
	}
	hook(`"hook_event_name":"Stop"`, t0.Add(-time.Second))
	status := func(s string, at time.Time) {
		os.WriteFile(filepath.Join(config, "sessions", "4242.json"),
			[]byte(`{"pid":4242,"sessionId":"s1","status":"`+s+`","statusUpdatedAt":`+strconv.FormatInt(at.UnixMilli(), 10)+`}`), 0o644)
	}
	// The next prompt's hook never arrives: the status file alone says so.
	status("busy", t0)
	before := rows(t, h)["s1"]

	for _, c := range []struct {
		name  string
		at    time.Duration
		calls int
		rows  int
	}{
		{"half a minute", 30 * time.Second, 0, 0},
		{"within the look's gap", 34 * time.Second, 0, 0},
		{"a minute", SilentAfter + time.Second, 1, 1},
		{"the same, later", SilentAfter + 10*time.Second, 1, 1},
	} {
		h.checkSilence(t0.Add(c.at))
		if calls() != c.calls || len(last()) != c.rows {
			t.Fatalf("%s: said %d times, last %v; want %d times, %d rows", c.name, calls(), last(), c.calls, c.rows)
		}
	}
	if s := last()[0]; s.Agent != "claude-code" || s.Session != "s1" || !s.Since.Equal(time.UnixMilli(t0.UnixMilli())) {
		t.Errorf("the silence says %+v", s)
	}
	if got := rows(t, h)["s1"]; got.Status != before.Status || got.Since != before.Since {
		t.Errorf("the silence changed the row: %+v, was %+v", got, before)
	}
	// The connection is back: a hook of the session ends the word.
	hook(`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}`, t0.Add(SilentAfter+11*time.Second))
	h.checkSilence(t0.Add(SilentAfter + 12*time.Second))
	if calls() != 2 || len(last()) != 0 {
		t.Fatalf("after a hook: said %d times, last %v; want the silence gone", calls(), last())
	}
	// Busy since before this host started (a long tool call across a
	// restart): no hook could have been heard, nothing is said.
	status("busy", time.Now().Add(-time.Hour))
	h.checkSilence(t0.Add(10 * time.Minute))
	if calls() != 2 {
		t.Errorf("a busy status older than the host: said %v", last())
	}
}
