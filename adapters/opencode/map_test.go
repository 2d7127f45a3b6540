package opencode

import (
	"fmt"
	"testing"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

func body(event, props string) []byte {
	return []byte(fmt.Sprintf(`{"hook_event_name":%q,"session_id":"s","parent_id":"","cwd":"/src/a","properties":%s}`, event, props))
}

func only(s state.Session) hookjson.Lookup {
	return func(id string) (state.Session, bool) { return s, id == s.ID }
}

// events is what Map emits, one "type tool outcome reason title" per event.
func events(t *testing.T, b []byte, lookup hookjson.Lookup) []string {
	t.Helper()
	m, err := Map(b, lookup)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range m.Events {
		out = append(out, fmt.Sprintf("%s %s %s %s %s", ev.Type, ev.Tool, ev.Outcome, ev.Reason, ev.Title))
	}
	return out
}

func TestMap(t *testing.T) {
	working := state.Session{ID: "s", Status: state.StatusWorking}
	done := state.Session{ID: "s", Status: state.StatusDone, Title: "Old"}
	shell := state.Session{ID: "s", Status: state.StatusWorking, Activity: &state.Activity{Kind: state.ActivityTool, Label: "bash"}}
	asking := state.Session{ID: "s", Status: state.StatusAttention, Approval: &state.Approval{ToolName: "bash"}}
	for _, tc := range []struct {
		name   string
		body   []byte
		lookup hookjson.Lookup
		want   string
	}{
		{"a placeholder title is none", body(SessionCreated, `{"title":"New session - 2026-12-03T16:46:38.163Z"}`), nil, "[session.opened     turn.ended  completed  ]"},
		{"a generated title", body(SessionUpdated, `{"title":"Fix it"}`), only(done), "[session.titled    Fix it]"},
		{"the same title again: nothing", body(SessionUpdated, `{"title":"Old"}`), only(done), "[]"},
		{"busy opens a turn", body(SessionStatus, `{"status":{"type":"busy"}}`), only(done), "[turn.started    ]"},
		{"busy in a turn: nothing", body(SessionStatus, `{"status":{"type":"busy"}}`), only(working), "[]"},
		{"retry: nothing", body(SessionStatus, `{"status":{"type":"retry","message":"x"}}`), only(working), "[]"},
		{"idle ends the turn", body(SessionStatus, `{"status":{"type":"idle"}}`), only(working), "[turn.ended  completed  ]"},
		{"idle after the end: nothing", body(SessionIdle, `{}`), only(done), "[]"},
		{"an API error", body(SessionError, `{"error":{"name":"APIError","message":"bad"}}`), only(working), "[turn.ended  error  ]"},
		{"an interrupt", body(SessionError, `{"error":{"name":"MessageAbortedError"}}`), only(shell), "[tool.ended bash ok   turn.ended  completed  ]"},
		{"an error after the end: nothing", body(SessionError, `{"error":{"name":"APIError"}}`), only(done), "[]"},
		{"tokens: input and cache", body(MessageUpdated, `{"info":{"role":"assistant","tokens":{"input":100,"output":5,"cache":{"read":1000,"write":10}}}}`), only(working), "[context.tokens    ]"},
		{"no tokens: nothing", body(MessageUpdated, `{"info":{"role":"assistant","tokens":{"input":0}}}`), only(working), "[]"},
		{"a tool runs", body(MessagePart, `{"part":{"type":"tool","tool":"bash","state":{"status":"running"}}}`), only(working), "[tool.started bash   ]"},
		{"a tool fails", body(MessagePart, `{"part":{"type":"tool","tool":"bash","state":{"status":"error"}}}`), only(shell), "[tool.ended bash error  ]"},
		// Seen in the TUI: the asked call's running part after the ask.
		{"the asked tool runs: still asking", body(MessagePart, `{"part":{"type":"tool","tool":"bash","state":{"status":"running"}}}`), only(asking), "[tool.started bash   ]"},
		{"another tool completes: still asking", body(MessagePart, `{"part":{"type":"tool","tool":"read","state":{"status":"completed"}}}`), only(asking), "[tool.ended read ok  ]"},
		{"a tool after the turn: nothing", body(MessagePart, `{"part":{"type":"tool","tool":"bash","state":{"status":"error"}}}`), only(done), "[]"},
		{"a text part: nothing", body(MessagePart, `{"part":{"type":"text"}}`), only(working), "[]"},
		{"an ask names the tool out and the command", body(PermissionAsked, `{"permission":"bash","patterns":["ls *"],"metadata":{"command":"ls -la"}}`), only(shell), "[approval.requested bash  ls -la ]"},
		{"else the permission and its pattern", body(PermissionAsked, `{"permission":"external_directory","patterns":["/etc/*"]}`), only(working), "[approval.requested external_directory  /etc/* ]"},
		{"a second ask keeps the first", body(PermissionAsked, `{"permission":"edit"}`), only(asking), "[]"},
		{"an ask after the turn: nothing", body(PermissionAsked, `{"permission":"bash"}`), only(done), "[]"},
		{"always is allowed", body(PermissionReplied, `{"reply":"always"}`), only(asking), "[approval.resolved  allowed-once  ]"},
		{"reject", body(PermissionReplied, `{"reply":"reject"}`), only(asking), "[approval.resolved  rejected  ]"},
		{"a reply with none pending: nothing", body(PermissionReplied, `{"reply":"once"}`), only(working), "[]"},
		{"dispose ends the session", body(Dispose, `{}`), only(done), "[session.ended    ]"},
		{"dispose of a session not held: nothing", body(Dispose, `{}`), nil, "[]"},
		{"an event the plugin does not send: nothing", body("file.edited", `{}`), only(working), "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(events(t, tc.body, tc.lookup)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestChildSession: a child session's events drive the subagent row of
// its root session, titled by OpenCode.
func TestChildSession(t *testing.T) {
	m, err := Map([]byte(`{"hook_event_name":"session.created","session_id":"c","parent_id":"s","cwd":"/src/a","properties":{"title":"Look around (@explore subagent)"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := m.Events[0]
	if ev.Session != hookjson.SubagentID("s", "c") || ev.Parent != "s" || ev.Origin != state.OriginSubagent || ev.Title != "Look around (@explore subagent)" {
		t.Errorf("the child's row: %+v", ev)
	}
}

// TestRefused: a body that is not the plugin's payload is a 400.
func TestRefused(t *testing.T) {
	for _, b := range []string{``, `[]`, `{"hook_event_name":"session.idle"}`, `{"session_id":"s"}`, `{"session_id":"","hook_event_name":"x"}`} {
		if _, err := Map([]byte(b), nil); err == nil {
			t.Errorf("%q: no error", b)
		}
	}
}
