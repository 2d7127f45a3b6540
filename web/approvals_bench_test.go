package web

import (
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

// BenchmarkApproveClick is a board click answering a held Claude Code
// PermissionRequest with 100 tabs open (SSE streams, reading every patch):
// from the POST of the answer until the host has written the held hook
// request's response (p50-ms, p99-ms: the server's handler has returned
// and its response is flushed to the socket), and until the hook's client,
// in this same process, has read it (read-p50-ms, read-p99-ms: that adds
// the client goroutine's wait for a thread, behind the 100 tabs' readers,
// which a real agent, a process of its own, does not share). Each op is one
// approval; the held request, its card and the tabs' re-render are set up
// off the clock. Target: p99-ms ≤ 5 ms.
func BenchmarkApproveClick(b *testing.B) {
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
	lat := make([]time.Duration, 0, b.N)
	read := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("toolu_%d", i)
		bash := `,"tool_name":"Bash","tool_input":{"command":"make ` + id + `"}`
		drain(post("/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"`+id+`"`), false))
		got := make(chan time.Time, 1)
		go func() {
			res := post("/agents-notch/hooks/claude-code", hook("PermissionRequest", bash), true)
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
		b.StartTimer()
		start := time.Now()
		res := post("/agents-notch/approve", answerBody(card, "allow", ""), false)
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

// BenchmarkPendingApprovals measures what holding approvals costs: the
// host's CPU per second of waiting (cpu-ms/s: the whole process's user and
// system time over idle seconds, never a timed assertion) with 200 Claude
// Code sessions on the board, each mid-call (PreToolUse), against the same
// 200 sessions each also holding its PermissionRequest (200 held hook
// requests, 200 cards, 200 transcripts watched), and an empty host for
// scale. Target: nothing measurable between "rows" and "held".
func BenchmarkPendingApprovals(b *testing.B) {
	for _, c := range []struct {
		name string
		rows int
		held bool
	}{{"empty", 0, false}, {"rows=200", 200, false}, {"held=200", 200, true}} {
		b.Run(c.name, func(b *testing.B) { benchPending(b, c.rows, c.held) })
	}
}

func benchPending(b *testing.B, n int, held bool) {
	e := newEnv(b, envOpts{run: true, approvals: host.ApprovalConfig{Hold: host.MaxApprovalHold}})
	for i := 0; i < n; i++ {
		tr := filepath.Join(e.home, fmt.Sprintf("s%d.jsonl", i))
		os.WriteFile(tr, nil, 0o644)
		s := fmt.Sprintf(`{"session_id":"s%d","transcript_path":"%s","cwd":"/src/x","hook_event_name":"`, i, tr)
		bash := `","tool_name":"Bash","tool_input":{"command":"make"}`
		if st, _ := e.do(b, "POST", "/agents-notch/hooks/claude-code", s+"UserPromptSubmit"+`"}`, nil); st != 200 {
			b.Fatalf("UserPromptSubmit: %d", st)
		}
		if st, _ := e.do(b, "POST", "/agents-notch/hooks/claude-code", s+"PreToolUse"+bash+`,"tool_use_id":"t"}`, nil); st != 200 {
			b.Fatalf("PreToolUse: %d", st)
		}
		if !held {
			continue
		}
		go func() {
			req, _ := http.NewRequest("POST", e.base+"/agents-notch/hooks/claude-code", strings.NewReader(s+"PermissionRequest"+bash+"}"))
			req.Header.Set("Content-Type", "application/json")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}()
	}
	want := 0
	if held {
		want = n
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(e.board.Cards().Cards) < want {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d cards", len(e.board.Cards().Cards), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Second) // the renders of the burst are done
	b.ResetTimer()
	var spent, waited time.Duration
	for i := 0; i < b.N; i++ {
		c0, t0 := cpuTime(), time.Now()
		time.Sleep(time.Second)
		spent += cpuTime() - c0
		waited += time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(spent.Microseconds())/1000/waited.Seconds(), "cpu-ms/s")
}
