// Package otlp takes the agents' own OpenTelemetry exports (OTLP over HTTP,
// protobuf or JSON) and maps what the board uses to neutral records: a
// model call's tokens and cost (Usage) and a model call that failed
// (ModelError). Decoding is the OpenTelemetry project's own Go types
// (go.opentelemetry.io/proto/slim/otlp) through google.golang.org/protobuf
// (proto.Unmarshal, protojson.Unmarshal); nothing here parses OTLP by hand.
//
// decode.go reads a request body (Decode), bounded (MaxBody, gzip too);
// agents.go maps each agent's records (Map); receiver.go counts and
// delivers them (Receiver) and builds the OTLP/HTTP reply. What each real
// CLI sends is recorded in testdata/recorded/ (conformance/otel_test.go).
//
// OpenTelemetry says how much a session cost, never what state it is in:
// the hooks stay the source of every row (docs/agents.md).
package otlp

import "time"

// Usage is one model call's figures, as an agent's telemetry reported it.
type Usage struct {
	Agent   string // the install name: "claude-code", "codex", "gemini", "copilot"
	Session string // the agent's own session id (the hooks' session_id)
	Machine string // the host.name resource attribute, "" when not sent
	Model   string
	// Source names the record it came from ("claude_code.api_request",
	// "codex.sse_event", "gemini_cli.api_response", "gen_ai chat span").
	Source string
	At     time.Time // when the call ended, by the agent's clock

	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64

	CostUSD float64
	HasCost bool // the agent reported a cost (CostUSD 0 with HasCost is free)
}

// ModelError is a model call that failed, as the agent's telemetry said
// (Claude Code's api_error, Gemini CLI's api_error, Codex's api_request
// with an error, a Copilot CLI chat span with an error status).
type ModelError struct {
	Agent, Session, Machine, Model, Source string
	At                                     time.Time
	Status                                 int    // the HTTP status, 0 when not sent
	Message                                string // bounded (MaxMessage), one line
}

// Batch is what one export held that the board uses.
type Batch struct {
	Usage  []Usage
	Errors []ModelError
	// Records is how many records (log records, data points, spans) the
	// export held; Rejected how many of those named a figure the board
	// uses but carried it out of range (a negative count, a cost that is
	// not a finite amount): they are reported back as partial_success.
	Records, Rejected int64
	// Reason says why the first record was rejected, for partial_success's
	// error_message.
	Reason string
}
