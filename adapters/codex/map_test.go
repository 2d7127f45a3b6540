package codex

import (
	"errors"
	"testing"

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
