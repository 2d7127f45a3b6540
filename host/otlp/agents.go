package otlp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	common "go.opentelemetry.io/proto/slim/otlp/common/v1"
	logs "go.opentelemetry.io/proto/slim/otlp/logs/v1"
	trace "go.opentelemetry.io/proto/slim/otlp/trace/v1"
)

// MaxMessage bounds a ModelError's message, in bytes.
const MaxMessage = 512

// maxCount is the largest token count taken (2^40: far past any window).
const maxCount = 1 << 40

// maxCost is the largest cost of one call taken, in dollars.
const maxCost = 1e6

// logEvent maps one kind of log record (by its event name) to what the
// board uses. What each agent sends was seen by running the real CLI
// against the stand-in model (testdata/recorded/):
//
//   - Claude Code 2.1.328: "claude_code.api_request" per model call
//     (session.id, model, input_tokens, output_tokens, cache_read_tokens,
//     cache_creation_tokens, cost_usd), "claude_code.api_error" (error,
//     status_code). Its metrics claude_code.token.usage and
//     claude_code.cost.usage carry the same figures summed (delta
//     temporality): they are not mapped, or every call would count twice.
//   - Codex 0.169.0: "codex.sse_event" of event.kind "response.completed"
//     with input_token_count … (conversation.id is the session), and
//     "codex.api_request" with its http.response.status_code. Input counts
//     include the cached part, which is taken out (InputTokens is the
//     uncached input for every agent). No cost.
//   - Gemini CLI 0.61.0: "gemini_cli.api_response" (input_token_count,
//     output_token_count, cached_content_token_count; input includes the
//     cached part) and "gemini_cli.api_error". No cost.
type logEvent struct {
	agent  string
	mapLog func(r record, b *Batch)
}

var logEvents = map[string]logEvent{
	"claude_code.api_request": {"claude-code", claudeRequest},
	"claude_code.api_error":   {"claude-code", modelError("error", "status_code")},
	"codex.sse_event":         {"codex", codexResponse},
	"codex.api_request":       {"codex", codexRequest},
	"gemini_cli.api_response": {"gemini", geminiResponse},
	"gemini_cli.api_error":    {"gemini", modelError("error", "status_code")},
	"gemini_cli.api_error.v2": {"gemini", modelError("error", "status_code")},
}

// record is one log record with its resource's attributes beside it.
type record struct {
	agent    string
	name     string
	attrs    []*common.KeyValue
	resource []*common.KeyValue
	at       time.Time
}

// str is an attribute's value as text ("" when absent), the record's own
// first, else its resource's.
func (r record) str(key string) string {
	v := r.value(key)
	if v == nil {
		return ""
	}
	switch x := v.Value.(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *common.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *common.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	}
	return ""
}

func (r record) value(key string) *common.AnyValue {
	for _, list := range [][]*common.KeyValue{r.attrs, r.resource} {
		for _, kv := range list {
			if kv.GetKey() == key {
				return kv.GetValue()
			}
		}
	}
	return nil
}

// count is a token count attribute: an integer, or a string of one (Codex
// sends some counts as strings). ok is false when absent; err when present
// but not a count in range.
func (r record) count(key string) (n int64, ok bool, err error) {
	v := r.value(key)
	if v == nil {
		return 0, false, nil
	}
	switch x := v.Value.(type) {
	case *common.AnyValue_IntValue:
		n = x.IntValue
	case *common.AnyValue_StringValue:
		n, err = strconv.ParseInt(strings.TrimSpace(x.StringValue), 10, 64)
		if err != nil {
			return 0, true, fmt.Errorf("%s is not a count", key)
		}
	case *common.AnyValue_DoubleValue:
		if x.DoubleValue != math.Trunc(x.DoubleValue) || math.IsInf(x.DoubleValue, 0) {
			return 0, true, fmt.Errorf("%s is not a count", key)
		}
		n = int64(x.DoubleValue)
	default:
		return 0, true, fmt.Errorf("%s is not a count", key)
	}
	if n < 0 || n > maxCount {
		return 0, true, fmt.Errorf("%s out of range", key)
	}
	return n, true, nil
}

// cost is a cost attribute in dollars: a finite amount, 0 … maxCost.
func (r record) cost(key string) (usd float64, ok bool, err error) {
	v := r.value(key)
	if v == nil {
		return 0, false, nil
	}
	switch x := v.Value.(type) {
	case *common.AnyValue_DoubleValue:
		usd = x.DoubleValue
	case *common.AnyValue_IntValue:
		usd = float64(x.IntValue)
	case *common.AnyValue_StringValue:
		usd, err = strconv.ParseFloat(strings.TrimSpace(x.StringValue), 64)
		if err != nil {
			return 0, true, fmt.Errorf("%s is not an amount", key)
		}
	default:
		return 0, true, fmt.Errorf("%s is not an amount", key)
	}
	if math.IsNaN(usd) || usd < 0 || usd > maxCost {
		return 0, true, fmt.Errorf("%s out of range", key)
	}
	return usd, true, nil
}

// usage is the record's Usage with its session, model and time; ok is
// false (and the record rejected) without a session id.
func (r record) usage(b *Batch, session string) (Usage, bool) {
	session = text(session, maxSession)
	if session == "" {
		b.reject(r.name + " without a session id")
		return Usage{}, false
	}
	return Usage{Agent: r.agent, Session: session, Machine: text(r.str("host.name"), 255), Model: text(r.str("model"), 255), Source: r.name, At: r.at}, true
}

// field is a count attribute and where it goes.
type field struct {
	key string
	dst *int64
}

// counts reads the fields' counts, all or none: one bad count rejects the
// record (an absent one is 0).
func (r record) counts(b *Batch, fs ...field) bool {
	for _, f := range fs {
		n, _, err := r.count(f.key)
		if err != nil {
			b.reject(r.name + ": " + err.Error())
			return false
		}
		*f.dst = n
	}
	return true
}

func claudeRequest(r record, b *Batch) {
	u, ok := r.usage(b, r.str("session.id"))
	if !ok || !r.counts(b, field{"input_tokens", &u.InputTokens}, field{"output_tokens", &u.OutputTokens},
		field{"cache_read_tokens", &u.CacheReadTokens}, field{"cache_creation_tokens", &u.CacheWriteTokens}) {
		return
	}
	usd, has, err := r.cost("cost_usd")
	if err != nil {
		b.reject(r.name + ": " + err.Error())
		return
	}
	u.CostUSD, u.HasCost = usd, has
	b.Usage = append(b.Usage, u)
}

func codexResponse(r record, b *Batch) {
	// Codex logs response.completed twice, once with the counts: only that
	// one is a call's usage.
	if r.str("event.kind") != "response.completed" || r.value("input_token_count") == nil {
		return
	}
	u, ok := r.usage(b, r.str("conversation.id"))
	if !ok || !r.counts(b, field{"input_token_count", &u.InputTokens}, field{"output_token_count", &u.OutputTokens},
		field{"cached_token_count", &u.CacheReadTokens}, field{"cache_write_token_count", &u.CacheWriteTokens}) {
		return
	}
	u.InputTokens = max(0, u.InputTokens-u.CacheReadTokens)
	b.Usage = append(b.Usage, u)
}

func codexRequest(r record, b *Batch) {
	status, _, _ := r.count("http.response.status_code")
	msg := r.str("error.message")
	if status < 400 && msg == "" {
		return
	}
	addError(r, b, r.str("conversation.id"), status, msg)
}

func geminiResponse(r record, b *Batch) {
	u, ok := r.usage(b, r.str("session.id"))
	if !ok || !r.counts(b, field{"input_token_count", &u.InputTokens}, field{"output_token_count", &u.OutputTokens},
		field{"cached_content_token_count", &u.CacheReadTokens}) {
		return
	}
	u.InputTokens = max(0, u.InputTokens-u.CacheReadTokens)
	b.Usage = append(b.Usage, u)
}

// modelError maps an api_error event with its message and status keys.
func modelError(msgKey, statusKey string) func(record, *Batch) {
	return func(r record, b *Batch) {
		status, _, _ := r.count(statusKey)
		addError(r, b, r.str("session.id"), status, r.str(msgKey))
	}
}

func addError(r record, b *Batch, session string, status int64, msg string) {
	session = text(session, maxSession)
	if session == "" {
		b.reject(r.name + " without a session id")
		return
	}
	if status < 0 || status > 999 {
		status = 0
	}
	b.Errors = append(b.Errors, ModelError{Agent: r.agent, Session: session, Machine: text(r.str("host.name"), 255),
		Model: text(r.str("model"), 255), Source: r.name, At: r.at, Status: int(status), Message: text(msg, MaxMessage)})
}

// maxSession bounds a session id (as state.MaxSessionID does for rows).
const maxSession = 256

// text is s made one line of printable text, at most n bytes (cut on a
// rune): control and format characters (bidi overrides among them) go.
func text(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	clean := strings.Map(func(c rune) rune {
		switch {
		case c == '\n' || c == '\t' || c == '\r':
			return ' '
		case unicode.IsControl(c) || unicode.Is(unicode.Cf, c):
			return -1
		}
		return c
	}, s)
	clean = strings.TrimSpace(clean)
	if len(clean) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(clean[cut]) {
			cut--
		}
		clean = clean[:cut]
	}
	return clean
}

func (b *Batch) reject(reason string) {
	if b.Rejected == 0 {
		b.Reason = text(reason, MaxMessage)
	}
	b.Rejected++
}

// eventName is a log record's event: its event.name attribute, made whole
// from its body when the attribute is the bare name (Claude Code:
// event.name "api_request", body "claude_code.api_request"), else its
// event_name field (Codex fills that field with its source line, and the
// attribute with the event).
func eventName(lr *logs.LogRecord) string {
	for _, kv := range lr.GetAttributes() {
		if kv.GetKey() != "event.name" {
			continue
		}
		name := kv.GetValue().GetStringValue()
		if body := lr.GetBody().GetStringValue(); name != "" && strings.HasSuffix(body, "."+name) {
			return body
		}
		return name
	}
	return lr.GetEventName()
}

// recordTime is when a record happened: its time, else its event.timestamp
// attribute (Codex sends time 0), else when the SDK observed it.
func recordTime(lr *logs.LogRecord) time.Time {
	if t := lr.GetTimeUnixNano(); t > 0 && t < math.MaxInt64 {
		return time.Unix(0, int64(t)).UTC()
	}
	for _, kv := range lr.GetAttributes() {
		if kv.GetKey() == "event.timestamp" {
			if t, err := time.Parse(time.RFC3339Nano, kv.GetValue().GetStringValue()); err == nil {
				return t.UTC()
			}
		}
	}
	if t := lr.GetObservedTimeUnixNano(); t > 0 && t < math.MaxInt64 {
		return time.Unix(0, int64(t)).UTC()
	}
	return time.Time{}
}

// Map is what a decoded export holds that the board uses: log records
// (logEvent says which) and GitHub Copilot CLI's chat spans (copilotSpan);
// metrics and every other span are counted.
func Map(req Request) Batch {
	var b Batch
	switch {
	case req.Logs != nil:
		for _, rl := range req.Logs.GetResourceLogs() {
			res := rl.GetResource().GetAttributes()
			for _, sl := range rl.GetScopeLogs() {
				for _, lr := range sl.GetLogRecords() {
					b.Records++
					name := eventName(lr)
					ev, ok := logEvents[name]
					if !ok {
						continue
					}
					ev.mapLog(record{agent: ev.agent, name: name, attrs: lr.GetAttributes(), resource: res, at: recordTime(lr)}, &b)
				}
			}
		}
	case req.Metrics != nil:
		for _, rm := range req.Metrics.GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					b.Records += int64(len(m.GetSum().GetDataPoints()) + len(m.GetGauge().GetDataPoints()) +
						len(m.GetHistogram().GetDataPoints()) + len(m.GetExponentialHistogram().GetDataPoints()) + len(m.GetSummary().GetDataPoints()))
				}
			}
		}
	case req.Traces != nil:
		for _, rs := range req.Traces.GetResourceSpans() {
			res := rs.GetResource().GetAttributes()
			for _, ss := range rs.GetScopeSpans() {
				b.Records += int64(len(ss.GetSpans()))
				if !copilotScope(ss.GetScope().GetName(), res) {
					continue
				}
				for _, sp := range ss.GetSpans() {
					copilotSpan(sp, res, &b)
				}
			}
		}
	}
	return b
}

// GitHub Copilot CLI 1.0.102 exports no logs: its OpenTelemetry is spans
// and metrics (GenAI semantic conventions), seen by running it against the
// stand-in (testdata/recorded/copilot-*): an invoke_agent span per turn
// (and per subagent), a "chat <model>" span per model call, an
// execute_tool span per tool. Every span carries gen_ai.conversation.id,
// the session id its hooks send (a subagent's spans carry its parent's).
// Only the chat spans are mapped: invoke_agent's tokens are its chat
// spans' sum, and the metrics (gen_ai.client.inference.usage.*) the same
// calls again.

// copilotSource and copilotService are Copilot CLI's instrumentation scope
// and service name (COPILOT_OTEL_SOURCE_NAME and OTEL_SERVICE_NAME change
// them; a span with neither is not taken as Copilot's).
const (
	copilotSource  = "github.copilot"
	copilotService = "github-copilot"
)

func copilotScope(scope string, res []*common.KeyValue) bool {
	if scope == copilotSource {
		return true
	}
	for _, kv := range res {
		if kv.GetKey() == "service.name" {
			return kv.GetValue().GetStringValue() == copilotService
		}
	}
	return false
}

// copilotSpan maps one chat span: its gen_ai.usage.* counts as a Usage
// (input_tokens includes the cached input, as the GenAI conventions say,
// so the cache's part is taken out), or, with an error status, a
// ModelError. github.copilot.cost is not a dollar amount (Copilot's own
// units; 0 on a provider of your own): no cost is taken.
func copilotSpan(sp *trace.Span, res []*common.KeyValue, b *Batch) {
	r := record{agent: "copilot", name: "gen_ai chat span", attrs: sp.GetAttributes(), resource: res, at: spanTime(sp)}
	if r.str("gen_ai.operation.name") != "chat" {
		return
	}
	model := r.str("gen_ai.response.model")
	if model == "" {
		model = r.str("gen_ai.request.model")
	}
	session := r.str("gen_ai.conversation.id")
	if sp.GetStatus().GetCode() == trace.Status_STATUS_CODE_ERROR {
		msg := sp.GetStatus().GetMessage()
		if t := r.str("error.type"); t != "" {
			msg = strings.TrimSpace(msg + " (" + t + ")")
		}
		status, _, _ := r.count("http.response.status_code")
		for _, ev := range sp.GetEvents() {
			if n, ok, err := (record{attrs: ev.GetAttributes()}).count("github.copilot.error_status_code"); ok && err == nil && status == 0 {
				status = n
			}
		}
		before := len(b.Errors)
		addError(r, b, session, status, msg)
		if len(b.Errors) > before {
			b.Errors[before].Model = text(model, 255)
		}
		return
	}
	if r.value("gen_ai.usage.input_tokens") == nil && r.value("gen_ai.usage.output_tokens") == nil {
		return
	}
	u, ok := r.usage(b, session)
	if !ok || !r.counts(b, field{"gen_ai.usage.input_tokens", &u.InputTokens}, field{"gen_ai.usage.output_tokens", &u.OutputTokens},
		field{"gen_ai.usage.cache_read.input_tokens", &u.CacheReadTokens}, field{"gen_ai.usage.cache_write.input_tokens", &u.CacheWriteTokens}) {
		return
	}
	u.Model = text(model, 255)
	u.InputTokens = max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	b.Usage = append(b.Usage, u)
}

// spanTime is when a span ended (a model call's end), else when it began.
func spanTime(sp *trace.Span) time.Time {
	for _, t := range []uint64{sp.GetEndTimeUnixNano(), sp.GetStartTimeUnixNano()} {
		if t > 0 && t < math.MaxInt64 {
			return time.Unix(0, int64(t)).UTC()
		}
	}
	return time.Time{}
}
