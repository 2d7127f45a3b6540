package state

import (
	"slices"
	"testing"
)

func TestQueue(t *testing.T) {
	const t0 = 1_800_000_000_000
	at := func(id, status string, since int64) Session { return Session{ID: id, Status: status, Since: since} }
	sub := func(id, parent string, since int64) Session {
		s := at(id, StatusAttention, since)
		s.ParentSession, s.Origin = parent, OriginSubagent
		return s
	}
	ids := func(ss []Session, q []Wait) []string {
		var out []string
		for _, w := range q {
			out = append(out, ss[w.Index].ID+">"+ss[w.Top].ID)
		}
		return out
	}
	tests := []struct {
		name string
		ss   []Session
		skip map[string]bool
		want []string // waiting id > its top-level session's id, oldest first
	}{
		{"none waits", []Session{at("a", StatusWorking, t0), at("b", StatusDone, t0), at("c", StatusError, t0)}, nil, nil},
		{"oldest first, whatever the board's order", []Session{
			at("new", StatusAttention, t0+3000), at("w", StatusWorking, t0), at("old", StatusAttention, t0), at("mid", StatusAttention, t0+1000),
		}, nil, []string{"old>old", "mid>mid", "new>new"}},
		{"ties keep the board's order", []Session{
			at("b", StatusAttention, t0), at("a", StatusAttention, t0), at("c", StatusAttention, t0-1),
		}, nil, []string{"c>c", "b>b", "a>a"}},
		{"a subagent's wait is its top-level session's", []Session{
			at("p", StatusWorking, t0), sub("p/s", "p", t0+5), sub("p/s/s", "p/s", t0+2),
		}, nil, []string{"p/s/s>p", "p/s>p"}},
		{"a parent that waits too comes first on a tie", []Session{
			at("p", StatusAttention, t0), sub("s", "p", t0),
		}, nil, []string{"p>p", "s>p"}},
		{"a parent not on the board leaves the subagent on top", []Session{sub("s", "gone", t0)}, nil, []string{"s>s"}},
		{"a parent cycle stops", []Session{
			{ID: "x", Status: StatusAttention, Since: t0, ParentSession: "y"},
			{ID: "y", Status: StatusWorking, Since: t0, ParentSession: "x"},
		}, nil, []string{"x>x"}},
		{"other machines' rows by when they began, a quiet machine's left out", []Session{
			at("mine", StatusAttention, t0+60_000),
			at("build/a", StatusAttention, t0),
			at("laptop/b", StatusAttention, t0+30_000),
			at("quiet/c", StatusAttention, t0-600_000),
		}, map[string]bool{"quiet/c": true}, []string{"build/a>build/a", "laptop/b>laptop/b", "mine>mine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var skip func(string) bool
			if tt.skip != nil {
				skip = func(id string) bool { return tt.skip[id] }
			}
			got := ids(tt.ss, Queue(tt.ss, skip, t0+600_000))
			if !slices.Equal(got, tt.want) {
				t.Errorf("queue = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestQueueClockMoves: as the clock moves every wait grows and none
// overtakes another; a clock behind the waits reads no wait, not a
// negative one; a wait that begins later joins behind the older ones.
func TestQueueClockMoves(t *testing.T) {
	const t0 = 1_800_000_000_000
	ss := []Session{
		{ID: "b", Status: StatusAttention, Since: t0 + 90_000},
		{ID: "a", Status: StatusAttention, Since: t0},
	}
	for _, tc := range []struct {
		now  int64
		want []int64 // waits, in the queue's order (a, b)
	}{
		{t0 - 5_000, []int64{0, 0}},
		{t0, []int64{0, 0}},
		{t0 + 60_000, []int64{60_000, 0}},
		{t0 + 240_000, []int64{240_000, 150_000}},
		{t0 + 3_600_000, []int64{3_600_000, 3_510_000}},
	} {
		q := Queue(ss, nil, tc.now)
		var waits []int64
		var order []string
		for _, w := range q {
			waits = append(waits, w.WaitMs)
			order = append(order, ss[w.Index].ID)
		}
		if !slices.Equal(order, []string{"a", "b"}) || !slices.Equal(waits, tc.want) {
			t.Errorf("at %+d ms: %v %v, want [a b] %v", tc.now-t0, order, waits, tc.want)
		}
	}
	ss = append(ss, Session{ID: "c", Status: StatusAttention, Since: t0 + 300_000})
	if q := Queue(ss, nil, t0+400_000); len(q) != 3 || ss[q[2].Index].ID != "c" || q[2].WaitMs != 100_000 {
		t.Errorf("a later wait: %+v", q)
	}
}

// TestWaitIsTheFoldsAttention: the wait a row shows began when the fold
// put it in attention and does not restart on a second request while it
// waits (its since stays), which is where the History's band begins too.
func TestWaitIsTheFoldsAttention(t *testing.T) {
	f := NewFold()
	apply := func(at int64, evs ...Event) {
		t.Helper()
		for i := range evs {
			evs[i].At = at
		}
		if _, err := f.Apply(evs...); err != nil {
			t.Fatal(err)
		}
	}
	apply(1000, Event{Type: TypeSessionOpened, Session: "s", Cwd: "/p"}, Event{Type: TypeTurnStarted, Session: "s"})
	apply(2000, Event{Type: TypeApprovalRequested, Session: "s", Tool: "Bash"})
	apply(5000, Event{Type: TypeApprovalRequested, Session: "s", Tool: "Edit"})
	q := Queue(f.Snapshot(SnapshotInput{}).Sessions, nil, 9000)
	if len(q) != 1 || q[0].FromMs != 2000 || q[0].WaitMs != 7000 {
		t.Fatalf("queue = %+v, want one wait from 2000 lasting 7000", q)
	}
	apply(9500, Event{Type: TypeApprovalResolved, Session: "s", Outcome: OutcomeAllowedOnce})
	if q := Queue(f.Snapshot(SnapshotInput{}).Sessions, nil, 9600); len(q) != 0 {
		t.Fatalf("answered, still queued: %+v", q)
	}
}
