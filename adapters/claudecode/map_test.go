package claudecode

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

const sess = "5d1f0c2e-7a43-4b8e-9c61-0e2b7f4a9d10"

// payload is a hook body for the test session, with extra members.
func payload(hook, extra string) []byte {
	if extra != "" {
		extra = "," + extra
	}
	return []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/me/.claude/projects/p/s.jsonl","cwd":"/home/me/src/argon","hook_event_name":%q%s}`, sess, hook, extra))
}

// rows is a Lookup over fixed rows.
func rows(ss ...state.Session) hookjson.Lookup {
	return func(id string) (state.Session, bool) {
		for _, s := range ss {
			if s.ID == id {
				return s, true
			}
		}
		return state.Session{}, false
	}
}

// waiting is a row waiting on an approval for tool, with tool out.
func waiting(id, tool string) state.Session {
	return state.Session{ID: id, Status: state.StatusAttention,
		Activity: &state.Activity{Kind: state.ActivityTool, Label: tool},
		Approval: &state.Approval{ToolName: tool, Reason: "x"}}
}

// working is a row with tool out ("" for none).
func working(id, tool string) state.Session {
	s := state.Session{ID: id, Status: state.StatusWorking}
	if tool != "" {
		s.Activity = &state.Activity{Kind: state.ActivityTool, Label: tool}
	}
	return s
}

// settled is a row whose turn has ended (done or error).
func settled(id, status string) state.Session {
	return state.Session{ID: id, Status: status, Activity: &state.Activity{Kind: state.ActivityThinking, Label: "Bash"}}
}

// titledRow is a row with a title.
func titledRow(id, title string) state.Session {
	return state.Session{ID: id, Status: state.StatusDone, Title: title}
}

// brief renders events as "type tool outcome reason" for comparison.
func brief(evs []state.Event) string {
	var out []string
	for _, ev := range evs {
		s := ev.Type
		for _, f := range []string{ev.Tool, ev.Outcome, ev.Reason} {
			if f != "" {
				s += " " + f
			}
		}
		if ev.Session != sess {
			s += " @" + ev.Session
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func TestMap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   []byte
		lookup hookjson.Lookup
		want   string // brief(Events)
		open   string // brief(Open)
	}{
		{"session start, unheld: open, waiting for a prompt", payload(SessionStart, `"source":"startup","session_title":"Argon"`), nil,
			"session.opened; turn.ended completed", ""},
		{"session start after a compaction: it may be mid-turn", payload(SessionStart, `"source":"compact"`), rows(working(sess, "Bash")),
			"session.opened", ""},
		{"prompt, unheld: opened from the payload, titled", payload(UserPromptSubmit, `"prompt":"hi"`), nil,
			"turn.started; session.titled", "session.opened"},
		{"prompt, held untitled: titled", payload(UserPromptSubmit, `"prompt":"hi"`), rows(working(sess, "")),
			"turn.started; session.titled", "session.opened"},
		{"prompt, held titled: not retitled", payload(UserPromptSubmit, `"prompt":"hi"`), rows(titledRow(sess, "Argon")),
			"turn.started", "session.opened"},
		{"a tool", payload(PreToolUse, `"tool_name":"Bash","tool_input":{"command":"ls"}`), rows(working(sess, "")),
			"tool.started Bash", "session.opened"},
		{"a tool without a name means nothing", payload(PreToolUse, `"tool_input":{}`), rows(working(sess, "")),
			"", ""},
		{"the approved tool runs", payload(PostToolUse, `"tool_name":"Bash"`), rows(waiting(sess, "Bash")),
			"approval.resolved allowed-once; tool.ended Bash ok", "session.opened"},
		{"the approved tool fails: it was allowed", payload(PostToolUseFailure, `"tool_name":"Bash","error":"exit 1"`), rows(waiting(sess, "Bash")),
			"approval.resolved allowed-once; tool.ended Bash error", "session.opened"},
		{"another tool runs: cancelled", payload(PreToolUse, `"tool_name":"Read"`), rows(waiting(sess, "Bash")),
			"approval.resolved cancelled; tool.started Read", "session.opened"},
		{"a question asks", payload(PreToolUse, `"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which one?\nA or B"}]}`), rows(working(sess, "")),
			"tool.started AskUserQuestion; approval.requested AskUserQuestion Which one? A or B", "session.opened"},
		{"a plan asks", payload(PreToolUse, `"tool_name":"ExitPlanMode","tool_input":{"plan":"\n\n## Step one\nmore"}`), rows(working(sess, "")),
			"tool.started ExitPlanMode; approval.requested ExitPlanMode Step one", "session.opened"},
		{"a plan without text", payload(PreToolUse, `"tool_name":"ExitPlanMode","tool_input":{"plan":""}`), rows(working(sess, "")),
			"tool.started ExitPlanMode; approval.requested ExitPlanMode", "session.opened"},
		{"permission request", payload(PermissionRequest, `"tool_name":"Edit","tool_input":{"file_path":"/a.go"}`), rows(working(sess, "Edit")),
			"approval.requested Edit /a.go", "session.opened"},
		{"interrupt", payload(PostToolUseFailure, `"tool_name":"Bash","error":"Interrupted","is_interrupt":true`), rows(working(sess, "Bash")),
			"tool.ended Bash ok; turn.ended completed", "session.opened"},
		{"denied", payload(PermissionDenied, `"tool_name":"Bash","reason":"no"`), rows(waiting(sess, "Bash")),
			"approval.resolved rejected; tool.ended Bash error", "session.opened"},
		{"prompt notification, one pending: nothing", payload(Notification, `"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"`), rows(waiting(sess, "Bash")),
			"", ""},
		{"prompt notification names the tool out", payload(Notification, `"notification_type":"permission_prompt","message":"Claude needs your permission to use Fetch"`), rows(working(sess, "WebFetch")),
			"approval.requested WebFetch Claude needs your permission to use Fetch", "session.opened"},
		{"else the tool in its message", payload(Notification, `"notification_type":"permission_prompt","message":"Claude needs your permission to use mcp__gh__create_pr"`), nil,
			"approval.requested mcp__gh__create_pr Claude needs your permission to use mcp__gh__create_pr", "session.opened"},
		{"else permission", payload(Notification, `"notification_type":"permission_prompt","message":"Claude needs your attention"`), nil,
			"approval.requested permission Claude needs your attention", "session.opened"},
		{"idle notification: nothing", payload(Notification, `"notification_type":"idle_prompt","message":"waiting"`), nil,
			"", ""},
		{"stop", payload(Stop, `"stop_hook_active":false`), rows(working(sess, "")), "turn.ended completed", "session.opened"},
		{"stop failure", payload(StopFailure, `"error":"rate_limit"`), rows(working(sess, "")), "turn.ended error", "session.opened"},
		{"session end, held: it settles, never leaves", payload(SessionEnd, `"reason":"other"`), rows(working(sess, "")), "session.ended", "session.opened"},
		{"prompt notification after the turn's end (Stop): nothing", payload(Notification, `"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"`), rows(settled(sess, state.StatusDone)),
			"", ""},
		{"prompt notification after a failed turn: nothing", payload(Notification, `"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"`), rows(settled(sess, state.StatusError)),
			"", ""},
		{"session end, unheld: nothing", payload(SessionEnd, `"reason":"other"`), nil, "", ""},
		{"subagent start", payload(SubagentStart, `"agent_id":"a1","agent_type":"Explore"`), nil,
			"session.opened @" + sess + "/a1; turn.started @" + sess + "/a1", "session.opened"},
		{"subagent start without an agent id: nothing", payload(SubagentStart, `"agent_type":"Explore"`), nil, "", ""},
		{"a subagent's tool, unheld: parent and subagent opened", payload(PreToolUse, `"agent_id":"a1","agent_type":"Explore","tool_name":"Grep"`), nil,
			"tool.started Grep @" + sess + "/a1", "session.opened; session.opened @" + sess + "/a1"},
		{"a subagent's approval is its own", payload(PostToolUse, `"agent_id":"a1","tool_name":"Bash"`), rows(waiting(sess, "Bash"), waiting(sess+"/a1", "Bash")),
			"approval.resolved allowed-once @" + sess + "/a1; tool.ended Bash ok @" + sess + "/a1", "session.opened; session.opened @" + sess + "/a1"},
		{"subagent stop", payload(SubagentStop, `"agent_id":"a1","agent_type":"Explore","agent_transcript_path":"/t/a1.jsonl"`),
			rows(working(sess, ""), working(sess+"/a1", "")), "turn.ended completed @" + sess + "/a1", "session.opened; session.opened @" + sess + "/a1"},
		// Claude Code 2.1.328 runs /compact as an internal agent: a
		// SubagentStop with an agent_id and no SubagentStart. No row.
		{"compact's internal agent makes no row", payload(SubagentStop, `"agent_id":"acompact1","agent_transcript_path":"/t/acompact1.jsonl"`),
			rows(working(sess, "")), "", ""},
		{"unknown hook", payload("FutureHook", `"x":1`), nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Map(tc.body, tc.lookup)
			if err != nil {
				t.Fatalf("Map: %v", err)
			}
			if got := brief(m.Events); got != tc.want {
				t.Errorf("events\n got %s\nwant %s", got, tc.want)
			}
			if got := brief(m.Open); got != tc.open {
				t.Errorf("open\n got %s\nwant %s", got, tc.open)
			}
			for _, ev := range append(m.Open, m.Events...) {
				if err := ev.Validate(); err != nil {
					t.Errorf("%+v: %v", ev, err)
				}
			}
		})
	}
}

func TestMapTranscript(t *testing.T) {
	for _, tc := range []struct {
		name       string
		body       []byte
		lookup     hookjson.Lookup
		path, sess string
	}{
		{"a session's hook offers its transcript", payload(PostToolUse, `"tool_name":"Bash"`), nil, "/home/me/.claude/projects/p/s.jsonl", sess},
		{"a subagent's tool offers the subagent's own, beside the session's", payload(PostToolUse, `"agent_id":"a1","tool_name":"Bash"`), nil,
			"/home/me/.claude/projects/p/s/subagents/agent-a1.jsonl", sess + "/a1"},
		{"a subagent id that is no file name offers none", payload(PostToolUse, `"agent_id":"../../x","tool_name":"Bash"`), nil, "", ""},
		{"SubagentStop offers the subagent's", payload(SubagentStop, `"agent_id":"a1","agent_transcript_path":"/t/a1.jsonl"`),
			rows(working(sess, ""), working(sess+"/a1", "")), "/t/a1.jsonl", sess + "/a1"},
		{"a late notification (nothing to apply) still offers it, for a held row", payload(Notification, `"notification_type":"permission_prompt","message":"m"`), rows(settled(sess, state.StatusDone)),
			"/home/me/.claude/projects/p/s.jsonl", sess},
		{"an ignored hook of a held row offers it", payload("PreCompact", ``), rows(working(sess, "")), "/home/me/.claude/projects/p/s.jsonl", sess},
		{"SessionEnd does: the transcript is flushed by then", payload(SessionEnd, ``), rows(working(sess, "")), "/home/me/.claude/projects/p/s.jsonl", sess},
		{"an ignored hook does not", payload("PreCompact", ``), nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Map(tc.body, tc.lookup)
			if err != nil {
				t.Fatal(err)
			}
			if m.Transcript.Path != tc.path || m.Transcript.Session != tc.sess || m.Transcript.Sidechain != strings.Contains(tc.sess, "/") {
				t.Errorf("transcript %+v, want %q for %q", m.Transcript, tc.path, tc.sess)
			}
		})
	}
}

func TestMapRefuses(t *testing.T) {
	for _, body := range []string{``, `[]`, `"Stop"`, `{"hook_event_name":"Stop"}`, `{"session_id":"s"}`, `{"session_id":1,"hook_event_name":"Stop"}`} {
		m, err := Map([]byte(body), nil)
		if !errors.Is(err, hookjson.ErrPayload) {
			t.Errorf("Map(%s): error %v, want ErrPayload", body, err)
		}
		if len(m.Events)+len(m.Open) > 0 {
			t.Errorf("Map(%s) refused but returned events", body)
		}
	}
}
