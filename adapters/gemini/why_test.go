package gemini

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
)

// TestWhy reads why a turn failed from chat files: the real ones Gemini
// CLI 0.61 wrote against the stand-in (testdata/chats), and error records
// in their shape for a quota (429 RESOURCE_EXHAUSTED with a retryDelay)
// and a bad key.
func TestWhy(t *testing.T) {
	dir := t.TempDir()
	record := func(name, content string) string {
		p := filepath.Join(dir, name)
		body := `{"id":"u","timestamp":"2026-12-07T12:00:00.000Z","type":"user","content":[{"text":"go"}]}` + "\n" +
			`{"id":"e","timestamp":"2026-12-07T12:00:01.000Z","type":"error","content":` + content + "}\n" +
			`{"id":"i","timestamp":"2026-12-07T12:00:01.001Z","type":"info","content":"This request failed."}` + "\n"
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, path string
		want       hookjson.Why
		ok         bool
	}{
		{"the real TUI 400", filepath.Join("testdata", "chats", "tui_error400.jsonl"),
			hookjson.Why{Words: "stand-in: scripted bad request (scenario:error400)"}, true},
		{"headless writes no error record", filepath.Join("testdata", "chats", "headless_error400.jsonl"), hookjson.Why{}, false},
		{"a quota", record("quota.jsonl", `"[API Error: {\"error\":{\"code\":429,\"message\":\"Quota exceeded\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"retryDelay\":\"30s\"}]}}]"`),
			hookjson.Why{Kind: hookjson.WhyLimit, Words: "Quota exceeded · retry in 30s"}, true},
		{"a bad key", record("key.jsonl", `"[API Error: {\"error\":{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\",\"status\":\"INVALID_ARGUMENT\"}}]"`),
			hookjson.Why{Kind: hookjson.WhyAuth, Words: "API key not valid. Please pass a valid API key."}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, err := filepath.Abs(c.path)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := Why(path, time.Time{})
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
