package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
)

// BenchmarkQuestionClick is BenchmarkApproveClick for a question card
// (Claude Code's AskUserQuestion, two questions, one multi-select): from
// the POST of the answers until the held hook request's response — an
// allow whose updatedInput carries the answers — is written (p50-ms,
// p99-ms) and read by the hook's client in this process (read-*), with 100
// SSE tabs open and reading every patch. Target p99 ≤ 5 ms.
func BenchmarkQuestionClick(b *testing.B) {
	written := make(chan time.Time, 1)
	probe := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			if r.Header.Get("X-Bench-Held") != "" {
				w.(http.Flusher).Flush()
				written <- time.Now()
			}
		})
	}
	e := newEnv(b, envOpts{run: true, wrap: probe})
	tabs := openFanoutReaders(b, e, 100, func([]byte, func(int)) {})
	defer tabs.close()
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"bench","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	client := &http.Client{}
	post := func(path, body string, held bool) *http.Response {
		req, _ := http.NewRequest("POST", e.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if held {
			req.Header.Set("X-Bench-Held", "1")
		}
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	drain := func(res *http.Response) { io.Copy(io.Discard, res.Body); res.Body.Close() }
	drain(post("/agents-notch/hooks/claude-code", hook("UserPromptSubmit", ""), false))
	answers, _ := json.Marshal([]map[string]any{{"options": []int{1}}, {"options": []int{0, 2}, "other": "and fuzz"}})
	lat := make([]time.Duration, 0, b.N)
	read := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("toolu_%d", i)
		ask := `,"tool_name":"AskUserQuestion","tool_input":{"questions":[` +
			`{"question":"Which colour ` + id + `?","header":"Colour","options":[{"label":"Teal","description":"cool"},{"label":"Coral","description":"warm"}],"multiSelect":false},` +
			`{"question":"Which checks?","header":"Checks","options":[{"label":"Lint"},{"label":"Unit"},{"label":"Browser"}],"multiSelect":true}]}`
		drain(post("/agents-notch/hooks/claude-code", hook("PreToolUse", ask+`,"tool_use_id":"`+id+`"`), false))
		got := make(chan time.Time, 1)
		go func() {
			res := post("/agents-notch/hooks/claude-code", hook("PermissionRequest", ask), true)
			drain(res)
			got <- time.Now()
		}()
		var card host.Card
		for card.Call != id {
			for _, c := range e.board.Cards().Cards {
				if c.Call == id && c.State == host.CardWaiting {
					card = c
				}
			}
			time.Sleep(200 * time.Microsecond)
		}
		time.Sleep(15 * time.Millisecond) // the tabs have the card: the click comes from a page
		body := `{"sessionId":"` + card.Session + `","call":"` + card.Call + `","nonce":"` + card.Nonce + `","decision":"answer","answers":` + string(answers) + `}`
		b.StartTimer()
		start := time.Now()
		res := post("/agents-notch/approve", body, false)
		if res.StatusCode != 200 {
			b.Fatalf("answer: %s", res.Status)
		}
		drain(res)
		lat = append(lat, (<-written).Sub(start))
		read = append(read, (<-got).Sub(start))
	}
	b.StopTimer()
	ms := func(d []time.Duration, q int) float64 {
		slices.Sort(d)
		return float64(d[len(d)*q/100].Microseconds()) / 1000
	}
	b.ReportMetric(ms(lat, 99), "p99-ms")
	b.ReportMetric(ms(lat, 50), "p50-ms")
	b.ReportMetric(ms(read, 99), "read-p99-ms")
	b.ReportMetric(ms(read, 50), "read-p50-ms")
}
