package codex

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// The rollouts in testdata/rollouts are real, from Codex 0.169.0 against
// the stand-in model API (long strings trimmed).
func TestSettledRealRollouts(t *testing.T) {
	long := time.Time{}
	for _, tc := range []struct {
		file    string
		outcome string // "": the turn is open
	}{
		{"headless_plain_completed.jsonl", state.OutcomeCompleted},
		{"tui_plain_completed.jsonl", state.OutcomeCompleted},
		{"tui_tool_approved_completed.jsonl", state.OutcomeCompleted},
		{"headless_error400.jsonl", state.OutcomeError},
		{"tui_error400.jsonl", state.OutcomeError},
		{"tui_esc_midturn_interrupted.jsonl", state.OutcomeCompleted},
		{"tui_esc_at_approval.jsonl", state.OutcomeCompleted},
		{"headless_sigint_interrupted.jsonl", state.OutcomeCompleted},
		{"headless_slow_midturn.jsonl", ""},
		{"tui_slow_midturn.jsonl", ""},
		{"tui_tool_waiting_approval.jsonl", ""},
	} {
		path, _ := filepath.Abs(filepath.Join("testdata", "rollouts", tc.file))
		got, ok := Settled(path, long)
		if ok != (tc.outcome != "") || got != tc.outcome {
			t.Errorf("%s: Settled = %q, %v; want %q", tc.file, got, ok, tc.outcome)
		}
	}
}

func TestSettled(t *testing.T) {
	at := func(ts, typ, extra string) string {
		return `{"timestamp":"` + ts + `","type":"event_msg","payload":{"type":"` + typ + `"` + extra + `}}`
	}
	since, _ := time.Parse(time.RFC3339, "2026-12-03T10:00:00Z")
	for _, tc := range []struct {
		name, file, outcome string
	}{
		{"an end before the row's since is an older turn's", at("2026-12-03T09:59:00Z", "task_complete", ""), ""},
		{"an end after it", at("2026-12-03T10:00:01Z", "task_complete", `,"error":null`), state.OutcomeCompleted},
		{"an error", at("2026-12-03T10:00:01Z", "task_complete", `,"error":{"message":"x"}`), state.OutcomeError},
		{"a new turn after the end", at("2026-12-03T10:00:01Z", "task_complete", "") + "\n" + at("2026-12-03T10:00:02Z", "task_started", ""), ""},
		{"token counts after the end do not matter", at("2026-12-03T10:00:01Z", "turn_aborted", "") + "\n" + at("2026-12-03T10:00:02Z", "token_count", ""), state.OutcomeCompleted},
		{"garbage", "not json \"event_msg\"\n{", ""},
	} {
		p := filepath.Join(t.TempDir(), "rollout.jsonl")
		os.WriteFile(p, []byte(tc.file+"\n"), 0o644)
		got, ok := Settled(p, since)
		if ok != (tc.outcome != "") || got != tc.outcome {
			t.Errorf("%s: Settled = %q, %v; want %q", tc.name, got, ok, tc.outcome)
		}
	}
	if _, ok := Settled("relative.jsonl", since); ok {
		t.Error("a relative path was read")
	}
}
