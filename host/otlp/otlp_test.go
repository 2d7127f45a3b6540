package otlp

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	collogs "go.opentelemetry.io/proto/slim/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/slim/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/slim/otlp/common/v1"
	logs "go.opentelemetry.io/proto/slim/otlp/logs/v1"
	trace "go.opentelemetry.io/proto/slim/otlp/trace/v1"

	"github.com/notch-web/notch-web/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the recorded exports")

// recorded reads one export of testdata/recorded: its signal and encoding
// by its name (claude-code-json-03-logs.json, codex-protobuf-01-traces.pb),
// gunzipped when it was sent gzipped.
func recorded(t testing.TB, name string) (Signal, Encoding, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "recorded", name))
	if err != nil {
		t.Fatal(err)
	}
	enc := Protobuf
	if strings.Contains(name, ".json") {
		enc = JSON
	}
	ce := ""
	if strings.HasSuffix(name, ".gz") {
		ce = "gzip"
	}
	body, err := ReadBody(bytes.NewReader(raw), ce, MaxBody)
	if err != nil {
		t.Fatal(err)
	}
	base := strings.SplitN(name, ".", 2)[0]
	sig := Signal(base[strings.LastIndex(base, "-")+1:])
	return sig, enc, body
}

func recordedNames(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join("testdata", "recorded"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	if len(out) == 0 {
		t.Fatal("no recorded exports")
	}
	return out
}

// TestRecordedGolden maps every export the real CLIs sent (recorded by
// conformance/otel_test.go with -record) and compares what the board takes
// from it with testdata/golden/.
func TestRecordedGolden(t *testing.T) {
	for _, name := range recordedNames(t) {
		t.Run(name, func(t *testing.T) {
			sig, enc, body := recorded(t, name)
			req, err := Decode(sig, enc, body)
			if err != nil {
				t.Fatalf("a recorded export does not decode: %v", err)
			}
			got, err := json.MarshalIndent(Map(req), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", strings.SplitN(name, ".", 2)[0]+".json")
			golden.Check(t, path, path+".actual", append(got, '\n'), *update)
		})
	}
}

// TestRecordedTotals: each agent's session, in protobuf and in JSON, adds
// up to what the stand-in served (2,000 tokens in and 12 out a call).
func TestRecordedTotals(t *testing.T) {
	type total struct {
		calls, in, out int64
		cost           float64
		hasCost        bool
		sessions       map[string]bool
	}
	want := map[string]struct {
		calls   int64
		hasCost bool
	}{
		"claude-code-protobuf": {1, true}, "claude-code-json": {1, true},
		"codex-protobuf": {1, false}, "codex-json": {1, false},
		"gemini-json":      {2, false}, // the router's call and the main one
		"copilot-protobuf": {1, false}, "copilot-json": {1, false},
	}
	got := map[string]*total{}
	for _, name := range recordedNames(t) {
		run := name[:strings.LastIndex(name[:strings.LastIndex(name, "-")], "-")]
		sig, enc, body := recorded(t, name)
		req, err := Decode(sig, enc, body)
		if err != nil {
			t.Fatal(err)
		}
		if got[run] == nil {
			got[run] = &total{sessions: map[string]bool{}}
		}
		for _, u := range Map(req).Usage {
			g := got[run]
			g.calls++
			g.in += u.InputTokens + u.CacheReadTokens
			g.out += u.OutputTokens
			g.cost += u.CostUSD
			g.hasCost = g.hasCost || u.HasCost
			g.sessions[u.Session] = true
			if u.At.IsZero() || u.Model == "" {
				t.Errorf("%s: a usage without its time or model: %+v", name, u)
			}
		}
	}
	for run, w := range want {
		g := got[run]
		if g == nil {
			t.Errorf("%s: nothing recorded", run)
			continue
		}
		if g.calls != w.calls || g.in != 2000*w.calls || g.out != 12*w.calls || g.hasCost != w.hasCost || len(g.sessions) != 1 {
			t.Errorf("%s: %d calls, %d in, %d out, cost %v (%v), sessions %v; want %d calls of 2000 in and 12 out, cost reported %v, one session",
				run, g.calls, g.in, g.out, g.cost, g.hasCost, g.sessions, w.calls, w.hasCost)
		}
	}
}

// TestRecordedCopilot: GitHub Copilot CLI's spans (it sends no logs). A
// turn with a tool: its two chat spans are two Usages (2,000 and 2,100 in,
// the stand-in's growing prompt), its invoke_agent span, which carries
// their sum, and its execute_tool span are not. A model call the stand-in
// failed (HTTP 400): one ModelError from the chat span's error status, no
// Usage. Every one is of the session the hooks named (gen_ai.conversation.id).
func TestRecordedCopilot(t *testing.T) {
	for _, tc := range []struct {
		run           string
		in, out       []int64
		errors        int
		spans, points bool
	}{
		{"copilot-tool-protobuf", []int64{2000, 2100}, []int64{12, 12}, 0, true, true},
		{"copilot-error-protobuf", nil, nil, 1, true, true},
	} {
		var usage []Usage
		var errs []ModelError
		sessions := map[string]bool{}
		for _, name := range recordedNames(t) {
			if !strings.HasPrefix(name, tc.run+"-") {
				continue
			}
			sig, enc, body := recorded(t, name)
			req, err := Decode(sig, enc, body)
			if err != nil {
				t.Fatal(err)
			}
			b := Map(req)
			if sig == Metrics && (len(b.Usage) != 0 || len(b.Errors) != 0) {
				t.Errorf("%s: metrics mapped (each call would count twice)", name)
			}
			usage, errs = append(usage, b.Usage...), append(errs, b.Errors...)
		}
		if len(usage) != len(tc.in) || len(errs) != tc.errors {
			t.Fatalf("%s: %d usages, %d errors; want %d and %d", tc.run, len(usage), len(errs), len(tc.in), tc.errors)
		}
		for i, u := range usage {
			sessions[u.Session] = true
			if u.Agent != "copilot" || u.InputTokens != tc.in[i] || u.OutputTokens != tc.out[i] || u.HasCost || u.Model != "claude-sonnet-4-5" || u.At.IsZero() {
				t.Errorf("%s: call %d %+v; want %d in, %d out, no cost", tc.run, i, u, tc.in[i], tc.out[i])
			}
		}
		for _, e := range errs {
			sessions[e.Session] = true
			if e.Agent != "copilot" || e.Message != "Model call failed (ModelCallError)" || e.Model == "" {
				t.Errorf("%s: %+v", tc.run, e)
			}
		}
		if len(sessions) != 1 || sessions[""] {
			t.Errorf("%s: sessions %v, want one", tc.run, sessions)
		}
	}
}

// TestCopilotSpans: the chat span's figures, taken or refused, and spans
// that are not Copilot's chat spans left alone.
func TestCopilotSpans(t *testing.T) {
	chat := func(scope string, attrs map[string]*common.AnyValue, code trace.Status_StatusCode) Request {
		sp := &trace.Span{Name: "chat m", EndTimeUnixNano: 1_796_658_970_000_000_000, Status: &trace.Status{Code: code, Message: "failed\n\x1b[31mred"}}
		for k, v := range attrs {
			sp.Attributes = append(sp.Attributes, &common.KeyValue{Key: k, Value: v})
		}
		return Request{Traces: &coltrace.ExportTraceServiceRequest{ResourceSpans: []*trace.ResourceSpans{{
			ScopeSpans: []*trace.ScopeSpans{{Scope: &common.InstrumentationScope{Name: scope}, Spans: []*trace.Span{sp}}}}}}}
	}
	base := func(extra ...any) map[string]*common.AnyValue {
		m := map[string]*common.AnyValue{"gen_ai.operation.name": str("chat"), "gen_ai.conversation.id": str("s1"),
			"gen_ai.request.model": str("m"), "gen_ai.usage.input_tokens": num(1000), "gen_ai.usage.output_tokens": num(7)}
		for i := 0; i+1 < len(extra); i += 2 {
			if extra[i+1] == nil {
				delete(m, extra[i].(string))
			} else {
				m[extra[i].(string)] = extra[i+1].(*common.AnyValue)
			}
		}
		return m
	}
	ok := trace.Status_STATUS_CODE_OK
	for _, tc := range []struct {
		name               string
		req                Request
		usages, errs, rejd int
		in, cached         int64
	}{
		{"a chat span", chat("github.copilot", base(), ok), 1, 0, 0, 1000, 0},
		{"cached input taken out", chat("github.copilot", base("gen_ai.usage.cache_read.input_tokens", num(600), "gen_ai.usage.cache_write.input_tokens", num(100)), ok), 1, 0, 0, 300, 600},
		{"more cached than input", chat("github.copilot", base("gen_ai.usage.cache_read.input_tokens", num(5000)), ok), 1, 0, 0, 0, 5000},
		{"another scope's chat span", chat("other.agent", base(), ok), 0, 0, 0, 0, 0},
		{"an invoke_agent span", chat("github.copilot", base("gen_ai.operation.name", str("invoke_agent")), ok), 0, 0, 0, 0, 0},
		{"no session", chat("github.copilot", base("gen_ai.conversation.id", nil), ok), 0, 0, 1, 0, 0},
		{"a negative count", chat("github.copilot", base("gen_ai.usage.output_tokens", num(-1)), ok), 0, 0, 1, 0, 0},
		{"a count that is not one", chat("github.copilot", base("gen_ai.usage.input_tokens", str("1e99")), ok), 0, 0, 1, 0, 0},
		{"no counts", chat("github.copilot", base("gen_ai.usage.input_tokens", nil, "gen_ai.usage.output_tokens", nil), ok), 0, 0, 0, 0, 0},
		{"an error status", chat("github.copilot", base("error.type", str("ModelCallError")), trace.Status_STATUS_CODE_ERROR), 0, 1, 0, 0, 0},
		{"an error without a session", chat("github.copilot", base("gen_ai.conversation.id", nil), trace.Status_STATUS_CODE_ERROR), 0, 0, 1, 0, 0},
	} {
		b := Map(tc.req)
		if len(b.Usage) != tc.usages || len(b.Errors) != tc.errs || int(b.Rejected) != tc.rejd || b.Records != 1 {
			t.Errorf("%s: %d usages, %d errors, %d rejected (%s), %d records; want %d, %d, %d, 1", tc.name, len(b.Usage), len(b.Errors), b.Rejected, b.Reason, b.Records, tc.usages, tc.errs, tc.rejd)
			continue
		}
		if tc.usages == 1 && (b.Usage[0].InputTokens != tc.in || b.Usage[0].CacheReadTokens != tc.cached || b.Usage[0].Session != "s1" || b.Usage[0].Agent != "copilot") {
			t.Errorf("%s: %+v, want %d in, %d cached", tc.name, b.Usage[0], tc.in, tc.cached)
		}
		if tc.errs == 1 && b.Errors[0].Message != "failed [31mred (ModelCallError)" {
			t.Errorf("%s: message %q", tc.name, b.Errors[0].Message)
		}
	}
}

// logsBody is an export of one log record with attrs, in enc.
func logsBody(t testing.TB, enc Encoding, event string, attrs map[string]*common.AnyValue) []byte {
	t.Helper()
	lr := &logs.LogRecord{TimeUnixNano: 1_796_658_970_000_000_000, Body: &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: event}}}
	lr.Attributes = append(lr.Attributes, &common.KeyValue{Key: "event.name", Value: str(event[strings.Index(event, ".")+1:])})
	for k, v := range attrs {
		lr.Attributes = append(lr.Attributes, &common.KeyValue{Key: k, Value: v})
	}
	req := &collogs.ExportLogsServiceRequest{ResourceLogs: []*logs.ResourceLogs{{ScopeLogs: []*logs.ScopeLogs{{LogRecords: []*logs.LogRecord{lr}}}}}}
	var b []byte
	var err error
	if enc == JSON {
		b, err = protojson.Marshal(req)
	} else {
		b, err = proto.Marshal(req)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func str(s string) *common.AnyValue {
	return &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: s}}
}
func num(n int64) *common.AnyValue {
	return &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: n}}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// TestReceiver drives the OTLP/HTTP answers with good and hostile bodies.
func TestReceiver(t *testing.T) {
	good := logsBody(t, Protobuf, "claude_code.api_request", map[string]*common.AnyValue{
		"session.id": str("s-1"), "model": str("m"), "input_tokens": num(10), "output_tokens": num(2),
		"cost_usd": {Value: &common.AnyValue_DoubleValue{DoubleValue: 0.5}}})
	goodJSON := logsBody(t, JSON, "claude_code.api_request", map[string]*common.AnyValue{
		"session.id": str("s-1"), "input_tokens": num(10), "output_tokens": num(2)})
	wrongType := logsBody(t, Protobuf, "claude_code.api_request", map[string]*common.AnyValue{
		"session.id": str("s-1"), "input_tokens": str("ten")})
	negative := logsBody(t, JSON, "gemini_cli.api_response", map[string]*common.AnyValue{
		"session.id": str("s-1"), "input_token_count": num(-5)})
	noSession := logsBody(t, Protobuf, "claude_code.api_request", map[string]*common.AnyValue{"input_tokens": num(1)})
	apiError := logsBody(t, Protobuf, "claude_code.api_error", map[string]*common.AnyValue{
		"session.id": str("s-1"), "status_code": str("529"), "error": str("Overloaded\u202e\x1b[31m " + strings.Repeat("x", 4096))})
	// Deeper than the recursion limit: an attribute value of arrays of arrays.
	deep := &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: "bottom"}}
	for range 200 {
		deep = &common.AnyValue{Value: &common.AnyValue_ArrayValue{ArrayValue: &common.ArrayValue{Values: []*common.AnyValue{deep}}}}
	}
	deepBody := logsBody(t, Protobuf, "claude_code.api_request", map[string]*common.AnyValue{"x": deep})
	bomb := gz(make([]byte, MaxBody+1)) // a few KiB that inflate past the limit

	cases := []struct {
		name, path, ctype, cenc string
		body                    []byte
		status                  int
		usage, errors           int
		rejected                int64
		replyType               string
	}{
		{"protobuf logs", "/x/v1/logs", "application/x-protobuf", "", good, 200, 1, 0, 0, "application/x-protobuf"},
		{"json logs answer in json", "/x/v1/logs", "application/json", "", goodJSON, 200, 1, 0, 0, "application/json"},
		{"gzip logs", "/x/v1/logs", "application/x-protobuf", "gzip", gz(good), 200, 1, 0, 0, "application/x-protobuf"},
		{"empty export", "/x/v1/metrics", "application/x-protobuf", "", nil, 200, 0, 0, 0, "application/x-protobuf"},
		{"json unknown fields are ignored", "/x/v1/traces", "application/json", "", []byte(`{"resourceSpans":[],"somethingNew":{"a":1}}`), 200, 0, 0, 0, "application/json"},
		{"a count of the wrong type is rejected", "/x/v1/logs", "application/x-protobuf", "", wrongType, 200, 0, 0, 1, "application/x-protobuf"},
		{"a negative count is rejected", "/x/v1/logs", "application/json", "", negative, 200, 0, 0, 1, "application/json"},
		{"no session id is rejected", "/x/v1/logs", "application/x-protobuf", "", noSession, 200, 0, 0, 1, "application/x-protobuf"},
		{"a model error, hostile text", "/x/v1/logs", "application/x-protobuf", "", apiError, 200, 0, 1, 0, "application/x-protobuf"},
		{"garbage", "/x/v1/logs", "application/x-protobuf", "", []byte("\xff\xff\xff\xff"), 400, 0, 0, 0, "application/x-protobuf"},
		{"json of the wrong shape", "/x/v1/logs", "application/json", "", []byte(`{"resourceLogs":"no"}`), 400, 0, 0, 0, "application/json"},
		{"json with values of the wrong type", "/x/v1/logs", "application/json", "", []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"soon"}]}]}]}`), 400, 0, 0, 0, "application/json"},
		{"too deep", "/x/v1/logs", "application/x-protobuf", "", deepBody, 400, 0, 0, 0, "application/x-protobuf"},
		{"huge", "/x/v1/logs", "application/x-protobuf", "", make([]byte, MaxBody+1), 413, 0, 0, 0, "application/x-protobuf"},
		{"a gzip bomb", "/x/v1/logs", "application/x-protobuf", "gzip", bomb, 413, 0, 0, 0, "application/x-protobuf"},
		{"bad gzip", "/x/v1/logs", "application/x-protobuf", "gzip", good, 400, 0, 0, 0, "application/x-protobuf"},
		{"another encoding", "/x/v1/logs", "application/x-protobuf", "br", good, 400, 0, 0, 0, "application/x-protobuf"},
		{"another media type", "/x/v1/logs", "text/plain", "", good, 415, 0, 0, 0, "application/json"},
		{"no such signal", "/x/v1/profiles", "application/x-protobuf", "", good, 404, 0, 0, 0, "application/x-protobuf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var us []Usage
			var es []ModelError
			rv := NewReceiver(Limits{}, func(b Batch) { us, es = append(us, b.Usage...), append(es, b.Errors...) })
			q := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(c.body))
			q.Header.Set("Content-Type", c.ctype)
			if c.cenc != "" {
				q.Header.Set("Content-Encoding", c.cenc)
			}
			w := httptest.NewRecorder()
			rv.ServeHTTP(w, q)
			if w.Code != c.status || len(us) != c.usage || len(es) != c.errors {
				t.Fatalf("status %d, %d usage, %d errors; want %d, %d, %d\n%s", w.Code, len(us), len(es), c.status, c.usage, c.errors, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != c.replyType {
				t.Errorf("reply Content-Type %q, want %q", ct, c.replyType)
			}
			if c.status != 200 {
				return
			}
			// The reply is the signal's response, in the request's encoding.
			sig, _ := ParseSignal(c.path[3:])
			enc, _ := ParseContentType(c.replyType)
			want, _ := Reply(sig, enc, c.rejected, "")
			if c.rejected == 0 && !bytes.Equal(w.Body.Bytes(), want) {
				t.Errorf("reply %q, want %q", w.Body, want)
			}
			if c.rejected > 0 {
				var r collogs.ExportLogsServiceResponse
				var err error
				if enc == JSON {
					err = protojson.Unmarshal(w.Body.Bytes(), &r)
				} else {
					err = proto.Unmarshal(w.Body.Bytes(), &r)
				}
				if err != nil || r.GetPartialSuccess().GetRejectedLogRecords() != c.rejected || r.GetPartialSuccess().GetErrorMessage() == "" {
					t.Errorf("partial_success %v (%v), want %d rejected with a reason", r.GetPartialSuccess(), err, c.rejected)
				}
			}
			for _, e := range es {
				if len(e.Message) > MaxMessage || strings.ContainsAny(e.Message, "\u202e\x1b\n") || e.Status != 529 {
					t.Errorf("model error not bounded and ruled: status %d, %q", e.Status, e.Message)
				}
			}
			if c.name == "protobuf logs" && (us[0].Session != "s-1" || us[0].InputTokens != 10 || us[0].OutputTokens != 2 || !us[0].HasCost || us[0].CostUSD != 0.5) {
				t.Errorf("usage %+v", us[0])
			}
		})
	}
}

// TestReceiverFlood: past the rate, exports are refused with 429 and a
// Retry-After, and nothing of them is handed on.
func TestReceiverFlood(t *testing.T) {
	n := 0
	rv := NewReceiver(Limits{Requests: 5}, func(b Batch) { n += len(b.Usage) })
	body := logsBody(t, Protobuf, "claude_code.api_request", map[string]*common.AnyValue{"session.id": str("s"), "input_tokens": num(1)})
	var refused int
	for range 100 {
		q := httptest.NewRequest(http.MethodPost, "/v1/logs", bytes.NewReader(body))
		q.Header.Set("Content-Type", "application/x-protobuf")
		w := httptest.NewRecorder()
		rv.ServeHTTP(w, q)
		if w.Code == http.StatusTooManyRequests {
			refused++
			if w.Header().Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
	}
	if refused < 80 || n+refused != 100 || rv.Stats().Refused != int64(refused) {
		t.Errorf("%d refused, %d taken, stats %+v: want the flood refused past a burst of 11", refused, n, rv.Stats())
	}
}

// TestDecodeHexIDs: OTLP/JSON writes trace and span ids in hex; protojson
// reads bytes as base64, so it takes them without an error (other bytes).
// The board uses no id: the export is taken all the same.
func TestDecodeHexIDs(t *testing.T) {
	body := []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"chat","kind":3}]}]}]}`)
	req, err := Decode(Traces, JSON, body)
	if err != nil {
		t.Fatalf("hex ids refused: %v", err)
	}
	span := req.Traces.GetResourceSpans()[0].GetScopeSpans()[0].GetSpans()[0]
	if len(span.GetTraceId()) == 16 || span.GetName() != "chat" {
		t.Errorf("trace id %x (%d bytes): protojson now reads hex; update the doc of Decode", span.GetTraceId(), len(span.GetTraceId()))
	}
	// snake_case names are taken too.
	if _, err := Decode(Logs, JSON, []byte(`{"resource_logs":[{"scope_logs":[{"log_records":[{"time_unix_nano":"1"}]}]}]}`)); err != nil {
		t.Errorf("proto field names refused: %v", err)
	}
}

// FuzzDecodeMap: no body, in either encoding, panics the decoder or the
// mapping, and every Usage handed on is in range.
func FuzzDecodeMap(f *testing.F) {
	// Seeds: the recorded exports (every real CLI's logs in both
	// encodings, Copilot CLI's spans), a record with a count of the wrong type, empty and
	// nearly empty bodies.
	for _, name := range recordedNames(f) {
		// (The small ones: the fuzzer mutates a seed of 80 KB slowly.)
		// Copilot CLI's are spans: its traces are seeds too.
		if _, enc, body := recorded(f, name); strings.Contains(name, "logs") && len(body) < 8<<10 ||
			strings.HasPrefix(name, "copilot-") && strings.Contains(name, "traces") && len(body) < 32<<10 {
			f.Add(body, enc == JSON)
		}
	}
	f.Add(logsBody(f, Protobuf, "claude_code.api_request", map[string]*common.AnyValue{"session.id": str("s"), "input_tokens": str("1e99")}), false)
	f.Add([]byte(`{}`), true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		enc := Protobuf
		if asJSON {
			enc = JSON
		}
		for _, sig := range []Signal{Logs, Metrics, Traces} {
			req, err := Decode(sig, enc, body)
			if err != nil {
				continue
			}
			b := Map(req)
			for _, u := range b.Usage {
				if u.Session == "" || u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 ||
					u.CostUSD < 0 || u.CostUSD > maxCost || len(u.Session) > maxSession {
					t.Fatalf("out of range: %+v", u)
				}
			}
			for _, e := range b.Errors {
				if len(e.Message) > MaxMessage || strings.ContainsAny(e.Message, "\n\x1b") {
					t.Fatalf("message not ruled: %q", e.Message)
				}
			}
			if _, err := Reply(sig, enc, b.Rejected, b.Reason); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestReceiverIdle: a receiver that nothing reaches costs nothing — no
// goroutine, no timer (the rate limiters are arithmetic on the next call),
// so "--otel installed and no agent running" is the idle host.
func TestReceiverIdle(t *testing.T) {
	before := runtime.NumGoroutine()
	rvs := make([]*Receiver, 100)
	for i := range rvs {
		rvs[i] = NewReceiver(Limits{}, func(Batch) {})
	}
	if after := runtime.NumGoroutine(); after != before {
		t.Errorf("%d goroutines after making receivers, %d before", after, before)
	}
	if s := rvs[0].Stats(); s != (Stats{}) {
		t.Errorf("an idle receiver counted %+v", s)
	}
}
