package pi

import (
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/internal/golden"
	"github.com/notch-web/notch-web/state"
)

// FuzzMap: an extension's POST body is outside input (anything on the
// machine can POST to the endpoint). Map never panics, every event it
// emits validates, and its batch always applies.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each event, as the extension sends it.
		`{"hook_event_name":"session_start","session_id":"s","transcript_path":"/h/.pi/agent/sessions/--p--/t_s.jsonl","cwd":"/src/a","properties":{"reason":"startup"}}`,
		`{"hook_event_name":"before_agent_start","session_id":"s","cwd":"/src/a","properties":{"prompt":"Fix the build"}}`,
		`{"hook_event_name":"tool_execution_start","session_id":"s","properties":{"toolCallId":"t","toolName":"bash"}}`,
		`{"hook_event_name":"tool_execution_end","session_id":"s","properties":{"toolCallId":"t","toolName":"bash","isError":true}}`,
		`{"hook_event_name":"message_end","session_id":"s","properties":{"role":"assistant","stopReason":"toolUse","usage":{"input":2000,"cacheRead":9007199254740993,"cacheWrite":-1}}}`,
		`{"hook_event_name":"agent_end","session_id":"s","properties":{"stopReason":"aborted"}}`,
		`{"hook_event_name":"agent_end","session_id":"s","properties":{"stopReason":"error","errorMessage":"429 rate limited"}}`,
		`{"hook_event_name":"session_shutdown","session_id":"s","properties":{"reason":"quit"}}`,
		// Odd and refused.
		"{\"hook_event_name\":\"before_agent_start\",\"session_id\":\"s\\u202e\",\"properties\":{\"prompt\":\"\\u2028<b>x</b>\"}}",
		`{"hook_event_name":"agent_end","session_id":"s","properties":"x"}`,
		`{"hook_event_name":"session_start"}`,
		`[]`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}

// FuzzSettled: a session file is the agent's, outside input.
func FuzzSettled(f *testing.F) {
	for _, seed := range []string{
		realAnswer,  // stop: completed
		realToolUse, // a step that calls tools: open
		`{"type":"message","message":{"role":"assistant","stopReason":"error","timestamp":1}}`,
		`{"type":"message","message":{"role":"assistant","stopReason":"aborted","timestamp":"x"}}`,
		`{"type":"session","version":3}`,
		`null`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		path := write(t, string(line))
		if o, ok := Settled(path, time.UnixMilli(0)); ok != (o != "") || (ok && o != state.OutcomeCompleted && o != state.OutcomeError) {
			t.Fatalf("Settled = %q, %v", o, ok)
		}
	})
}
