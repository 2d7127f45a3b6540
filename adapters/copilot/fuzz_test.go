package copilot

import (
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

// FuzzMap: a hook body is outside input. Map never panics, every event it
// emits validates, and its batch always applies.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each hook, as Copilot CLI 1.0.102 sends it (recorded).
		`{"hook_event_name":"SessionStart","session_id":"c","timestamp":"2026-12-03T16:46:16.688Z","cwd":"/src/a","source":"new","initial_prompt":"go"}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"c","cwd":"/src/a","prompt":"go"}`,
		`{"hook_event_name":"PreToolUse","session_id":"c","cwd":"/src/a","tool_name":"Bash","tool_input":{"command":"ls","description":"List"}}`,
		`{"sessionId":"c","cwd":"/src/a","message":"Run command: ls","title":"Permission needed","hook_event_name":"Notification","notification_type":"permission_prompt"}`,
		`{"hook_event_name":"PostToolUse","session_id":"c","tool_name":"Bash","tool_result":{"result_type":"success","text_result_for_llm":"ok"}}`,
		`{"hook_event_name":"PostToolUseFailure","session_id":"c","tool_name":"Bash","error":"exit 2"}`,
		`{"hook_event_name":"Stop","session_id":"c","transcript_path":"/h/.copilot/session-state/c/events.jsonl","stop_reason":"end_turn"}`,
		`{"hook_event_name":"UserPromptSubmit","session_id":"a","agent_id":"a","agent_type":"general-purpose","parent_agent_id":"c","prompt":"p"}`,
		`{"hook_event_name":"SubagentStop","session_id":"c","agent_id":"a","parent_agent_id":"c","agent_name":"general-purpose"}`,
		`{"hook_event_name":"ErrorOccurred","session_id":"c","error":{"message":"400","name":"Error"},"error_context":"model_call","recoverable":true}`,
		`{"hook_event_name":"SessionEnd","session_id":"c","reason":"error"}`,
		// Odd and refused.
		`{"hook_event_name":"PreToolUse","session_id":"c","tool_name":"ask_user","tool_input":{"question":7}}`,
		`{"hook_event_name":"Stop","session_id":"a","agent_id":"a","parent_agent_id":""}`,
		`{"hook_event_name":"Stop","session_id":"a","agent_id":"a","parent_agent_id":"a"}`,
		`{"hookName":"permissionRequest","sessionId":"c","toolName":"bash"}`,
		"{\"hook_event_name\":\"PreToolUse\",\"sessionId\":\"c\\u2028\",\"tool_name\":\"\\u202e\"}",
		`{"hook_event_name":"Notification","sessionId":"c","notification_type":"permission_prompt","message":{"a":1}}`,
		`null`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}
