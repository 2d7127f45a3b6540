package gemini

import (
	"fmt"
	"testing"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

func body(hook, extra string) []byte {
	return []byte(fmt.Sprintf(`{"session_id":"g","cwd":"/src/a","hook_event_name":%q,%s}`, hook, extra))
}

func only(s state.Session) hookjson.Lookup {
	return func(id string) (state.Session, bool) { return s, id == s.ID }
}

// last is the last event's tool, outcome and reason.
func last(t *testing.T, b []byte, lookup hookjson.Lookup) string {
	t.Helper()
	m, err := Map(b, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Events) == 0 {
		return ""
	}
	ev := m.Events[len(m.Events)-1]
	return ev.Type + " " + ev.Tool + " " + ev.Outcome + " " + ev.Reason
}

func TestMap(t *testing.T) {
	working := state.Session{ID: "g", Status: state.StatusWorking}
	shell := state.Session{ID: "g", Status: state.StatusWorking, Activity: &state.Activity{Kind: state.ActivityTool, Label: "run_shell_command"}}
	for _, tc := range []struct {
		name   string
		body   []byte
		lookup hookjson.Lookup
		want   string
	}{
		{"a result with an error object", body(AfterTool, `"tool_name":"x","tool_response":{"error":{"message":"boom"}}`), only(working), "tool.ended x error "},
		{"a result with an error string", body(AfterTool, `"tool_name":"x","tool_response":{"error":"boom"}`), only(working), "tool.ended x error "},
		{"a null error is none", body(AfterTool, `"tool_name":"x","tool_response":{"llmContent":"ok","error":null}`), only(working), "tool.ended x ok "},
		{"an empty error is none", body(AfterTool, `"tool_name":"x","tool_response":{"error":""}`), only(working), "tool.ended x ok "},
		{"a plain-text result", body(AfterTool, `"tool_name":"x","tool_response":"file contents"`), only(working), "tool.ended x ok "},
		{"a confirmation names the tool out", body(Notification, `"notification_type":"ToolPermission","message":"m","details":{"type":"exec","command":"ls -la"}`), only(shell), "approval.requested run_shell_command  ls -la"},
		{"else the MCP tool", body(Notification, `"notification_type":"ToolPermission","message":"m","details":{"type":"mcp","toolName":"create_issue"}`), only(working), "approval.requested create_issue  m"},
		{"else its kind", body(Notification, `"notification_type":"ToolPermission","message":"","details":{"type":"edit","title":"Confirm Edit"}`), only(working), "approval.requested replace  Confirm Edit"},
		{"else permission", body(Notification, `"notification_type":"ToolPermission","message":"m"`), only(working), "approval.requested permission  m"},
		{"another notification type: nothing", body(Notification, `"notification_type":"Other","message":"m"`), only(working), ""},
		{"a question", body(BeforeTool, `"tool_name":"ask_user","tool_input":{"question":"Now?"}`), only(working), "approval.requested ask_user  Now?"},
		{"a question list without text", body(BeforeTool, `"tool_name":"ask_user","tool_input":{"questions":[{"header":"Pick"}]}`), only(working), "approval.requested ask_user  Pick"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := last(t, tc.body, tc.lookup); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
