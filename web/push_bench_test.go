package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/push"
)

// BenchmarkPushNeedsYou is a held Claude Code PermissionRequest becoming a
// push on three channels (an ntfy topic and two webhooks, each a stand-in
// HTTP server in this process) with 100 tabs open, the delay 0: from the
// hook's POST until the last of the three has received its request
// (p50-ms, p99-ms; the delay itself is not counted — it is a setting). The
// burst gap is off so each op is its own push. Target: p99-ms ≤ 20 ms.
func BenchmarkPushNeedsYou(b *testing.B) {
	got := make(chan time.Time, 64)
	standin := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.Method == http.MethodPost && !strings.Contains(string(body), `"withdrawn"`) {
				got <- time.Now()
			}
		}))
		b.Cleanup(srv.Close)
		return srv
	}
	ntfy, hook1, hook2 := standin(), standin(), standin()
	send := push.ChannelConfig{Send: []string{push.KindNeedsYou}}
	e := newEnv(b, envOpts{run: true, push: &push.Options{
		Config: push.Config{
			Ntfy:     []push.NtfyConfig{{Name: "phone", URL: ntfy.URL + "/topic", ChannelConfig: send}},
			Webhooks: []push.WebhookConfig{{Name: "a", URL: hook1.URL, Shape: push.ShapeJSON, ChannelConfig: send}, {Name: "b", URL: hook2.URL, Shape: push.ShapeSlack, ChannelConfig: send}},
		},
		Gap: -1, BoardURL: "https://laptop.example/agents-notch/", ActURL: "https://laptop.example/agents-notch/act",
	}})
	tabs := openFanoutReaders(b, e, 100, func([]byte, func(int)) {})
	defer tabs.close()
	tr := filepath.Join(e.home, "s.jsonl")
	os.WriteFile(tr, nil, 0o644)
	hook := func(event, extra string) string {
		return `{"session_id":"bench","transcript_path":"` + tr + `","cwd":"/src/argon","hook_event_name":"` + event + `"` + extra + `}`
	}
	client := &http.Client{}
	post := func(body string) {
		req, _ := http.NewRequest("POST", e.base+"/agents-notch/hooks/claude-code", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	post(hook("UserPromptSubmit", ""))
	time.Sleep(5 * time.Millisecond) // a since in a later millisecond than the engine's start
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("toolu_%d", i)
		bash := `,"tool_name":"Bash","tool_input":{"command":"make ` + id + `"}`
		post(hook("PreToolUse", bash+`,"tool_use_id":"`+id+`"`))
		time.Sleep(2 * time.Millisecond) // the row's since moves on
		b.StartTimer()
		start := time.Now()
		done := make(chan struct{})
		go func() { post(hook("PermissionRequest", bash)); close(done) }()
		var last time.Time
		for range 3 {
			select {
			case t := <-got:
				last = t
			case <-time.After(10 * time.Second):
				b.Fatal("a channel never got the push")
			}
		}
		lat = append(lat, last.Sub(start))
		b.StopTimer()
		post(hook("PostToolUse", bash+`,"tool_use_id":"`+id+`","tool_response":{}`))
		<-done
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(q int) float64 { return float64(lat[len(lat)*q/100].Microseconds()) / 1000 }
	b.ReportMetric(ms(99), "p99-ms")
	b.ReportMetric(ms(50), "p50-ms")
}
