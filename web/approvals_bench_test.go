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
// PermissionRequest with 100 tabs open: from the POST of the answer until
// the held hook request has read its decision. Each op is one approval; the
// held request, its card and the tabs' re-render are set up off the clock.
// p99-ms is the 99th percentile of the ops (target: ≤ 5 ms).
func BenchmarkApproveClick(b *testing.B) {
	e := newEnv(b, envOpts{run: true})
	tabs := openFanoutReaders(b, e, 100, func([]byte, func(int)) {})
	defer tabs.close()
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"bench","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	client := &http.Client{}
	post := func(path, body string) *http.Response {
		req, _ := http.NewRequest("POST", e.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	drain := func(res *http.Response) { io.Copy(io.Discard, res.Body); res.Body.Close() }
	drain(post("/agents-notch/hooks/claude-code", hook("UserPromptSubmit", "")))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("toolu_%d", i)
		bash := `,"tool_name":"Bash","tool_input":{"command":"make ` + id + `"}`
		drain(post("/agents-notch/hooks/claude-code", hook("PreToolUse", bash+`,"tool_use_id":"`+id+`"`)))
		got := make(chan time.Time, 1)
		go func() {
			res := post("/agents-notch/hooks/claude-code", hook("PermissionRequest", bash))
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
		res := post("/agents-notch/approve", answerBody(card, "allow", ""))
		if res.StatusCode != 200 {
			b.Fatalf("answer: %s", res.Status)
		}
		drain(res)
		lat = append(lat, (<-got).Sub(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
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
