package state

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestFoldRow drives one session ("a") through each event type and checks
// the whole row, field by field, against the contract.
func TestFoldRow(t *testing.T) {
	open := openedIn(0, "a", "/home/me/src/notch-web")
	// base is the row right after session.opened.
	base := Session{ID: "a", Project: "notch-web", Cwd: "/home/me/src/notch-web", Status: StatusWorking,
		Since: at(0), Identity: "teal"}
	with := func(edit func(*Session)) Session { s := base; edit(&s); return s }

	tests := []struct {
		name   string
		events []Event
		want   Session
	}{
		{"opened: working since at, activity null before the first turn, steps 0",
			[]Event{open}, base},
		{"titled sets the title, nothing else",
			[]Event{open, titled(5, "a", "Fix the hub")},
			with(func(s *Session) { s.Title = "Fix the hub" })},
		{"turn.started opens a model turn: thinking with label \"\"",
			[]Event{open, bare(10, TypeTurnStarted, "a")},
			with(func(s *Session) { s.Activity = &Activity{ActivityThinking, ""} })},
		{"tool.started: activity tool, steps 1",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash")},
			with(func(s *Session) { s.Activity = &Activity{ActivityTool, "bash"}; s.Steps = 1 })},
		{"tool.ended ok: thinking keeps the tool's label",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash"), toolEnd(30, "a", "bash", OutcomeOK)},
			with(func(s *Session) { s.Activity = &Activity{ActivityThinking, "bash"}; s.Steps = 1 })},
		{"steps count tool calls this turn",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "grep"), toolEnd(30, "a", "grep", OutcomeOK),
				toolStart(40, "a", "edit"), toolEnd(50, "a", "edit", OutcomeOK), toolStart(60, "a", "bash")},
			with(func(s *Session) { s.Activity = &Activity{ActivityTool, "bash"}; s.Steps = 3 })},
		{"errorStreak 1 after one error",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash"), toolEnd(30, "a", "bash", OutcomeError)},
			with(func(s *Session) { s.Activity = &Activity{ActivityThinking, "bash"}; s.Steps = 1; s.ErrorStreak = 1 })},
		{"errorStreak 2 after two in a row",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash"), toolEnd(30, "a", "bash", OutcomeError),
				toolStart(40, "a", "bash"), toolEnd(50, "a", "bash", OutcomeError)},
			with(func(s *Session) { s.Activity = &Activity{ActivityThinking, "bash"}; s.Steps = 2; s.ErrorStreak = 2 })},
		{"a clean result resets errorStreak",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash"), toolEnd(30, "a", "bash", OutcomeError),
				toolStart(40, "a", "bash"), toolEnd(50, "a", "bash", OutcomeError), toolStart(60, "a", "edit"), toolEnd(70, "a", "edit", OutcomeOK)},
			with(func(s *Session) { s.Activity = &Activity{ActivityThinking, "edit"}; s.Steps = 3 })},
		{"a new turn resets steps, errorStreak and the label",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash"), toolEnd(30, "a", "bash", OutcomeError),
				turnEnd(40, "a", OutcomeError), bare(50, TypeTurnStarted, "a")},
			with(func(s *Session) { s.Activity = &Activity{ActivityThinking, ""}; s.Since = at(50) })},
		{"approval.requested: attention since at, approval set",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "pwsh"), askFor(30, "a", "pwsh", "Remove-Item build")},
			with(func(s *Session) {
				s.Status, s.Since = StatusAttention, at(30)
				s.Activity, s.Steps = &Activity{ActivityTool, "pwsh"}, 1
				s.Approval = &Approval{"pwsh", "Remove-Item build"}
			})},
		{"approval reason is optional",
			[]Event{open, askFor(30, "a", "pwsh", "")},
			with(func(s *Session) { s.Status, s.Since, s.Approval = StatusAttention, at(30), &Approval{"pwsh", ""} })},
		{"allowed-once: back to working since at, approvedAt = at",
			[]Event{open, askFor(30, "a", "pwsh", "x"), resolve(40, "a", OutcomeAllowedOnce)},
			with(func(s *Session) { s.Since, s.ApprovedAt = at(40), ptr(at(40)) })},
		{"rejected: back to working, approvedAt stays null",
			[]Event{open, askFor(30, "a", "pwsh", "x"), resolve(40, "a", OutcomeRejected)},
			with(func(s *Session) { s.Since = at(40) })},
		{"cancelled: back to working, approvedAt stays null",
			[]Event{open, askFor(30, "a", "pwsh", "x"), resolve(40, "a", OutcomeCancelled)},
			with(func(s *Session) { s.Since = at(40) })},
		{"a later rejection keeps the last ALLOWED time",
			[]Event{open, askFor(30, "a", "pwsh", "x"), resolve(40, "a", OutcomeAllowedOnce),
				askFor(50, "a", "pwsh", "y"), resolve(60, "a", OutcomeRejected)},
			with(func(s *Session) { s.Since, s.ApprovedAt = at(60), ptr(at(40)) })},
		{"a late resolution does not revive an ended turn",
			[]Event{open, askFor(30, "a", "pwsh", "x"), turnEnd(40, "a", OutcomeCompleted), resolve(50, "a", OutcomeCancelled)},
			with(func(s *Session) { s.Status, s.Since = StatusDone, at(40) })},
		{"turn.ended completed: done since at",
			[]Event{open, bare(10, TypeTurnStarted, "a"), turnEnd(90, "a", OutcomeCompleted)},
			with(func(s *Session) { s.Status, s.Since, s.Activity = StatusDone, at(90), &Activity{ActivityThinking, ""} })},
		{"turn.ended error: error since at",
			[]Event{open, bare(10, TypeTurnStarted, "a"), turnEnd(90, "a", OutcomeError)},
			with(func(s *Session) { s.Status, s.Since, s.Activity = StatusError, at(90), &Activity{ActivityThinking, ""} })},
		{"turn.ended clears a pending approval",
			[]Event{open, askFor(30, "a", "pwsh", "x"), turnEnd(40, "a", OutcomeCompleted)},
			with(func(s *Session) { s.Status, s.Since = StatusDone, at(40) })},
		{"since does not move while the status holds",
			[]Event{open, bare(10, TypeTurnStarted, "a"), toolStart(20, "a", "bash"), bare(30, TypeTurnStarted, "a"),
				turnEnd(40, "a", OutcomeCompleted), turnEnd(50, "a", OutcomeCompleted)},
			with(func(s *Session) { s.Status, s.Since, s.Activity = StatusDone, at(40), &Activity{ActivityThinking, ""} })},
		{"context.tokens sets the count (0 is a count too)",
			[]Event{open, tokens(10, "a", 412_034), tokens(20, "a", 0), tokens(30, "a", 7)},
			with(func(s *Session) { s.ContextTokens = 7 })},
		{"re-open refreshes the given descriptive fields only",
			[]Event{open, bare(10, TypeTurnStarted, "a"), turnEnd(20, "a", OutcomeCompleted),
				{Type: TypeSessionOpened, Session: "a", At: at(30), Title: "Resumed", Cwd: `D:\work\other`}},
			with(func(s *Session) {
				s.Title, s.Cwd, s.Project = "Resumed", `D:\work\other`, "other"
				s.Status, s.Since, s.Activity = StatusDone, at(20), &Activity{ActivityThinking, ""}
			})},
		{"a named project is kept when the cwd changes",
			[]Event{{Type: TypeSessionOpened, Session: "a", At: at(0), Project: "notch", Cwd: "/x/y"},
				{Type: TypeSessionOpened, Session: "a", At: at(30), Cwd: "/x/z"}},
			with(func(s *Session) { s.Project, s.Cwd = "notch", "/x/z" })},
		{"an earlier at is clamped to the session's last event",
			[]Event{open, bare(100, TypeTurnStarted, "a"), askFor(50, "a", "bash", "")},
			with(func(s *Session) {
				s.Status, s.Since = StatusAttention, at(100)
				s.Activity, s.Approval = &Activity{ActivityThinking, ""}, &Approval{"bash", ""}
			})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFold()
			for _, ev := range tc.events { // one batch per event, like a live stream
				mustApply(t, f, ev)
			}
			got, ok := f.Session("a")
			if !ok {
				t.Fatal("session a is gone")
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("row\n got %s\nwant %s", dump(got), dump(tc.want))
			}
		})
	}
}

func dump(s Session) string {
	b, _ := Encode(Document{Sessions: []Session{s}})
	str := string(b)
	return str[strings.Index(str, `"sessions":`):]
}

func TestProjectFromCwd(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/home/me/src/notch-web", "notch-web"},
		{"/home/me/src/notch-web/", "notch-web"},
		{"/home/me/src/notch-web//", "notch-web"},
		{`C:\Users\me\Projects\blindKnifeArgon`, "blindKnifeArgon"},
		{`C:\Users\me\Projects\blindKnifeArgon\`, "blindKnifeArgon"},
		{`C:/Users/me/Projects/mixed\seps`, "seps"},
		{`\\server\share\proj`, "proj"},
		{"relative", "relative"},
		{"~/code/thing", "thing"},
		{"/", ""},
		{`C:\`, ""},
		{"C:", ""},
		{"", ""},
		{"/home/me/é-projet", "é-projet"},
	}
	for _, tc := range tests {
		if got := ProjectFromCwd(tc.cwd); got != tc.want {
			t.Errorf("ProjectFromCwd(%q) = %q, want %q", tc.cwd, got, tc.want)
		}
	}
}

func TestIdentity(t *testing.T) {
	f := NewFold()
	var evs []Event
	for i := range 7 {
		evs = append(evs, opened(int64(i), fmt.Sprintf("s%d", i)))
	}
	mustApply(t, f, evs...)
	// Subagents: one of s1 (violet), one of a subagent (inherits through
	// it), one whose parent is unknown (takes the next colour, s7's would-be).
	mustApply(t, f, subagent(10, "s1.sub", "s1"), subagent(11, "s1.sub.sub", "s1.sub"), subagent(12, "orphan", "nobody"))
	mustApply(t, f, opened(13, "s8"))
	want := map[string]string{
		"s0": "teal", "s1": "violet", "s2": "coral", "s3": "pink", "s4": "lime", "s5": "teal", "s6": "violet",
		"s1.sub": "violet", "s1.sub.sub": "violet", "orphan": "coral", "s8": "pink",
	}
	check := func() {
		t.Helper()
		for id, w := range want {
			if s, _ := f.Session(id); s.Identity != w {
				t.Errorf("%s identity = %q, want %q", id, s.Identity, w)
			}
		}
	}
	check()
	// Stable for the session's life: re-opens, turns, the parent finishing.
	mustApply(t, f, Event{Type: TypeSessionOpened, Session: "s1.sub", At: at(20), Parent: "s2"},
		bare(21, TypeTurnStarted, "s0"), bare(22, TypeSessionFinished, "s1"))
	delete(want, "s1")
	check()
	if s, _ := f.Session("s1.sub"); s.ParentSession != "s2" {
		t.Errorf("re-open did not update parentSession: %q", s.ParentSession)
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name    string
		batch   []Event
		wantIs  error
		wantMsg string
	}{
		{"event for a session never opened", []Event{bare(1, TypeTurnStarted, "ghost")}, ErrUnknownSession, `event 1 (`},
		{"the failing index is named", []Event{opened(1, "b"), bare(2, TypeTurnStarted, "b"), bare(3, TypeTurnStarted, "ghost")},
			ErrUnknownSession, `event 3 ("turn.started", session "ghost")`},
		{"a session finished earlier in the batch is unknown after", []Event{opened(1, "b"), bare(2, TypeSessionFinished, "b"), bare(3, TypeTurnStarted, "b")},
			ErrUnknownSession, "event 3"},
		{"unknown type names the type", []Event{{Type: "turn.paused", Session: "a", At: at(1)}}, ErrUnknownType, `"turn.paused"`},
		{"invalid event", []Event{{Type: TypeToolStarted, Session: "a", At: at(1)}}, ErrInvalidEvent, "tool.started needs tool"},
		{"version", []Event{{V: 3, Type: TypeTurnStarted, Session: "a", At: at(1)}}, ErrVersion, "v 3"},
		{"unstamped at", []Event{{Type: TypeTurnStarted, Session: "a"}}, ErrInvalidEvent, "Stamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFold()
			mustApply(t, f, opened(0, "a"), bare(0, TypeTurnStarted, "a"))
			before := f.Snapshot(input(10))
			w, err := f.Apply(tc.batch...)
			if !errors.Is(err, tc.wantIs) {
				t.Fatalf("err = %v, want errors.Is %v", err, tc.wantIs)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tc.wantMsg)
			}
			if w != nil {
				t.Errorf("warnings with an error: %v", w)
			}
			// All or nothing: not even the batch's valid first events stuck.
			if after := f.Snapshot(input(10)); !reflect.DeepEqual(before, after) || f.Len() != 1 {
				t.Errorf("a failed batch changed the fold:\nbefore %+v\nafter  %+v", before.Sessions, after.Sessions)
			}
			// The fold still works, and its identity counter did not move.
			mustApply(t, f, opened(20, "next"))
			if s, _ := f.Session("next"); s.Identity != "violet" {
				t.Errorf("identity after a failed batch = %q, want violet", s.Identity)
			}
		})
	}
}

func TestApplySameBatch(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(0, "a"), bare(1, TypeTurnStarted, "a"), toolStart(2, "a", "bash"), subagent(3, "b", "a"),
		opened(4, "gone"), bare(5, TypeSessionFinished, "gone"), opened(6, "gone"))
	if f.Len() != 3 {
		t.Fatalf("Len = %d, want 3", f.Len())
	}
	if s, _ := f.Session("b"); s.Identity != "teal" {
		t.Errorf("subagent opened in the parent's batch: identity %q, want teal", s.Identity)
	}
	if s, _ := f.Session("gone"); s.Since != at(6) || s.Identity != "coral" {
		t.Errorf("re-created session = %+v, want a fresh row since t0+6, coral", s)
	}
}

func TestApplyWarnsOnOutOfOrder(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(100, "a"))
	w := mustApply(t, f, bare(50, TypeTurnStarted, "a"), turnEnd(40, "a", OutcomeCompleted), bare(200, TypeTurnStarted, "a"))
	if len(w) != 2 || !strings.HasPrefix(w[0], "event 1: ") || !strings.HasPrefix(w[1], "event 2: ") || !strings.Contains(w[1], "clamped") {
		t.Fatalf("warnings = %q, want two clamps, for events 1 and 2", w)
	}
	// turn.ended at 40 was clamped to 100: done since 100, then working since 200.
	if s, _ := f.Session("a"); s.Status != StatusWorking || s.Since != at(200) {
		t.Errorf("row = %s %d", s.Status, s.Since-t0)
	}
	f2 := NewFold()
	mustApply(t, f2, opened(100, "a"))
	mustApply(t, f2, turnEnd(40, "a", OutcomeCompleted))
	if s, _ := f2.Session("a"); s.Since != at(100) {
		t.Errorf("clamped since = t0+%d, want t0+100", s.Since-t0)
	}
}

// TestCapNeverHidesALiveSession: at MaxTracked a new session is never
// refused (issue 19: finished and invisible rows filled the cap and a
// session that needed the human never showed). Room is made by dropping
// the least relevant settled row the board does not show, then — only when
// there is none — the least relevant live row it does not show; a row on
// the board is never dropped, and each drop is said.
func TestCapNeverHidesALiveSession(t *testing.T) {
	fill := func(status func(i int) []Event) *Fold {
		f := NewFold()
		var evs []Event
		for i := range MaxTracked {
			evs = append(evs, opened(int64(i), fmt.Sprintf("s%d", i)))
			evs = append(evs, status(i)...)
		}
		mustApply(t, f, evs...)
		return f
	}
	visible := func(f *Fold) map[string]bool {
		out := map[string]bool{}
		for _, show := range []bool{true, false} {
			in := input(5000)
			in.Settings.ShowDone = show
			for _, s := range f.Snapshot(in).Sessions {
				out[s.ID] = true
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		status  func(i int) []Event
		dropped string // the row that must make room
	}{
		{"mostly done", func(i int) []Event {
			if i < 990 {
				return []Event{turnEnd(int64(i)+1, fmt.Sprintf("s%d", i), OutcomeCompleted)}
			}
			return nil
		}, "s0"},
		{"errors shown, the rest working", func(i int) []Event {
			if i >= 990 {
				return []Event{turnEnd(int64(i)+1, fmt.Sprintf("s%d", i), OutcomeError)}
			}
			return nil
		}, "s0"},
		{"all working", func(int) []Event { return nil }, "s0"},
		{"all waiting on the human", func(i int) []Event {
			id := fmt.Sprintf("s%d", i)
			return []Event{{Type: TypeApprovalRequested, Session: id, Tool: "Bash", At: at(int64(i) + 1)}}
		}, "s0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fill(tc.status)
			shown := visible(f)
			warns, err := f.Apply(Event{Type: TypeSessionOpened, Session: "needs-you", At: at(3000)},
				Event{Type: TypeApprovalRequested, Session: "needs-you", Tool: "Bash", At: at(3001)})
			if err != nil {
				t.Fatalf("a new session at the cap was refused: %v", err)
			}
			if f.Len() != MaxTracked {
				t.Errorf("%d rows, want the cap %d", f.Len(), MaxTracked)
			}
			if f.Has(tc.dropped) || !f.Has("needs-you") {
				t.Errorf("%s still held (or the new one not): the wrong row made room", tc.dropped)
			}
			for id := range shown {
				if !f.Has(id) {
					t.Errorf("row %s, on the board, was dropped", id)
				}
			}
			if len(warns) != 1 || !strings.Contains(warns[0], tc.dropped) || !strings.Contains(warns[0], "dropped") {
				t.Errorf("warnings %q: the drop is not said", warns)
			}
			if !slices.ContainsFunc(f.Snapshot(input(5000)).Sessions, func(s Session) bool { return s.ID == "needs-you" }) {
				t.Error("the new session is not on the board")
			}
		})
	}
	// Re-opening a tracked session is not a new one: nothing is dropped.
	f := fill(func(int) []Event { return nil })
	if warns := mustApply(t, f, opened(4000, "s5")); len(warns) != 0 || f.Len() != MaxTracked {
		t.Errorf("a re-open dropped something: %q", warns)
	}
}

func TestRetire(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(0, "a"), opened(1, "b"), opened(2, "c"))
	if f.Retire("nobody") {
		t.Error("Retire of an unknown id reported a change")
	}
	if !f.Retire("a", "c", "nobody") {
		t.Error("Retire reported no change")
	}
	if f.Len() != 1 || !f.Has("b") || f.Has("a") {
		t.Errorf("after Retire: Len %d, has b %v, has a %v", f.Len(), f.Has("b"), f.Has("a"))
	}
	if _, err := f.Apply(bare(3, TypeTurnStarted, "a")); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("event for a retired session: %v, want ErrUnknownSession", err)
	}
}

func TestSessionCopyIsolated(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(0, "a"), askFor(1, "a", "bash", "x"))
	s, _ := f.Session("a")
	s.Approval.Reason = "changed"
	if s2, _ := f.Session("a"); s2.Approval.Reason != "x" {
		t.Error("Session returned memory shared with the fold")
	}
}
