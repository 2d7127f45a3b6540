package codex

import (
	"errors"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// TestMapShapes: one endpoint takes both of Codex's shapes, told apart by
// hook_event_name; a notification needs its thread-id.
func TestMapShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // the events' types, or "error"
	}{
		{"a hook", `{"session_id":"t","hook_event_name":"Stop"}`, "turn.ended"},
		{"a notification for a row the board holds", `{"type":"agent-turn-complete","thread-id":"t","cwd":"/src/a"}`, "turn.ended"},
		{"a notification for a thread no hook named (the TUI's title helper)", `{"type":"agent-turn-complete","thread-id":"helper","cwd":"/src/a"}`, ""},
		{"a hook that also says type", `{"session_id":"t","hook_event_name":"Stop","type":"agent-turn-complete"}`, "turn.ended"},
		{"another notification type", `{"type":"approval-requested","thread-id":"t"}`, ""},
		{"a notification without thread-id", `{"type":"agent-turn-complete","turn-id":"1"}`, "error"},
		{"a numeric thread-id", `{"type":"agent-turn-complete","thread-id":12}`, "error"},
		{"neither", `{"cwd":"/src/a"}`, "error"},
		{"a hook without a session", `{"hook_event_name":"Stop","type":"agent-turn-complete","thread-id":"t"}`, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held := func(id string) (state.Session, bool) {
				return state.Session{ID: id, Status: state.StatusWorking}, id == "t"
			}
			m, err := Map([]byte(tc.body), held)
			got := ""
			if err != nil {
				if !errors.Is(err, hookjson.ErrPayload) {
					t.Fatalf("error %v is not ErrPayload", err)
				}
				got = "error"
			}
			for _, ev := range m.Events {
				got += ev.Type
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestMapSubagent: Codex 0.169's SubagentStart and SubagentStop (installed
// by hooks install codex) give the subagent its own row under its parent,
// opened working and ended done; its other hooks drive that row, never the
// parent's; the parent's SessionEnd settles it (no orphan).
func TestMapSubagent(t *testing.T) {
	f := state.NewFold()
	apply := func(body string) {
		t.Helper()
		m, err := Map([]byte(body), f.Session)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range append(m.Open, m.Events...) {
			if _, ok := f.Session(ev.Session); ev.Type == state.TypeSessionOpened && ok {
				continue
			}
			evs := []state.Event{ev}
			state.Stamp(evs, time.UnixMilli(1_790_000_000_000))
			if _, err := f.Apply(evs...); err != nil {
				t.Fatalf("%s: %v", ev.Type, err)
			}
		}
	}
	base := `"session_id":"p","turn_id":"1","cwd":"/src/a","transcript_path":"/c/rollout-p.jsonl"`
	apply(`{` + base + `,"hook_event_name":"SessionStart","source":"startup"}`)
	apply(`{` + base + `,"hook_event_name":"UserPromptSubmit","prompt":"explore"}`)
	apply(`{` + base + `,"hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"explorer"}`)
	sub := hookjson.SubagentID("p", "a1")
	if s, ok := f.Session(sub); !ok || s.Status != state.StatusWorking || s.Origin != state.OriginSubagent || s.ParentSession != "p" {
		t.Fatalf("the subagent's row after SubagentStart: %+v %v", s, ok)
	}
	apply(`{` + base + `,"hook_event_name":"PreToolUse","agent_id":"a1","agent_type":"explorer","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	if s, _ := f.Session("p"); s.Steps != 0 {
		t.Errorf("the subagent's tool counted on the parent: %+v", s)
	}
	apply(`{` + base + `,"hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"explorer"}`)
	if s, _ := f.Session(sub); s.Status != state.StatusDone {
		t.Errorf("the subagent's row after SubagentStop: %+v", s)
	}
	apply(`{` + base + `,"hook_event_name":"Stop"}`)
	apply(`{` + base + `,"hook_event_name":"SessionEnd","reason":"other"}`)
	for _, id := range []string{"p", sub} {
		if s, _ := f.Session(id); s.Status != state.StatusDone {
			t.Errorf("%s after SessionEnd: %q, want done", id, s.Status)
		}
	}
}

// TestMapAskShowsTheQuestion: request_user_input's PreToolUse asks the
// human, and the row's approval says what: Codex 0.169's arguments are
// {"questions":[{"id","header","question","options"}]} (the first
// question is the row's reason), an older single "question" is read too,
// and hostile text is one bounded line.
func TestMapAskShowsTheQuestion(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"questions", `{"questions":[{"id":"colour","header":"Colour","question":"Which colour should the button be?","options":[{"label":"Teal","description":"The teal option."}]},{"id":"b","question":"And the border?"}]}`, "Which colour should the button be?"},
		{"a question", `{"question":"Ship it now?"}`, "Ship it now?"},
		{"a blank first question", `{"questions":[{"question":"  "},{"question":"Second?"}]}`, "Second?"},
		{"control and bidi characters", `{"questions":[{"question":"Pick\u202e one\n\u001b[31mnow"}]}`, "Pick one [31mnow"},
		{"no question at all", `{"questions":[{"id":"x"}]}`, ""},
		{"not an object", `{"questions":7}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"session_id":"t","hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_use_id":"c","tool_input":` + tc.input + `}`
			m, err := Map([]byte(body), func(string) (state.Session, bool) { return state.Session{}, false })
			if err != nil {
				t.Fatal(err)
			}
			var got *state.Event
			for i := range m.Events {
				if m.Events[i].Type == state.TypeApprovalRequested {
					got = &m.Events[i]
				}
			}
			if got == nil {
				t.Fatalf("no approval.requested in %+v", m.Events)
			}
			if got.Reason != tc.want {
				t.Errorf("reason %q, want %q", got.Reason, tc.want)
			}
		})
	}
}
