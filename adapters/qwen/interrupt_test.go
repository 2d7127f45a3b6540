package qwen

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestInterrupted(t *testing.T) {
	real := func(name string) string { p, _ := filepath.Abs(filepath.Join("testdata", "chats", name)); return p }
	// The real files: the refusal at the confirmation is there; a call
	// still waiting on it, a finished turn and a failed one are not.
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"tui_esc_at_confirmation.jsonl", true},
		{"tui_tool_waiting_confirmation.jsonl", false},
		{"headless_tool_completed.jsonl", false},
		{"tui_error400.jsonl", false},
		{"tui_slow_midturn.jsonl", false},
	} {
		if got := Interrupted(real(tc.file), time.Time{}); got != tc.want {
			t.Errorf("%s: Interrupted = %v, want %v", tc.file, got, tc.want)
		}
	}
	since, _ := time.Parse(time.RFC3339, "2026-12-03T10:00:00Z")
	cancelled := `{"timestamp":"2026-12-03T10:00:05Z","type":"tool_result","toolCallResult":{"status":"cancelled"}}`
	for _, tc := range []struct {
		name, file string
		want       bool
	}{
		{"a refusal, then snapshots", cancelled + "\n" + `{"timestamp":"2026-12-03T10:00:06Z","type":"system","subtype":"ui_telemetry","systemPayload":{}}`, true},
		{"a refusal before the row asked", `{"timestamp":"2026-12-03T09:59:00Z","type":"tool_result","toolCallResult":{"status":"cancelled"}}`, false},
		{"a refusal, then a new prompt", cancelled + "\n" + `{"timestamp":"2026-12-03T10:00:07Z","type":"user"}`, false},
		{"a result that ran", `{"timestamp":"2026-12-03T10:00:05Z","type":"tool_result","toolCallResult":{"status":"success"}}`, false},
		{"garbage", "\x00{\n", false},
	} {
		p := filepath.Join(t.TempDir(), "chat.jsonl")
		os.WriteFile(p, []byte(tc.file+"\n"), 0o644)
		if got := Interrupted(p, since); got != tc.want {
			t.Errorf("%s: Interrupted = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Interrupted(filepath.Join(t.TempDir(), "none"), since) {
		t.Error("a missing file says interrupted")
	}
}

// FuzzInterrupted: a chat file is outside input; Interrupted never panics.
func FuzzInterrupted(f *testing.F) {
	for _, seed := range []string{
		`{"timestamp":"2026-12-03T10:00:05Z","type":"tool_result","toolCallResult":{"status":"cancelled"}}`,
		`{"type":"system"}` + "\n" + `{"type":"tool_result","toolCallResult":7}`,
		"\xff\n[]",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "chat.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		Interrupted(p, time.Time{})
	})
}
