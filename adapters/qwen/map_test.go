package qwen

import (
	"fmt"
	"testing"

	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

func body(hook, extra string) []byte {
	return []byte(fmt.Sprintf(`{"session_id":"q","cwd":"/src/a","hook_event_name":%q,%s}`, hook, extra))
}

func only(s state.Session) hookjson.Lookup {
	return func(id string) (state.Session, bool) { return s, id == s.ID }
}

// events is every event's type, tool, outcome, reason and tokens.
func events(t *testing.T, mapf func([]byte, hookjson.Lookup) (hookjson.Mapping, error), b []byte, lookup hookjson.Lookup) string {
	t.Helper()
	m, err := mapf(b, lookup)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, ev := range m.Events {
		if out != "" {
			out += "; "
		}
		out += ev.Type
		for _, s := range []string{ev.Tool, ev.Outcome, ev.Reason} {
			if s != "" {
				out += " " + s
			}
		}
		if ev.Tokens != nil {
			out += fmt.Sprint(" ", *ev.Tokens)
		}
	}
	return out
}

func TestMap(t *testing.T) {
	working := state.Session{ID: "q", Status: state.StatusWorking}
	asking := state.Session{ID: "q", Status: state.StatusAttention, Approval: &state.Approval{ToolName: "run_shell_command"}}
	done := state.Session{ID: "q", Status: state.StatusDone}
	failed := state.Session{ID: "q", Status: state.StatusError}
	shell := state.Session{ID: "q", Status: state.StatusWorking, Activity: &state.Activity{Kind: state.ActivityTool, Label: "run_shell_command"}}
	for _, tc := range []struct {
		name   string
		body   []byte
		lookup hookjson.Lookup
		want   string
	}{
		{"a prompt starts a turn and titles the row", body("UserPromptSubmit", `"prompt":"Fix the build","submitted_prompt":"Fix the build"`), only(done),
			"turn.started; session.titled"},
		{"the empty prompt sent with a tool's results is the same turn", body("UserPromptSubmit", `"prompt":""`), only(working), ""},
		{"Stop gives the context tokens, then ends the turn", body("Stop", `"context_limit":200000,"input_tokens":2100`), only(working),
			"context.tokens 2100; turn.ended completed"},
		{"Stop without a count ends the turn", body("Stop", `"input_tokens":"many"`), only(working), "turn.ended completed"},
		{"a subagent's stop is its row's, without the session's tokens", body("SubagentStop", `"agent_id":"a1","agent_type":"general-purpose","input_tokens":9`),
			func(id string) (state.Session, bool) { return state.Session{ID: id, Status: state.StatusWorking}, true }, "turn.ended completed"},
		{"a permission request asks, its reason the description", body("PermissionRequest", `"tool_name":"run_shell_command","tool_input":{"command":"touch x","description":"Create a marker file"}`), only(working),
			"approval.requested run_shell_command Create a marker file"},
		{"the permission notification names the tool in its message", body("Notification", `"notification_type":"permission_prompt","message":"Qwen Code needs your permission to use web_fetch"`), only(working),
			"approval.requested web_fetch Qwen Code needs your permission to use web_fetch"},
		{"a question asks", body("PreToolUse", `"tool_name":"ask_user_question","tool_input":{"questions":[{"question":"Which colour?"}]}`), only(working),
			"tool.started ask_user_question; approval.requested ask_user_question Which colour?"},
		{"a plan asks with its first line", body("PreToolUse", `"tool_name":"exit_plan_mode","tool_input":{"plan":"# Ship it\n1. a"}`), only(working),
			"tool.started exit_plan_mode; approval.requested exit_plan_mode Ship it"},
		{"Claude Code's question tool is only a tool", body("PreToolUse", `"tool_name":"AskUserQuestion","tool_input":{}`), only(working),
			"tool.started AskUserQuestion"},
		{"back at the prompt mid-turn: interrupted", body("Notification", `"notification_type":"idle_prompt","message":"Qwen Code is waiting for your input"`), only(shell),
			"tool.ended run_shell_command ok; turn.ended completed"},
		{"back at the prompt with a request open: refused there", body("Notification", `"notification_type":"idle_prompt"`), only(asking),
			"turn.ended completed"},
		{"back at the prompt after Stop: nothing", body("Notification", `"notification_type":"idle_prompt"`), only(done), ""},
		{"back at the prompt after StopFailure: the error stays", body("Notification", `"notification_type":"idle_prompt"`), only(failed), ""},
		{"back at the prompt of a row not held: nothing", body("Notification", `"notification_type":"idle_prompt"`), nil, ""},
		{"StopFailure errs", body("StopFailure", `"error":"invalid_request","error_details":"400 bad"`), only(working), "turn.ended error"},
		{"the auth notification: nothing", body("Notification", `"notification_type":"auth_success","message":"Successfully authenticated with openai"`), only(done), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := events(t, Map, tc.body, tc.lookup); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// The differences are data: Claude Code's dialect, given Qwen Code's
// payloads, starts a turn at the empty continuation prompt, takes no
// tokens from Stop (it reads its transcript) and ignores idle_prompt.
func TestClaudeDialectDiffers(t *testing.T) {
	working := state.Session{ID: "q", Status: state.StatusWorking}
	for _, tc := range []struct {
		body         []byte
		claude, qwen string
	}{
		{body("UserPromptSubmit", `"prompt":""`), "turn.started", ""},
		{body("Stop", `"input_tokens":2100`), "turn.ended completed", "context.tokens 2100; turn.ended completed"},
		{body("Notification", `"notification_type":"idle_prompt"`), "", "turn.ended completed"},
	} {
		if got := events(t, claudecode.Map, tc.body, only(working)); got != tc.claude {
			t.Errorf("claude %s: got %q, want %q", tc.body, got, tc.claude)
		}
		if got := events(t, Map, tc.body, only(working)); got != tc.qwen {
			t.Errorf("qwen %s: got %q, want %q", tc.body, got, tc.qwen)
		}
	}
	// Stop's context_limit is the row's window (no event: Mapping.Window);
	// Claude Code's dialect takes none from its payload.
	stop := body("Stop", `"context_limit":200000,"input_tokens":2100`)
	if m, _ := Map(stop, only(working)); m.Window != (hookjson.Window{Session: "q", Size: 200000}) {
		t.Errorf("qwen's window: %+v", m.Window)
	}
	if m, _ := claudecode.Map(stop, only(working)); m.Window != (hookjson.Window{}) {
		t.Errorf("claude's window: %+v", m.Window)
	}
	for _, bad := range []string{`"context_limit":0`, `"context_limit":-1`, `"context_limit":"big"`, `"context_limit":1e9`, `"context_limit":99999999999999999`} {
		if m, _ := Map(body("Stop", bad), only(working)); m.Window != (hookjson.Window{}) {
			t.Errorf("%s: window %+v", bad, m.Window)
		}
	}

	// The session's chat file is named (Settled reads it); a subagent's
	// hooks name none: its agent_transcript_path is the session's file.
	chat := "/h/.qwen/projects/p/chats/q.jsonl"
	m, _ := Map(body("Stop", `"transcript_path":"`+chat+`"`), only(working))
	if m.Transcript != (hookjson.Transcript{Path: chat, Session: "q"}) {
		t.Errorf("the session's transcript: %+v", m.Transcript)
	}
	m, _ = Map(body("SubagentStop", `"transcript_path":"`+chat+`","agent_id":"a1","agent_transcript_path":"`+chat+`"`), only(working))
	if m.Transcript.Path != "" {
		t.Errorf("a subagent's transcript is named: %+v", m.Transcript)
	}
}
