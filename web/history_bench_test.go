package web

import (
	"context"
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

	"github.com/notch-web/notch-web/host/store"
)

// BenchmarkHistoryPage is GET /agents-notch/history over a store of
// 100,000 sessions (store.Fill: 60 days of a heavy user, today's totals
// not rebuilt yet), read and rendered as a browser asks for it: the page,
// and a search for a word in every session. Target ≤ 50 ms.
func BenchmarkHistoryPage(b *testing.B) {
	now := time.Now()
	st, err := store.Open(filepath.Join(b.TempDir(), store.File), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if err := store.Fill(st, 100000, now); err != nil {
		b.Fatal(err)
	}
	e := newEnv(b, envOpts{history: st, now: func() time.Time { return now }})
	client := &http.Client{}
	for _, c := range []struct{ name, query string }{{"page", ""}, {"search", "?q=build"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, e.base+"/agents-notch/history"+c.query, nil)
				req.Header.Set("Accept", "text/html")
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK || n < 10000 {
					b.Fatalf("%s: %d, %d bytes", c.name, res.StatusCode, n)
				}
			}
		})
	}
}

// BenchmarkHookReplyHistory is a Claude Code hook's reply with the lasting
// history off and on, side by side in one run: from the POST of a
// PreToolUse/PostToolUse pair until each reply is read (p50-ms, p99-ms),
// with 20 tabs open. Target: "on" within 10 % of "off" — the store's
// writes are off the hook's path.
//
// "fed" is "on" with the feed's work on a machine beside it (host/mesh's
// feed.go, without the NATS hop): after each write the machine reads how
// far its history goes, and a hub that is behind reads the batch that
// follows its mark — Last, Since and the batch's JSON, as often as the
// store writes.
func BenchmarkHookReplyHistory(b *testing.B) {
	for _, name := range []string{"off", "on", "fed"} {
		b.Run(name, func(b *testing.B) {
			e := newEnv(b, envOpts{run: true})
			if name != "off" {
				st, err := store.Open(filepath.Join(e.home, store.File), store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { st.Run(ctx); close(done) }()
				b.Cleanup(func() { cancel(); <-done; st.Close() })
				e.board.SetRecorder(st)
				if name == "fed" {
					fed := make(chan struct{})
					changes, stop := st.Changes()
					go func() {
						defer close(fed)
						defer stop()
						var mark int64
						for {
							select {
							case <-ctx.Done():
								return
							case <-changes:
							}
							newest, _ := st.Last(ctx, store.Local)
							for mark < newest && ctx.Err() == nil {
								evs, err := st.Since(ctx, mark, 500)
								if err != nil || len(evs) == 0 {
									break
								}
								_, _ = json.Marshal(evs)
								mark = evs[len(evs)-1].Seq
							}
						}
					}()
					b.Cleanup(func() { cancel(); <-fed })
				}
			}
			tabs := openFanoutReaders(b, e, 20, func([]byte, func(int)) {})
			defer tabs.close()
			tr := filepath.Join(e.home, "s.jsonl")
			os.WriteFile(tr, nil, 0o644)
			client := &http.Client{}
			post := func(body string) time.Duration {
				start := time.Now()
				res, err := client.Post(e.base+"/agents-notch/hooks/claude-code", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				return time.Since(start)
			}
			hook := func(event, extra string) string {
				return `{"session_id":"bench","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
			}
			post(hook("UserPromptSubmit", `,"prompt":"go"`))
			lat := make([]time.Duration, 0, 2*b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				call := fmt.Sprintf(`,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"make"}`, i)
				lat = append(lat, post(hook("PreToolUse", call)))
				lat = append(lat, post(hook("PostToolUse", call+`,"tool_response":{}`)))
			}
			b.StopTimer()
			slices.Sort(lat)
			ms := func(q int) float64 { return float64(lat[len(lat)*q/100].Microseconds()) / 1000 }
			b.ReportMetric(ms(99), "p99-ms")
			b.ReportMetric(ms(50), "p50-ms")
		})
	}
}
