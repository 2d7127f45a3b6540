package codex

import (
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

// FuzzMap: a hook body or notification is outside input. Map never panics,
// every event it emits validates, and its batch always applies.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each hook and the notification, as Codex sends them.
		`{"session_id":"t","transcript_path":null,"cwd":"/src/a","hook_event_name":"SessionStart","model":"m","permission_mode":"default","source":"startup"}`,
		`{"session_id":"t","turn_id":"1","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt":"go"}`,
		`{"session_id":"t","turn_id":"1","cwd":"/src/a","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"c"}`,
		`{"session_id":"t","turn_id":"1","cwd":"/src/a","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf x","description":"d"}}`,
		`{"session_id":"t","turn_id":"1","cwd":"/src/a","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":"ok"}`,
		`{"session_id":"t","turn_id":"1","hook_event_name":"Stop","stop_hook_active":false}`,
		`{"session_id":"t","turn_id":"1","hook_event_name":"SubagentStart","agent_id":"a","agent_type":"r"}`,
		`{"session_id":"t","turn_id":"1","hook_event_name":"Interrupt"}`,
		`{"session_id":"t","hook_event_name":"SessionEnd","reason":"exit"}`,
		`{"type":"agent-turn-complete","thread-id":"t","turn-id":"1","cwd":"/src/a","input-messages":["x"],"last-assistant-message":"y"}`,
		// Odd and refused.
		`{"type":"agent-turn-complete","thread-id":"a\u0000b\u202e","cwd":"\n"}`,
		`{"type":"agent-turn-complete"}`,
		`{"type":"other","thread-id":"t"}`,
		`{"type":1}`,
		`{"session_id":"t","hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_input":{"question":7}}`,
		// request_user_input as 0.169 sends it, and its questions odd.
		`{"session_id":"t","hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_input":{"questions":[{"id":"c","header":"Colour","question":"Which?","options":[{"label":"Teal"}]}]}}`,
		`{"session_id":"t","hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_input":{"questions":[{"question":null},{"question":"\u202e\n"},7]}}`,
		`[]`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}
