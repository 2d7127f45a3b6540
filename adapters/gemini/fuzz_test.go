package gemini

import (
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

// FuzzMap: a hook body is outside input. Map never panics, every event it
// emits validates, and its batch always applies.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each hook, as Gemini CLI sends it.
		`{"session_id":"g","transcript_path":"/t/g.json","cwd":"/src/a","hook_event_name":"SessionStart","timestamp":"2026-01-01T00:00:00Z","source":"startup"}`,
		`{"session_id":"g","cwd":"/src/a","hook_event_name":"BeforeAgent","prompt":"go"}`,
		`{"session_id":"g","cwd":"/src/a","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		`{"session_id":"g","cwd":"/src/a","hook_event_name":"Notification","notification_type":"ToolPermission","message":"m","details":{"type":"exec","command":"rm -rf /"}}`,
		`{"session_id":"g","cwd":"/src/a","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":{"error":{"message":"x"}}}`,
		`{"session_id":"g","cwd":"/src/a","hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":{"questions":[{"question":"Q?"}]}}`,
		`{"session_id":"g","hook_event_name":"AfterAgent","prompt_response":"done"}`,
		`{"session_id":"g","hook_event_name":"AfterAgent","prompt_response":"[no response text]"}`,
		`{"session_id":"g","hook_event_name":"AfterModel","llm_response":{"candidates":[],"usageMetadata":{"promptTokenCount":10241}}}`,
		`{"session_id":"g","hook_event_name":"AfterModel","llm_response":{"usageMetadata":{"promptTokenCount":-5}}}`,
		`{"session_id":"g","hook_event_name":"AfterModel","llm_response":{"usageMetadata":{"promptTokenCount":1e400}}}`,
		`{"session_id":"g","hook_event_name":"AfterModel","llm_response":"text"}`,
		`{"session_id":"g","hook_event_name":"SessionEnd","reason":"exit"}`,
		// Odd and refused.
		`{"session_id":"g","hook_event_name":"AfterTool","tool_name":"x","tool_response":"plain text"}`,
		`{"session_id":"g","hook_event_name":"Notification","notification_type":"ToolPermission","details":[1]}`,
		`{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":{"questions":"no"}}`,
		"{\"session_id\":\"g\\u2028\",\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"\\u202e\"}",
		`{"hook_event_name":"AfterAgent"}`,
		`null`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}
