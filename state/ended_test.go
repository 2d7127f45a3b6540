package state

import (
	"errors"
	"strings"
	"testing"
)

func ended(ms int64, id, outcome string) Event {
	return Event{Type: TypeSessionEnded, Session: id, At: at(ms), Outcome: outcome}
}

// TestSessionEndedSettles: the agent's process ending settles the row and
// never removes it (docs/contract.md rule 2): a turn still open ended
// unfinished (error), a settled row keeps its verdict, a failure is an error.
func TestSessionEndedSettles(t *testing.T) {
	turn := bare(10, TypeTurnStarted, "a")
	tests := []struct {
		name       string
		events     []Event
		wantStatus string
		wantSince  int64
	}{
		{"after its turn's end: done stays done", []Event{opened(0, "a"), turn, turnEnd(20, "a", OutcomeCompleted), ended(30, "a", "")}, StatusDone, at(20)},
		{"outcome completed is the default", []Event{opened(0, "a"), turn, turnEnd(20, "a", OutcomeCompleted), ended(30, "a", OutcomeCompleted)}, StatusDone, at(20)},
		{"after a failed turn: error stays error", []Event{opened(0, "a"), turn, turnEnd(20, "a", OutcomeError), ended(30, "a", "")}, StatusError, at(20)},
		{"mid-turn (working): error", []Event{opened(0, "a"), turn, ended(30, "a", "")}, StatusError, at(30)},
		{"mid-turn (a tool out): error", []Event{opened(0, "a"), turn, toolStart(20, "a", "Bash"), ended(30, "a", "")}, StatusError, at(30)},
		{"waiting on the human: error", []Event{opened(0, "a"), turn, askFor(20, "a", "Bash", "rm"), ended(30, "a", "")}, StatusError, at(30)},
		{"a failure after a done turn: error", []Event{opened(0, "a"), turn, turnEnd(20, "a", OutcomeCompleted), ended(30, "a", OutcomeError)}, StatusError, at(30)},
		{"before any turn (opened only): error, it never finished one", []Event{opened(0, "a"), ended(30, "a", "")}, StatusError, at(30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFold()
			mustApply(t, f, tt.events...)
			s, ok := f.Session("a")
			if !ok {
				t.Fatal("the row was removed: an ended session is a row until it is closed out")
			}
			if s.Status != tt.wantStatus || s.Since != tt.wantSince {
				t.Fatalf("status %s since %d, want %s since %d", s.Status, s.Since, tt.wantStatus, tt.wantSince)
			}
			if s.Approval != nil {
				t.Fatalf("approval %+v left on an ended row", s.Approval)
			}
			if s.Activity != nil && s.Activity.Kind == ActivityTool {
				t.Fatalf("activity %+v: no tool runs in an ended session", s.Activity)
			}
		})
	}
}

// TestSessionEndedNoRevival: after the end, no hook that arrives late moves
// the row: not a turn, a tool, an approval or a turn's end. A title and
// context tokens still apply; a session.opened (a new process for the
// session) lets it live again; the close-out removes it.
func TestSessionEndedNoRevival(t *testing.T) {
	late := []Event{
		bare(100, TypeTurnStarted, "a"),
		toolStart(110, "a", "Bash"),
		toolEnd(120, "a", "Bash", OutcomeError),
		askFor(130, "a", "Bash", "rm -rf"),
		resolve(140, "a", OutcomeAllowedOnce),
		turnEnd(150, "a", OutcomeError),
		ended(160, "a", OutcomeError),
	}
	f := NewFold()
	mustApply(t, f, opened(0, "a"), bare(10, TypeTurnStarted, "a"), turnEnd(20, "a", OutcomeCompleted), ended(30, "a", ""))
	before, _ := f.Session("a")
	for _, ev := range late {
		w := mustApply(t, f, ev)
		if got, _ := f.Session("a"); !sameRow(got, before) {
			t.Fatalf("%s after the end changed the row:\n got %+v\nwant %+v", ev.Type, got, before)
		}
		if ev.Type != TypeSessionEnded && (len(w) != 1 || !strings.Contains(w[0], "has ended")) {
			t.Fatalf("%s after the end: warnings %q, want one saying it was ignored", ev.Type, w)
		}
	}
	mustApply(t, f, titled(200, "a", "Fix the hub"), tokens(210, "a", 4321))
	if s, _ := f.Session("a"); s.Title != "Fix the hub" || s.ContextTokens != 4321 || s.Status != StatusDone {
		t.Fatalf("title and tokens after the end: %+v", s)
	}
	// A new process for the session (a resume) starts it again.
	mustApply(t, f, opened(300, "a"), bare(310, TypeTurnStarted, "a"))
	if s, _ := f.Session("a"); s.Status != StatusWorking || s.Since != at(310) {
		t.Fatalf("a re-opened session's turn: %+v", s)
	}
	mustApply(t, f, ended(400, "a", ""), bare(410, TypeSessionFinished, "a"))
	if f.Has("a") {
		t.Fatal("session.finished after the end: the row is still held")
	}
}

func sameRow(a, b Session) bool {
	return a.Status == b.Status && a.Since == b.Since && a.Steps == b.Steps && a.ErrorStreak == b.ErrorStreak &&
		(a.Approval == nil) == (b.Approval == nil) && a.ApprovedAt == b.ApprovedAt &&
		(a.Activity == nil) == (b.Activity == nil) && (a.Activity == nil || *a.Activity == *b.Activity)
}

// TestSessionEndedSettlesSubagents: a session's end settles its subagents'
// rows (a working or waiting one is an error: it ended unfinished; a done
// one stays done), they take no late hook either, and the close-out of the
// session takes its settled subagents with it: no orphan rows.
func TestSessionEndedSettlesSubagents(t *testing.T) {
	f := NewFold()
	mustApply(t, f,
		opened(0, "p"), bare(1, TypeTurnStarted, "p"),
		subagent(2, "p/done", "p"), bare(3, TypeTurnStarted, "p/done"), turnEnd(4, "p/done", OutcomeCompleted),
		subagent(5, "p/busy", "p"), bare(6, TypeTurnStarted, "p/busy"), toolStart(7, "p/busy", "Grep"),
		subagent(8, "p/ask", "p"), bare(9, TypeTurnStarted, "p/ask"), askFor(10, "p/ask", "Bash", "go test"),
		subagent(11, "p/busy/deep", "p/busy"), bare(12, TypeTurnStarted, "p/busy/deep"),
		opened(13, "other"), subagent(14, "other/sub", "other"), bare(15, TypeTurnStarted, "other/sub"),
		turnEnd(16, "p", OutcomeCompleted),
	)
	mustApply(t, f, ended(20, "p", ""))
	want := map[string]string{"p": StatusDone, "p/done": StatusDone, "p/busy": StatusError, "p/ask": StatusError,
		"p/busy/deep": StatusError, "other": StatusWorking, "other/sub": StatusWorking}
	for id, st := range want {
		s, ok := f.Session(id)
		if !ok || s.Status != st {
			t.Errorf("%s: held %v, status %q; want %q", id, ok, s.Status, st)
		}
		if s.Approval != nil {
			t.Errorf("%s: approval left: %+v", id, s.Approval)
		}
	}
	// A subagent's late hook does not revive it.
	mustApply(t, f, askFor(30, "p/busy", "Bash", "late"), bare(31, TypeTurnStarted, "p/done"))
	if s, _ := f.Session("p/busy"); s.Status != StatusError {
		t.Fatalf("a subagent's late hook revived it: %+v", s)
	}
	if s, _ := f.Session("p/done"); s.Status != StatusDone {
		t.Fatalf("a subagent's late turn revived it: %+v", s)
	}
	// The close-out takes the settled subagents along; other sessions stay.
	mustApply(t, f, bare(40, TypeSessionFinished, "p"))
	for id := range want {
		if strings.HasPrefix(id, "p") && f.Has(id) {
			t.Errorf("%s is held after its session's close-out: an orphan", id)
		}
	}
	if !f.Has("other") || !f.Has("other/sub") {
		t.Fatal("another session went with the close-out")
	}
}

// TestRetireTakesSettledSubagents: the ✕ (or a mark) on a session closes
// out its settled subagents too; a working one stays, for it is true.
func TestRetireTakesSettledSubagents(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(0, "p"), subagent(1, "p/a", "p"), turnEnd(2, "p/a", OutcomeCompleted),
		subagent(3, "p/b", "p"), turnEnd(4, "p", OutcomeCompleted))
	if !f.Retire("p") {
		t.Fatal("Retire reported no change")
	}
	if f.Has("p") || f.Has("p/a") {
		t.Fatal("the session or its settled subagent is still held")
	}
	if !f.Has("p/b") {
		t.Fatal("a working subagent was removed by its parent's close-out")
	}
}

// TestSessionEndedVocabulary: session.ended is vocabulary v2; it takes an
// optional outcome completed|error and nothing else.
func TestSessionEndedVocabulary(t *testing.T) {
	for _, tt := range []struct {
		ev   Event
		want error
	}{
		{Event{Type: TypeSessionEnded, Session: "a"}, nil},
		{Event{V: 2, Type: TypeSessionEnded, Session: "a", Outcome: OutcomeError}, nil},
		{Event{V: 2, Type: TypeSessionEnded, Session: "a", Outcome: OutcomeCompleted}, nil},
		{Event{V: 1, Type: TypeSessionEnded, Session: "a"}, ErrVersion},
		{Event{V: 3, Type: TypeSessionEnded, Session: "a"}, ErrVersion},
		{Event{Type: TypeSessionEnded, Session: "a", Outcome: OutcomeRejected}, ErrInvalidEvent},
		{Event{Type: TypeSessionEnded, Session: "a", Tool: "Bash"}, ErrInvalidEvent},
		{Event{V: 1, Type: TypeTurnStarted, Session: "a"}, nil},
		{Event{V: 2, Type: TypeTurnStarted, Session: "a"}, nil},
	} {
		if err := tt.ev.Validate(); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%+v: %v, want %v", tt.ev, err, tt.want)
		}
	}
}
