package qwen

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

// FuzzMap: a hook body is outside input. Map never panics, every event it
// emits validates, and its batch always applies to the fold it looked up.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each hook as Qwen Code 0.24.4 sends it (recorded, shortened).
		`{"session_id":"s","transcript_path":"/h/.qwen/projects/p/chats/s.jsonl","cwd":"/src/a","hook_event_name":"SessionStart","permission_mode":"default","source":"startup","model":"m"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"Notification","message":"Successfully authenticated with openai","notification_type":"auth_success","title":"Authentication successful"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt_id":"s########0","prompt":"go","submitted_prompt":"go"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt_id":"s########0","prompt":""}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PermissionRequest","tool_name":"run_shell_command","tool_input":{"command":"touch x","description":"d","is_background":false}}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"Notification","message":"Qwen Code needs your permission to use run_shell_command","notification_type":"permission_prompt"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"Notification","message":"Qwen Code is waiting for your input","notification_type":"idle_prompt"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_use_id":"t","tool_call_id":"c"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PostToolUse","tool_name":"run_shell_command","tool_response":{"llmContent":"ok"},"duration_ms":27}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"SubagentStart","agent_id":"general-purpose-c1","agent_type":"general-purpose"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"SubagentStop","agent_id":"general-purpose-c1","agent_type":"general-purpose","agent_transcript_path":"/h/s.jsonl"}`,
		`{"session_id":"s","hook_event_name":"Stop","context_usage":0.01,"context_limit":200000,"input_tokens":2000}`,
		`{"session_id":"s","hook_event_name":"StopFailure","error":"invalid_request","error_details":"400 x"}`,
		`{"session_id":"s","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`,
		// Hostile or odd: a bidi override, a count too large or negative,
		// wrong types, a huge id, not an object.
		"{\"session_id\":\"s\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"\\u202e\\r\\n title\"}",
		`{"session_id":"s","hook_event_name":"Stop","input_tokens":1e300}`,
		`{"session_id":"s","hook_event_name":"Stop","input_tokens":-5}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"exit_plan_mode","tool_input":{"plan":7}}`,
		`{"session_id":"` + strings.Repeat("x", 250) + `","agent_id":"a/b","hook_event_name":"Notification","notification_type":"idle_prompt"}`,
		`[1]`,
		"\xff",
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}
