package copilot

import (
	"errors"
	"testing"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// TestDecode: the session and transcript Copilot CLI names in either
// spelling, a subagent's own hook moved to its session, and refusals.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, body                 string
		session, agent, transcript string
		err                        bool
	}{
		{"snake", `{"hook_event_name":"Stop","session_id":"s","transcript_path":"/h/e.jsonl"}`, "s", "", "/h/e.jsonl", false},
		{"notification's sessionId", `{"hook_event_name":"Notification","sessionId":"s"}`, "s", "", "", false},
		{"session_id wins over sessionId", `{"hook_event_name":"Stop","session_id":"a","sessionId":"b"}`, "a", "", "", false},
		{"transcriptPath", `{"hook_event_name":"Stop","session_id":"s","transcriptPath":"/h/e.jsonl"}`, "s", "", "/h/e.jsonl", false},
		{"a subagent's own hook", `{"hook_event_name":"Stop","session_id":"sub","agent_id":"sub","parent_agent_id":"s"}`, "s", "sub", "", false},
		{"the session's hook about a subagent", `{"hook_event_name":"SubagentStop","session_id":"s","agent_id":"sub","parent_agent_id":"s"}`, "s", "sub", "", false},
		{"camelCase names no event", `{"sessionId":"s","toolName":"bash"}`, "", "", "", true},
		{"no session", `{"hook_event_name":"Stop"}`, "", "", "", true},
		{"sessionId not a string", `{"hook_event_name":"Stop","sessionId":7}`, "", "", "", true},
		{"duplicate key", `{"hook_event_name":"Stop","session_id":"a","session_id":"b"}`, "", "", "", true},
		{"not an object", `[1]`, "", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decode([]byte(tc.body))
			if tc.err {
				if !errors.Is(err, hookjson.ErrPayload) {
					t.Fatalf("err = %v, want ErrPayload", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.SessionID != tc.session || p.AgentID != tc.agent || p.TranscriptPath != tc.transcript {
				t.Errorf("got session %q agent %q transcript %q", p.SessionID, p.AgentID, p.TranscriptPath)
			}
		})
	}
}

// TestMap: what each hook means for a row in a given state.
func TestMap(t *testing.T) {
	working := state.Session{ID: "s", Status: state.StatusWorking, Activity: &state.Activity{Kind: state.ActivityTool, Label: "Bash"}}
	done := state.Session{ID: "s", Status: state.StatusDone}
	asking := state.Session{ID: "s", Status: state.StatusAttention, Approval: &state.Approval{ToolName: "Bash"}}
	for _, tc := range []struct {
		name string
		row  *state.Session
		body string
		want []string // event types, in order
	}{
		{"permission prompt while working", &working, `{"hook_event_name":"Notification","sessionId":"s","notification_type":"permission_prompt","message":"Run command: ls"}`, []string{state.TypeApprovalRequested}},
		{"elicitation while working", &working, `{"hook_event_name":"Notification","sessionId":"s","notification_type":"elicitation_dialog","message":"Pick one"}`, []string{state.TypeApprovalRequested}},
		{"late permission prompt on a done row", &done, `{"hook_event_name":"Notification","sessionId":"s","notification_type":"permission_prompt"}`, nil},
		{"a second prompt while one is pending", &asking, `{"hook_event_name":"Notification","sessionId":"s","notification_type":"permission_prompt"}`, nil},
		{"another notification", &working, `{"hook_event_name":"Notification","sessionId":"s","notification_type":"agent_idle"}`, nil},
		{"the asked tool runs", &asking, `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_result":{"result_type":"success"}}`, []string{state.TypeApprovalResolved, state.TypeToolEnded}},
		{"a failed result", &working, `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_result":{"result_type":"failure"}}`, []string{state.TypeToolEnded}},
		{"ErrorOccurred says nothing", &working, `{"hook_event_name":"ErrorOccurred","session_id":"s","error_context":"model_call","recoverable":true}`, nil},
		{"SubagentStop without agent_id", &working, `{"hook_event_name":"SubagentStop","session_id":"s"}`, nil},
		{"SessionEnd of an unheld row", nil, `{"hook_event_name":"SessionEnd","session_id":"s","reason":"complete"}`, nil},
		{"SessionEnd", &done, `{"hook_event_name":"SessionEnd","session_id":"s","reason":"user_exit"}`, []string{state.TypeSessionEnded}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(id string) (state.Session, bool) {
				if tc.row == nil || id != tc.row.ID {
					return state.Session{}, false
				}
				return *tc.row, true
			}
			m, err := Map([]byte(tc.body), lookup)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ev := range m.Events {
				got = append(got, ev.Type)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("events %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestSubagentTranscriptIsTheParents: a subagent's Stop names the session's
// own file, which must not become the subagent row's (its tokens would be
// the session's).
func TestSubagentTranscriptIsTheParents(t *testing.T) {
	m, err := Map([]byte(`{"hook_event_name":"Stop","session_id":"sub","agent_id":"sub","parent_agent_id":"s","transcript_path":"/h/e.jsonl"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Transcript != (hookjson.Transcript{}) {
		t.Errorf("transcript %+v, want none", m.Transcript)
	}
}
