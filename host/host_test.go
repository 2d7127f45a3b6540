package host

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

func newHost(t *testing.T, home string) *Host {
	t.Helper()
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	return New(Config{
		StatePath:  filepath.Join(home, "state", "agents-notch", "state.json"),
		ManualPath: filepath.Join(home, "manual.json"),
		Log:        slog.New(slog.DiscardHandler),
	}, svc)
}

func rows(t *testing.T, h *Host) map[string]state.Session {
	t.Helper()
	doc, _ := h.Board().Snapshot(time.Now())
	out := map[string]state.Session{}
	for _, s := range doc.Sessions {
		out[s.ID] = s
	}
	return out
}

func writeState(t *testing.T, path string, d state.Document) {
	t.Helper()
	data, err := state.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A host that starts where its last state.json is recent carries its rows
// on: status, since, colours and counters, and the next event applies.
func TestRestoreFromTheLastStateJSON(t *testing.T) {
	home := t.TempDir()
	now := time.Now()
	since := now.Add(-time.Minute).UnixMilli()
	approved := since + 10
	writeState(t, filepath.Join(home, "state", "agents-notch", "state.json"), state.Document{
		Schema: state.Schema, Plugin: state.Plugin, WallMs: now.Add(-5 * time.Second).UnixMilli(),
		Sessions: []state.Session{
			{ID: "a", Title: "Argon", Project: "argon", Cwd: "/src/argon", Status: state.StatusWorking, Since: since,
				Activity: &state.Activity{Kind: state.ActivityTool, Label: "bash"}, Steps: 4, Identity: "teal", ApprovedAt: &approved, ContextTokens: 5000},
			{ID: "b", Project: "docs", Status: state.StatusAttention, Since: since, Identity: "violet",
				Approval: &state.Approval{ToolName: "pwsh", Reason: "why"}},
			{ID: "b-sub", Status: state.StatusWorking, Since: since, Identity: "violet", Origin: state.OriginSubagent, ParentSession: "b"},
		},
	})
	h := newHost(t, home)
	got := rows(t, h)
	if len(got) != 3 || got["a"].Steps != 4 || got["a"].Since != since || got["a"].Identity != "teal" || got["b"].Approval == nil {
		t.Fatalf("restored rows %+v", got)
	}
	if _, err := h.Board().Ingest([]state.Event{
		{Type: state.TypeToolStarted, Session: "a", Tool: "grep"},
		{Type: state.TypeApprovalResolved, Session: "b", Outcome: state.OutcomeAllowedOnce},
		{Type: state.TypeSessionOpened, Session: "c"},
	}, now); err != nil {
		t.Fatalf("events for restored sessions: %v", err)
	}
	got = rows(t, h)
	if got["a"].Steps != 5 || got["b"].Status != state.StatusWorking {
		t.Errorf("after events: a %+v, b %+v", got["a"], got["b"])
	}
	if got["c"].Identity != "coral" {
		t.Errorf("a new session's colour %q, want coral (after teal, violet)", got["c"].Identity)
	}
}

func TestRestoreSkipsOldOrForeignFiles(t *testing.T) {
	for name, d := range map[string]state.Document{
		"a day old":      {Schema: state.Schema, Plugin: state.Plugin, WallMs: time.Now().Add(-25 * time.Hour).UnixMilli(), Sessions: []state.Session{{ID: "x", Status: "working"}}},
		"another plugin": {Schema: state.Schema, Plugin: "someone-else", WallMs: time.Now().UnixMilli(), Sessions: []state.Session{{ID: "x", Status: "working"}}},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			writeState(t, filepath.Join(home, "state", "agents-notch", "state.json"), d)
			if got := rows(t, newHost(t, home)); len(got) != 0 {
				t.Errorf("restored %v", got)
			}
		})
	}
}

// A hook that names a transcript gets its context tokens, read off the
// hook's path.
func TestHookReadsTranscriptTokens(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	transcript := filepath.Join(home, "s1.jsonl")
	line := `{"type":"assistant","requestId":"r1","message":{"role":"assistant","usage":{"input_tokens":1000,"cache_creation_input_tokens":2000,"cache_read_input_tokens":409034,"output_tokens":50}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Run ends (and its last write of state.json is done) before the
	// temporary home is removed.
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	payload := `{"session_id":"s1","transcript_path":` + strconv.Quote(transcript) + `,"cwd":"/src/x","hook_event_name":"UserPromptSubmit","prompt":"go"}`
	if _, err := h.Hook("claude-code", []byte(payload), time.Now()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for rows(t, h)["s1"].ContextTokens != 412034 {
		if time.Now().After(deadline) {
			t.Fatalf("context tokens %d, want 412034", rows(t, h)["s1"].ContextTokens)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The settle rule through the hook path, across a restart: the agent's
// process ending (SessionEnd) settles each row — done after its Stop, error
// when the turn was still open — and keeps it; a hook that comes late moves
// nothing. A restarted host restores the settled rows as they were. What it
// cannot restore is that the process ended (state.json, a frozen schema,
// has no field for it): a restored settled row is taken as idle, so its
// session's next prompt works it again.
func TestSessionEndSettlesAndSurvivesARestart(t *testing.T) {
	home := t.TempDir()
	h := newHost(t, home)
	now := time.Now()
	hook := func(h *Host, session, event, extra string) {
		t.Helper()
		if extra != "" {
			extra = "," + extra
		}
		body := `{"session_id":"` + session + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
		now = now.Add(time.Second)
		if _, err := h.Hook("claude-code", []byte(body), now); err != nil {
			t.Fatalf("%s %s: %v", session, event, err)
		}
	}
	hook(h, "done", "UserPromptSubmit", `"prompt":"go"`)
	hook(h, "done", "Stop", "")
	hook(h, "done", "SessionEnd", `"reason":"other"`)
	hook(h, "cut", "UserPromptSubmit", `"prompt":"go"`)
	hook(h, "cut", "PermissionRequest", `"tool_name":"Bash","tool_input":{"command":"make"}`)
	hook(h, "cut", "SessionEnd", `"reason":"other"`)
	// Late: a permission notification and a prompt after the end.
	hook(h, "done", "Notification", `"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"`)
	hook(h, "cut", "UserPromptSubmit", `"prompt":"late"`)
	got := rows(t, h)
	if got["done"].Status != state.StatusDone || got["cut"].Status != state.StatusError || got["cut"].Approval != nil {
		t.Fatalf("after the ends and the late hooks: done %+v, cut %+v", got["done"], got["cut"])
	}

	doc, _ := h.Board().Snapshot(now)
	doc.WallMs = now.UnixMilli()
	writeState(t, filepath.Join(home, "state", "agents-notch", "state.json"), doc)
	h2 := newHost(t, home)
	got = rows(t, h2)
	if got["done"].Status != state.StatusDone || got["cut"].Status != state.StatusError {
		t.Fatalf("restored: done %+v, cut %+v", got["done"], got["cut"])
	}
	hook(h2, "done", "UserPromptSubmit", `"prompt":"again"`)
	if s := rows(t, h2)["done"]; s.Status != state.StatusWorking {
		t.Fatalf("a restored settled row's next prompt: %+v", s)
	}
}

// A second "make run" (the demo, on the same DSH home) showed each demo
// session twice for a moment: the last run's, restored, beside the new
// run's. The demo's rows are not restored; real sessions beside them are.
func TestDemoRowsAreNotRestored(t *testing.T) {
	home := t.TempDir()
	now := time.Now()
	writeState(t, filepath.Join(home, "state", "agents-notch", "state.json"), state.Document{
		Schema: state.Schema, Plugin: state.Plugin, WallMs: now.Add(-time.Second).UnixMilli(),
		Sessions: []state.Session{
			{ID: "demo-3-argon", Status: state.StatusWorking, Since: now.UnixMilli(), Identity: "teal"},
			{ID: "real", Status: state.StatusDone, Since: now.UnixMilli(), Identity: "violet"},
		},
	})
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	h := New(Config{
		StatePath:  filepath.Join(home, "state", "agents-notch", "state.json"),
		ManualPath: filepath.Join(home, "manual.json"),
		Demo:       true,
		Log:        slog.New(slog.DiscardHandler),
	}, svc)
	got := rows(t, h)
	if _, ok := got["demo-3-argon"]; ok || len(got) != 1 || got["real"].ID == "" {
		t.Fatalf("restored under --demo: %v", got)
	}
	if n := len(rows(t, newHost(t, home))); n != 2 {
		t.Fatalf("restored without --demo: %d rows, want 2", n)
	}
}
