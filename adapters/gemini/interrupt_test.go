package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestInterrupted(t *testing.T) {
	since := time.Date(2026, 12, 2, 4, 24, 50, 0, time.UTC)
	info := func(ts, text string) string {
		return `{"id":"x","timestamp":"` + ts + `","type":"info","content":"` + text + `"}`
	}
	// What Gemini CLI 0.61.0 wrote after an Esc at its confirmation: the
	// cancel, then the history rewritten (older messages, new stamps).
	seen := []string{
		`{"id":"a","timestamp":"2026-12-02T04:24:49.392Z","type":"user","content":[{"text":"scenario:tool Create it again."}]}`,
		`{"id":"b","timestamp":"2026-12-02T04:24:49.886Z","type":"gemini","content":"","toolCalls":[{"id":"run_shell_command_1","name":"run_shell_command","status":"cancelled"}]}`,
		info("2026-12-02T04:24:57.933Z", "Request cancelled."),
		`{"$set":{"lastUpdated":"2026-12-02T04:24:57.933Z"}}`,
		`{"id":"c","timestamp":"2026-12-02T04:24:57.933Z","type":"user","content":[{"text":"scenario:tool Create the marker file."}]}`,
		`{"id":"d","timestamp":"2026-12-02T04:24:57.934Z","type":"gemini","content":[{"text":"Done: the stand-in's final answer."}]}`,
		`{"$set":{"messages":[]}}`,
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"Esc at the confirmation, history rewritten after it", seen, true},
		{"the cancel alone", []string{info("2026-12-02T04:24:57Z", "Request cancelled.")}, true},
		{"a cancel before the row entered its status", []string{info("2026-12-02T04:24:40Z", "Request cancelled.")}, false},
		{"another info message", []string{info("2026-12-02T04:24:57Z", "Request cancelled. Or not.")}, false},
		{"a prompt that quotes it", []string{`{"timestamp":"2026-12-02T04:24:57Z","type":"user","content":"Request cancelled."}`}, false},
		{"torn and foreign lines", []string{`{"type":"info","content":"Request cancelled.`, `not json`}, false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session-2026-12-02T04-24-b0e06a66.jsonl")
			os.WriteFile(path, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o600)
			if got := Interrupted(path, since); got != tc.want {
				t.Errorf("Interrupted = %v, want %v", got, tc.want)
			}
		})
	}
	if Interrupted("relative.jsonl", since) || Interrupted("/no/such/file.jsonl", since) {
		t.Error("a path that is not a transcript read as interrupted")
	}
}

func FuzzCancelledIn(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-12-02T04:24:57.933Z","type":"info","content":"Request cancelled."}` + "\n"))
	f.Add([]byte("{\"type\":\"info\"}\n{\n"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		cancelledIn(buf, time.Time{})
	})
}
