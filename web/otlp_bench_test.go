package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/notch-web/notch-web/host/store"

	collogs "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"
	common "go.opentelemetry.io/proto/slim/otlp/common/v1"
	logs "go.opentelemetry.io/proto/slim/otlp/logs/v1"
)

// otlpLoad is an export of n Claude Code api_request records for session,
// as Claude Code sends them (protobuf).
func otlpLoad(tb testing.TB, session string, n int) []byte {
	tb.Helper()
	kv := func(k string, v *common.AnyValue) *common.KeyValue { return &common.KeyValue{Key: k, Value: v} }
	s := func(x string) *common.AnyValue {
		return &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: x}}
	}
	i := func(x int64) *common.AnyValue { return &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: x}} }
	var recs []*logs.LogRecord
	for range n {
		recs = append(recs, &logs.LogRecord{
			TimeUnixNano: uint64(time.Now().UnixNano()),
			Body:         s("claude_code.api_request"),
			Attributes: []*common.KeyValue{
				kv("event.name", s("api_request")), kv("session.id", s(session)), kv("model", s("claude-opus-5-5")),
				kv("input_tokens", i(2000)), kv("output_tokens", i(12)), kv("cache_read_tokens", i(0)), kv("cache_creation_tokens", i(0)),
				kv("cost_usd", &common.AnyValue{Value: &common.AnyValue_DoubleValue{DoubleValue: 0.00824}}),
			},
		})
	}
	b, err := proto.Marshal(&collogs.ExportLogsServiceRequest{ResourceLogs: []*logs.ResourceLogs{{ScopeLogs: []*logs.ScopeLogs{{LogRecords: recs}}}}})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkHookReplyOTLP is a Claude Code hook's reply with OpenTelemetry
// arriving and not, in one run: from the POST of a PreToolUse/PostToolUse
// pair until each reply is read, with 20 tabs open. The run alternates
// phases of half a second: in "on" phases 1,000 OTLP log records a second
// arrive (an export of 100 Claude Code api_request records every 100 ms,
// each summed on the hooks' own row, so every export also re-renders the
// board, and written to the lasting history); in "off" phases none.
// Interleaving the phases keeps a busy machine's drift out of the
// comparison. Reported: p50 and p99 of each
// (ms), on/off of the p99s, and the records a second in "on" phases.
// Target: p99 on/off ≤ 1.10.
func BenchmarkHookReplyOTLP(b *testing.B) {
	e := newEnv(b, envOpts{run: true})
	// The lasting history, as a host runs with it: each export's costs and
	// tokens are written there too (host/store), and the hooks' events.
	st, err := store.Open(filepath.Join(e.home, store.File), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	stCtx, stCancel := context.WithCancel(context.Background())
	stDone := make(chan struct{})
	go func() { st.Run(stCtx); close(stDone) }()
	b.Cleanup(func() { stCancel(); <-stDone; st.Close() })
	e.board.SetRecorder(st)
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

	const phase = 500 * time.Millisecond
	var on atomic.Bool
	var sent, refused atomic.Int64
	var onTime atomic.Int64 // ns spent in "on" phases
	export := otlpLoad(b, "bench", 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		oc := &http.Client{}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if !on.Load() {
				continue
			}
			res, err := oc.Post(e.base+"/agents-notch/otlp/v1/logs", "application/x-protobuf", bytes.NewReader(export))
			if err != nil {
				continue
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				sent.Add(100)
			} else {
				refused.Add(1)
			}
		}
	}()
	defer func() { cancel(); <-done }()

	lat := [2][]time.Duration{}
	start := time.Now()
	phaseStart := start
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if now := time.Now(); now.Sub(phaseStart) >= phase {
			if on.Load() {
				onTime.Add(int64(now.Sub(phaseStart)))
			}
			on.Store(!on.Load())
			phaseStart = now
		}
		k := 0
		if on.Load() {
			k = 1
		}
		call := fmt.Sprintf(`,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"make"}`, i)
		lat[k] = append(lat[k], post(hook("PreToolUse", call)))
		lat[k] = append(lat[k], post(hook("PostToolUse", call+`,"tool_response":{}`)))
	}
	b.StopTimer()
	if on.Load() {
		onTime.Add(int64(time.Since(phaseStart)))
	}
	if refused.Load() > 0 {
		b.Fatalf("%d exports refused", refused.Load())
	}
	if len(lat[0]) == 0 || len(lat[1]) == 0 {
		return // too short for both phases (the first, b.N = 1 run): nothing to compare
	}
	ms := func(l []time.Duration, q int) float64 {
		slices.Sort(l)
		return float64(l[len(l)*q/100].Microseconds()) / 1000
	}
	off99, on99 := ms(lat[0], 99), ms(lat[1], 99)
	b.ReportMetric(off99, "off-p99-ms")
	b.ReportMetric(on99, "on-p99-ms")
	b.ReportMetric(ms(lat[0], 50), "off-p50-ms")
	b.ReportMetric(ms(lat[1], 50), "on-p50-ms")
	b.ReportMetric(on99/off99, "p99-on/off")
	b.ReportMetric(float64(sent.Load())/time.Duration(onTime.Load()).Seconds(), "records/s")
}
