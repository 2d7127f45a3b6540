package claudecode

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/internal/golden"
)

// FuzzMap: a hook body is outside input. Map never panics, every event it
// emits validates, and its batch always applies to the fold it looked up,
// whether the rows are held or not and whether an approval is pending.
func FuzzMap(f *testing.F) {
	for _, seed := range []string{
		// Each documented hook, as Claude Code sends it.
		`{"session_id":"s","transcript_path":"/t/s.jsonl","cwd":"/src/a","hook_event_name":"SessionStart","source":"startup","model":"m","session_title":"T"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt":"go"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"UserPromptSubmit","prompt":"<task-notification>\n<task-id>x</task-id>"}`,
		"{\"session_id\":\"s\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"\\u202e\\r\\n\\u2028 title\"}",
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":"Wipe"}}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{}}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"x","is_interrupt":true}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PermissionDenied","tool_name":"Bash","reason":"no"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"Explore"}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"PreToolUse","agent_id":"a1","agent_type":"Explore","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Q?"}]}}`,
		`{"session_id":"s","cwd":"/src/a","hook_event_name":"SubagentStop","agent_id":"a1","agent_transcript_path":"/t/a1.jsonl"}`,
		`{"session_id":"s","hook_event_name":"Stop"}`,
		`{"session_id":"s","hook_event_name":"StopFailure","error":"rate_limit"}`,
		`{"session_id":"s","hook_event_name":"SessionEnd","reason":"exit"}`,
		// Hostile or odd: controls and a bidi override, a parent naming
		// itself, a huge id, an agent id with a slash, wrong types, refusals.
		"{\"session_id\":\"a\\u0000b\",\"cwd\":\"/\\u202e\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"\\t\\n\"}",
		`{"session_id":"p","agent_id":"","hook_event_name":"SubagentStart"}`,
		`{"session_id":"` + strings.Repeat("x", 250) + `","agent_id":"a/b","hook_event_name":"PostToolUse","tool_name":"X"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":7,"tool_input":"x","cwd":null}`,
		`{"session_id":"s"}`,
		`[1,2]`,
		"\xff",
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, pending bool) {
		golden.CheckMap(t, Map, body, pending)
	})
}
