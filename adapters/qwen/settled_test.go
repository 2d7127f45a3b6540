package qwen

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// The chat files in testdata/chats are real, from Qwen Code 0.24.4 against
// the stand-in model API (this machine's paths replaced, long strings cut);
// the tui_ ones are one session's file cut where each step left it.
func TestSettledRealChats(t *testing.T) {
	for _, tc := range []struct {
		file    string
		outcome string // "": the turn is open (or cannot be told)
	}{
		{"headless_plain_completed.jsonl", state.OutcomeCompleted},
		{"headless_tool_completed.jsonl", state.OutcomeCompleted},
		{"headless_error400.jsonl", state.OutcomeError},
		{"tui_tool_waiting_confirmation.jsonl", ""},
		// An Esc at the confirmation records the call cancelled: the turn
		// has ended.
		{"tui_esc_at_confirmation.jsonl", state.OutcomeCompleted},
		// While the model streams the file ends at the prompt (and an Esc
		// then writes nothing).
		{"tui_slow_midturn.jsonl", ""},
		{"tui_error400.jsonl", state.OutcomeError},
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
	rec := func(ts, typ, rest string) string {
		return `{"timestamp":"` + ts + `","type":"` + typ + `"` + rest + `}`
	}
	prompt := rec("2026-12-03T10:00:00Z", "user", `,"message":{"role":"user","parts":[{"text":"go"}]}`)
	reply := rec("2026-12-03T10:00:02Z", "assistant", `,"message":{"role":"model","parts":[{"text":"done"}]}`)
	for _, tc := range []struct{ name, file, outcome string }{
		{"a reply", prompt + "\n" + reply, state.OutcomeCompleted},
		{"a reply, then snapshots", reply + "\n" + rec("2026-12-03T10:00:03Z", "system", `,"subtype":"file_history_snapshot","systemPayload":{}`), state.OutcomeCompleted},
		{"a reply of an older turn", rec("2026-12-03T09:59:00Z", "assistant", `,"message":{"parts":[{"text":"hi"}]}`), ""},
		{"a call", rec("2026-12-03T10:00:01Z", "assistant", `,"message":{"parts":[{"text":"let me"},{"functionCall":{"name":"x"}}]}`), ""},
		{"a reply with no text", rec("2026-12-03T10:00:01Z", "assistant", `,"message":{"parts":[{"text":""}]}`), ""},
		{"a result to answer", rec("2026-12-03T10:00:01Z", "tool_result", `,"toolCallResult":{"status":"success"}`), ""},
		{"a cancelled call", rec("2026-12-03T10:00:01Z", "tool_result", `,"toolCallResult":{"status":"cancelled"}`), state.OutcomeCompleted},
		{"a failed request", prompt + "\n" + rec("2026-12-03T10:00:01Z", "system", `,"subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error"}}`), state.OutcomeError},
		{"a response is no end", prompt + "\n" + rec("2026-12-03T10:00:01Z", "system", `,"subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response"}}`), ""},
		{"the prompt", reply + "\n" + prompt, ""},
		{"markup and control characters are only text", rec("2026-12-03T10:00:01Z", "assistant", `,"message":{"parts":[{"text":"<script>\u001b[2J"}]}`), state.OutcomeCompleted},
		{"garbage", "{\n\"type\n[]\nnull", ""},
		{"wrong types", rec("x", "assistant", `,"message":{"parts":7}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "chat.jsonl")
			os.WriteFile(p, []byte(tc.file+"\n"), 0o644)
			got, ok := Settled(p, since)
			if ok != (tc.outcome != "") || got != tc.outcome {
				t.Errorf("Settled = %q, %v; want %q", got, ok, tc.outcome)
			}
		})
	}
	if _, ok := Settled(filepath.Join(t.TempDir(), "none.jsonl"), since); ok {
		t.Error("a missing file settled a turn")
	}
}

// FuzzSettled: a chat file is outside input; Settled never panics and
// says only completed or error.
func FuzzSettled(f *testing.F) {
	for _, seed := range []string{
		`{"timestamp":"2026-12-03T10:00:02Z","type":"assistant","message":{"parts":[{"text":"done"}]}}`,
		`{"timestamp":"2026-12-03T10:00:02Z","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error"}}}`,
		`{"timestamp":"2026-12-03T10:00:02Z","type":"tool_result","toolCallResult":{"status":"cancelled"}}`,
		`{"type":"assistant","message":{"parts":[{"functionCall":null,"text":null}]}}`,
		"{\"type\":\"system\",\"systemPayload\":\"x\"}\n\xff",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "chat.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, ok := Settled(p, time.Time{}); ok != (out != "") || (ok && out != state.OutcomeCompleted && out != state.OutcomeError) {
			t.Fatalf("Settled = %q, %v", out, ok)
		}
	})
}
