package copilot

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/textrule"
)

// TestWhy reads why a turn failed from a session file: its session.error
// line, in the shape Copilot CLI 1.0.102 writes (the conformance run's
// 400: {"errorType":"query","message":"400 bad request","statusCode":400}).
func TestWhy(t *testing.T) {
	dir := t.TempDir()
	since := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	file := func(name string, lines ...string) string {
		p := filepath.Join(dir, name+".jsonl")
		body := `{"type":"user.message","data":{"content":"go"},"timestamp":"2026-12-07T12:00:00Z"}` + "\n"
		for _, l := range lines {
			body += l + "\n"
		}
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
		{"the conformance run's 400", file("e400", `{"type":"session.error","data":{"errorType":"query","message":"400 bad request","statusCode":400},"id":"7","timestamp":"2026-12-07T12:00:01Z"}`),
			hookjson.Why{Words: "400 bad request"}, true},
		{"a 429", file("e429", `{"type":"session.error","data":{"errorType":"query","message":"Too many requests, retry in 2m","statusCode":429},"timestamp":"2026-12-07T12:00:01Z"}`),
			hookjson.Why{Kind: hookjson.WhyLimit, Words: "Too many requests, retry in 2m"}, true},
		{"a 401", file("e401", `{"type":"session.error","data":{"errorType":"query","message":"request failed","statusCode":401},"timestamp":"2026-12-07T12:00:01Z"}`),
			hookjson.Why{Kind: hookjson.WhyAuth, Words: "request failed"}, true},
		{"a Stop after it", file("stop", `{"type":"session.error","data":{"message":"x","statusCode":500},"timestamp":"2026-12-07T12:00:01Z"}`,
			`{"type":"user.message","data":{},"timestamp":"2026-12-07T12:00:02Z"}`, `{"type":"hook.start","data":{"hookType":"agentStop"},"timestamp":"2026-12-07T12:00:03Z"}`),
			hookjson.Why{}, false},
		{"before since", file("old", `{"type":"session.error","data":{"message":"x","statusCode":500},"timestamp":"2026-12-07T11:00:01Z"}`),
			hookjson.Why{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Why("s", c.path, since)
			if ok != c.ok || got != c.want {
				t.Errorf("Why = %+v %v, want %+v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// FuzzWhy: any session file gives a clean Why or none, never a panic.
func FuzzWhy(f *testing.F) {
	f.Add(`{"type":"session.error","data":{"errorType":"query","message":"400 bad request","statusCode":400},"timestamp":"2026-12-07T12:51:09Z"}` + "\n") // Copilot's own
	f.Add(`{"type":"session.error","data":{"message":"\u202e429 resets 2pm","statusCode":-1},"timestamp":"2026-12-07T12:51:09Z"}` + "\n")                 // bidi, a bad status
	f.Add(`{"type":"session.error","data":[]}` + "\n")                                                                                                    // a wrong type
	f.Fuzz(func(t *testing.T, s string) {
		p := filepath.Join(t.TempDir(), "events.jsonl")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if w, ok := Why("s", p, time.Time{}); w.Clean() != w || textrule.Has(w.Words) || !ok && !w.IsZero() {
			t.Fatalf("Why = %+v %v", w, ok)
		}
	})
}
