package gemini

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// The transcripts in testdata/chats are real, from Gemini CLI 0.61.0
// against the stand-in model API (long strings trimmed).
func TestSettledRealChats(t *testing.T) {
	for _, tc := range []struct {
		file    string
		outcome string // "": the turn is open (or cannot be told)
	}{
		{"headless_plain_completed.jsonl", state.OutcomeCompleted},
		{"tui_plain_completed.jsonl", state.OutcomeCompleted},
		{"tui_tool_allowed_completed.jsonl", state.OutcomeCompleted},
		{"tui_error400.jsonl", state.OutcomeError},
		{"tui_esc_midturn_interrupted.jsonl", state.OutcomeCompleted},
		// After an Esc at the confirmation Gemini re-appends the turn's
		// records, the reply's text included: it has ended.
		{"tui_esc_at_confirmation.jsonl", state.OutcomeCompleted},
		{"tui_slow_midturn.jsonl", ""},
		{"headless_slow_midturn.jsonl", ""},
		{"tui_tool_waiting_confirmation.jsonl", ""},
		// Headless, a failed request only drops the prompt from the
		// history ($set): the file cannot say; the process's exit does.
		{"headless_error400.jsonl", ""},
		{"headless_sigint_after.jsonl", ""},
	} {
		path, _ := filepath.Abs(filepath.Join("testdata", "chats", tc.file))
		got, ok := Settled(path, time.Time{})
		if ok != (tc.outcome != "") || got != tc.outcome {
			t.Errorf("%s: Settled = %q, %v; want %q", tc.file, got, ok, tc.outcome)
		}
	}
}

func TestSettled(t *testing.T) {
	since, _ := time.Parse(time.RFC3339, "2026-12-03T10:00:00Z")
	rec := func(ts, typ, content string) string {
		return `{"id":"x","timestamp":"` + ts + `","type":"` + typ + `","content":` + content + `}`
	}
	set := `{"$set":{"lastUpdated":"2026-12-03T10:00:09Z"}}`
	for _, tc := range []struct{ name, file, outcome string }{
		{"a reply of an older turn", rec("2026-12-03T09:59:00Z", "gemini", `"hi"`), ""},
		{"a reply as parts", rec("2026-12-03T10:00:01Z", "gemini", `[{"text":"hi"}]`) + "\n" + set, state.OutcomeCompleted},
		{"a call still running", `{"id":"x","timestamp":"2026-12-03T10:00:01Z","type":"gemini","content":"let me","toolCalls":[{"status":"executing"}]}`, ""},
		{"all calls done", `{"id":"x","timestamp":"2026-12-03T10:00:01Z","type":"gemini","content":"done","toolCalls":[{"status":"success"}]}`, state.OutcomeCompleted},
		{"an error under a note", rec("2026-12-03T10:00:01Z", "error", `"[API Error]"`) + "\n" + rec("2026-12-03T10:00:01Z", "info", `"This request failed."`), state.OutcomeError},
		{"markup and control characters are only text", rec("2026-12-03T10:00:01Z", "gemini", `"<script>\u001b[2J"`), state.OutcomeCompleted},
		{"garbage", "{\n\"$set\n", ""},
	} {
		p := filepath.Join(t.TempDir(), "chat.jsonl")
		os.WriteFile(p, []byte(tc.file+"\n"), 0o644)
		got, ok := Settled(p, since)
		if ok != (tc.outcome != "") || got != tc.outcome {
			t.Errorf("%s: Settled = %q, %v; want %q", tc.name, got, ok, tc.outcome)
		}
	}
}
