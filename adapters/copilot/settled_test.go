package copilot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// TestSettled reads how a session's latest turn ended from real session
// files: testdata/sessions/turn_ended.jsonl is Copilot CLI 1.0.102's file
// of a TUI turn that ended while no host listened (its Stop ran into
// nothing), and the others are it cut or carried on as Copilot writes them.
func TestSettled(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("testdata", "sessions", "turn_ended.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(real), "\n")
	upTo := func(typ string) string { // the file before its first line of typ
		for i, l := range lines {
			if strings.Contains(l, `"type":"`+typ+`"`) || strings.Contains(l, `"hookType":"`+typ+`"`) {
				return strings.Join(lines[:i], "")
			}
		}
		t.Fatalf("no %s line", typ)
		return ""
	}
	prompt := at("2026-12-07T12:51:08.000Z") // the row's since: its prompt hook
	line := func(typ, extra, ts string) string {
		return `{"type":"` + typ + `","data":{` + extra + `},"id":"x","timestamp":"` + ts + `"` + "}\n"
	}
	for _, c := range []struct {
		name    string
		file    string
		since   time.Time
		outcome string // "" is not ok
	}{
		{"the turn's Stop ran", string(real), prompt, state.OutcomeCompleted},
		{"the Stop is older than since", string(real), at("2026-12-07T12:52:00Z"), ""},
		{"the model answered, no Stop yet", upTo("agentStop"), prompt, ""},
		{"mid-turn: a model call out", upTo("session.usage_record"), prompt, ""},
		{"the prompt alone", upTo("system.message"), prompt, ""},
		{"aborted", upTo("assistant.message") + line("abort", `"reason":"user_initiated"`, "2026-12-07T12:51:09.500Z"), prompt, state.OutcomeCompleted},
		{"failed", upTo("assistant.message") + line("session.error", `"errorType":"query","statusCode":400`, "2026-12-07T12:51:09.500Z"), prompt, state.OutcomeError},
		{"a new prompt after the Stop", string(real) + line("user.message", `"content":"again"`, "2026-12-07T12:51:20.000Z"), prompt, ""},
		{"a subagent's stop is not the turn's", upTo("assistant.message") +
			`{"type":"hook.start","data":{"hookType":"agentStop"},"id":"y","timestamp":"2026-12-07T12:51:09.600Z","agentId":"sub"}` + "\n", prompt, ""},
		{"another hook is no end", upTo("assistant.message") + line("hook.start", `"hookType":"postToolUse"`, "2026-12-07T12:51:09.600Z"), prompt, ""},
		{"not JSON", "{\"type\":\n", prompt, ""},
		{"empty", "", prompt, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "events.jsonl")
			if err := os.WriteFile(p, []byte(c.file), 0o600); err != nil {
				t.Fatal(err)
			}
			got, ok := Settled("b36f4565-ace9-4b68-87a8-490269eaf938", p, c.since)
			if (c.outcome != "") != ok || got != c.outcome {
				t.Errorf("Settled = %q, %v; want %q", got, ok, c.outcome)
			}
		})
	}
}

// With no transcript named (no Stop reached a host in the session's first
// turn), Settled finds the session's file where Copilot keeps it.
func TestSettledFindsTheSessionFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("COPILOT_HOME", home)
	session := "b36f4565-ace9-4b68-87a8-490269eaf938"
	real, err := os.ReadFile(filepath.Join("testdata", "sessions", "turn_ended.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "session-state", session)
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), real, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := Settled(session, "", at("2026-12-07T12:51:08Z")); !ok || got != state.OutcomeCompleted {
		t.Errorf("Settled by the session's id = %q, %v", got, ok)
	}
	for _, s := range []string{"", "../x", "another-session"} {
		if got, ok := Settled(s, "", at("2026-12-07T12:51:08Z")); ok {
			t.Errorf("Settled(%q) = %q, true", s, got)
		}
	}
}

// FuzzSettled: a session file is the agent's, outside input.
func FuzzSettled(f *testing.F) {
	for _, seed := range []string{
		`{"type":"hook.start","data":{"hookType":"agentStop"},"timestamp":"2026-12-07T12:51:10.496Z"}` + "\n", // the Stop's record
		`{"type":"abort","data":{"reason":"user_initiated"},"timestamp":"2026-12-07T12:51:10Z"}` + "\n",       // interrupted
		`{"type":"session.error","data":{},"timestamp":"x"}` + "\n",                                           // a bad time
		`{"type":"user.message","data":[]}` + "\n",                                                            // a wrong type
		"{\"type\"\n\n", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "events.jsonl")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if o, ok := Settled("s", p, time.Time{}); ok != (o != "") || (ok && o != state.OutcomeCompleted && o != state.OutcomeError) {
			t.Fatalf("Settled = %q, %v", o, ok)
		}
	})
}
