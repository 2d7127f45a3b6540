package codex

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
)

// TestWhy reads why a turn failed from rollouts: the real ones Codex
// 0.169 wrote against the stand-in (testdata/rollouts), and lines in their
// shape for the kinds Codex names (codex_error_info).
func TestWhy(t *testing.T) {
	line := func(ts, errJSON string) string {
		return `{"timestamp":"` + ts + `","type":"event_msg","payload":{"type":"task_complete","turn_id":"t","last_agent_message":null,"error":` + errJSON + `}}` + "\n"
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	since := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, path string
		since      time.Time
		want       hookjson.Why
		ok         bool
	}{
		{"the real TUI 400", filepath.Join("testdata", "rollouts", "tui_error400.jsonl"), time.Time{},
			hookjson.Why{Words: "stand-in: scripted bad request (scenario:error400)"}, true},
		{"the real headless 400", filepath.Join("testdata", "rollouts", "headless_error400.jsonl"), time.Time{},
			hookjson.Why{Words: "stand-in: scripted bad request (scenario:error400)"}, true},
		// Codex 0.169 against the stand-in's scripted failures (recorded).
		{"the real usage limit", filepath.Join("testdata", "rollouts", "why_limit429.jsonl"), time.Time{},
			hookjson.Why{Kind: hookjson.WhyLimit, Words: "You’ve hit your usage limit. Try again at 5:51 PM."}, true},
		{"the real 401", filepath.Join("testdata", "rollouts", "why_auth401.jsonl"), time.Time{},
			hookjson.Why{Kind: hookjson.WhyAuth, Words: "unexpected status 401 Unauthorized: stand-in: invalid x-api-key (scenario:auth401), url: http://127.0.0.1:PORT/v1/responses"}, true},
		{"the real 503", filepath.Join("testdata", "rollouts", "why_overloaded.jsonl"), time.Time{},
			hookjson.Why{Kind: hookjson.WhyOverloaded, Words: "unexpected status 503 Service Unavailable: stand-in: Overloaded (scenario:overloaded), url: http://127.0.0.1:PORT/v1/responses"}, true},
		{"the real context window", filepath.Join("testdata", "rollouts", "why_toolong.jsonl"), time.Time{},
			hookjson.Why{Kind: hookjson.WhyContext, Words: "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."}, true},
		{"a completed turn", filepath.Join("testdata", "rollouts", "tui_plain_completed.jsonl"), time.Time{}, hookjson.Why{}, false},
		{"a usage limit with resets_at", write("limit.jsonl", line("2026-12-07T12:00:01Z",
			`{"message":"{\"error\":{\"type\":\"usage_limit_reached\",\"message\":\"The usage limit has been reached\",\"resets_at\":1796400000}}","codex_error_info":"usage_limit_exceeded"}`)),
			since, hookjson.Why{Kind: hookjson.WhyLimit, Words: "The usage limit has been reached", ResetsMs: 1796400000000}, true},
		{"the context window", write("context.jsonl", line("2026-12-07T12:00:01Z",
			`{"message":"Codex ran out of room in the model's context window.","codex_error_info":"context_window_exceeded"}`)),
			since, hookjson.Why{Kind: hookjson.WhyContext, Words: "Codex ran out of room in the model's context window."}, true},
		{"an unreachable model", write("conn.jsonl", line("2026-12-07T12:00:01Z",
			`{"message":"stream disconnected","codex_error_info":{"http_connection_failed":{"http_status_code":null}}}`)),
			since, hookjson.Why{Kind: hookjson.WhyOverloaded, Words: "stream disconnected"}, true},
		{"an error before since", write("old.jsonl", line("2026-12-07T11:59:59Z", `{"message":"x","codex_error_info":"unauthorized"}`)),
			since, hookjson.Why{}, false},
		{"no file", filepath.Join(dir, "none.jsonl"), since, hookjson.Why{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, err := filepath.Abs(c.path)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := Why(path, c.since)
			if ok != c.ok || got != c.want {
				t.Errorf("Why = %+v %v, want %+v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// FuzzWhy: any file gives a clean Why or none, never a panic.
func FuzzWhy(f *testing.F) {
	f.Add(`{"timestamp":"2026-12-07T12:00:01Z","type":"event_msg","payload":{"type":"task_complete","error":{"message":"{\"error\":{\"resets_at\":1796400000}}","codex_error_info":"usage_limit_exceeded"}}}` + "\n") // Codex's usage limit
	f.Add(`{"id":"e","timestamp":"2026-12-07T12:00:01Z","type":"error","content":"[API Error: {\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\"}}]"}` + "\n")                                                // Gemini CLI's quota
	f.Add(`{"type":"error","content":"\u202e` + "\xff" + `"}` + "\n")                                                                                                                                                 // bidi, invalid UTF-8
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "x.jsonl")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if w, ok := Why(p, time.Time{}); w.Clean() != w || !ok && !w.IsZero() {
			t.Fatalf("Why = %+v %v", w, ok)
		}
	})
}
