package copilot

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
)

// events is a session file as Copilot CLI 1.0.102 writes it (abridged from
// a recorded one): a turn's usage, a subagent's usage after it, an abort,
// then a failed turn.
const events = `{"type":"session.start","data":{"sessionId":"s","copilotVersion":"1.0.102"},"id":"1","timestamp":"2026-12-03T16:48:44.444Z","parentId":null}
{"type":"user.message","data":{"content":"go"},"id":"2","timestamp":"2026-12-03T16:49:02.243Z"}
{"type":"session.usage_record","data":{"usage":{"model":"m","inputTokens":2000,"outputTokens":12,"cacheReadTokens":300,"cacheWriteTokens":40,"maxPromptTokens":128000,"initiator":"user"}},"id":"3","timestamp":"2026-12-03T16:49:02.396Z"}
{"type":"session.usage_record","data":{"usage":{"model":"m","inputTokens":9000,"outputTokens":12,"cacheReadTokens":0,"cacheWriteTokens":0,"maxPromptTokens":64000,"initiator":"sub-agent"}},"id":"4","timestamp":"2026-12-03T16:49:03.000Z","agentId":"a"}
{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"5","timestamp":"2026-12-03T16:49:08.041Z"}
{"type":"abort","data":{"reason":"user_initiated"},"id":"6","timestamp":"2026-12-03T16:49:08.043Z"}
{"type":"session.error","data":{"errorType":"query","message":"400 bad request","statusCode":400},"id":"7","timestamp":"2026-12-03T16:49:18.689Z"}
`

func writeEvents(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func at(s string) time.Time {
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestTokens(t *testing.T) {
	p := writeEvents(t, events)
	if n, ok := Tokens(hookjson.Transcript{Path: p, Session: "s"}); !ok || n != 2340 {
		t.Errorf("Tokens = %d, %v; want 2340 (the session's own call, cached input too, not the subagent's)", n, ok)
	}
	for name, s := range map[string]string{
		"none":     `{"type":"user.message","data":{},"timestamp":"2026-12-03T16:49:02.243Z"}` + "\n",
		"negative": `{"type":"session.usage_record","data":{"usage":{"inputTokens":-5,"initiator":"user"}}}` + "\n",
		"zero":     `{"type":"session.usage_record","data":{"usage":{"inputTokens":0,"initiator":"user"}}}` + "\n",
		"not json": `{"type":"session.usage_record",` + "\n",
	} {
		if n, ok := Tokens(hookjson.Transcript{Path: writeEvents(t, s)}); ok {
			t.Errorf("%s: Tokens = %d, true", name, n)
		}
	}
	if n, ok := Window(hookjson.Transcript{Path: p}); !ok || n != 128000 {
		t.Errorf("Window = %d, %v; want 128000 (the session's own, not the subagent's)", n, ok)
	}
	if n, ok := Window(hookjson.Transcript{Path: writeEvents(t, `{"type":"session.usage_record","data":{"usage":{"inputTokens":5,"initiator":"user"}}}`+"\n")}); ok {
		t.Errorf("Window without maxPromptTokens = %d, true", n)
	}
	if _, ok := Tokens(hookjson.Transcript{Path: "relative/events.jsonl"}); ok {
		t.Error("a relative path was read")
	}
}

func TestInterruptedAndFailed(t *testing.T) {
	p := writeEvents(t, events)
	for _, tc := range []struct {
		name  string
		f     func(string, time.Time) bool
		since string
		want  bool
	}{
		{"abort after the turn began", Interrupted, "2026-12-03T16:49:02.000Z", true},
		{"abort at since", Interrupted, "2026-12-03T16:49:08.043Z", true},
		{"abort before the turn began", Interrupted, "2026-12-03T16:49:10.000Z", false},
		{"error after the turn began", Failed, "2026-12-03T16:49:18.000Z", true},
		{"error before", Failed, "2026-12-03T16:50:00.000Z", false},
	} {
		if got := tc.f(p, at(tc.since)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	sub := writeEvents(t, `{"type":"abort","data":{"reason":"user_initiated"},"timestamp":"2026-12-03T16:49:08.043Z","agentId":"a"}`+"\n")
	if Interrupted(sub, at("2026-12-03T16:49:00Z")) {
		t.Error("a subagent's abort ended the session's turn")
	}
	if Interrupted(filepath.Join(t.TempDir(), "missing.jsonl"), time.Time{}) {
		t.Error("a missing file says interrupted")
	}
}

func TestSessionFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("COPILOT_HOME", dir)
	if got, want := SessionFile("49e8fee9-f026-4570-8ff4-6f2e7281d855"), filepath.Join(dir, "session-state", "49e8fee9-f026-4570-8ff4-6f2e7281d855", "events.jsonl"); got != want {
		t.Errorf("SessionFile = %q, want %q", got, want)
	}
	for _, id := range []string{"", "..", "../x", "a/b", `a\b`, "a b", "\u202e", string(make([]byte, 200))} {
		if got := SessionFile(id); got != "" {
			t.Errorf("SessionFile(%q) = %q, want none", id, got)
		}
	}
	t.Setenv("COPILOT_HOME", "relative")
	t.Setenv("HOME", dir)
	if got, want := SessionFile("s"), filepath.Join(dir, ".copilot", "session-state", "s", "events.jsonl"); got != want {
		t.Errorf("a relative COPILOT_HOME: %q, want %q", got, want)
	}
}
