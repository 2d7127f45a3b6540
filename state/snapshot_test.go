package state

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

func ids(d Document) []string {
	out := make([]string, len(d.Sessions))
	for i, s := range d.Sessions {
		out[i] = s.ID
	}
	return out
}

// settled builds a fold with one row per status, settled at the given
// offsets: w working since 0, n attention since 10, d done since 20, e
// error since 30.
func settled(t *testing.T) *Fold {
	f := NewFold()
	mustApply(t, f, opened(0, "w"), opened(0, "n"), opened(0, "d"), opened(0, "e"),
		askFor(10, "n", "bash", ""), turnEnd(20, "d", OutcomeCompleted), turnEnd(30, "e", OutcomeError))
	return f
}

func TestSnapshotSummary(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   Summary
	}{
		// docs/contract.md rule 5: with no rows nothing is invented; "idle" is no contract value.
		{"no sessions: no status", nil, Summary{}},
		{"done only", []Event{opened(0, "a"), turnEnd(1, "a", OutcomeCompleted)}, Summary{Status: StatusDone, Done: 1, Total: 1}},
		{"error beats done", []Event{opened(0, "a"), turnEnd(1, "a", OutcomeError), opened(2, "b"), turnEnd(3, "b", OutcomeCompleted)},
			Summary{Status: StatusError, Done: 1, Error: 1, Total: 2}},
		{"attention beats error", []Event{opened(0, "a"), turnEnd(1, "a", OutcomeError), opened(2, "b"), askFor(3, "b", "x", "")},
			Summary{Status: StatusAttention, Attention: 1, Error: 1, Total: 2}},
		{"working beats error", []Event{opened(0, "a"), turnEnd(1, "a", OutcomeError), opened(2, "b")},
			Summary{Status: StatusWorking, Working: 1, Error: 1, Total: 2}},
		// The contract's own example: 2 working, 1 attention, 1 done ⇒ "working".
		{"the contract's example", []Event{opened(0, "a"), opened(0, "b"), opened(0, "c"), askFor(1, "c", "pwsh", ""),
			opened(0, "d"), turnEnd(2, "d", OutcomeCompleted)},
			Summary{Status: StatusWorking, Working: 2, Attention: 1, Done: 1, Total: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFold()
			mustApply(t, f, tc.events...)
			d := f.Snapshot(input(100))
			if d.Summary != tc.want {
				t.Errorf("summary = %+v, want %+v", d.Summary, tc.want)
			}
			if d.Sessions == nil {
				t.Error("Sessions is nil; the wire wants []")
			}
		})
	}
}

// TestSnapshotRows covers which rows a document carries: docs/contract.md rule 2 (retire),
// docs/contract.md rule 6 (showDone) and the MaxSessions cut, each with the summary that
// must agree with the rows.
func TestSnapshotRows(t *testing.T) {
	minute := int64(time.Minute / time.Millisecond)
	tests := []struct {
		name    string
		edit    func(*SnapshotInput)
		wantIDs []string
		want    Summary
	}{
		{"route keeps every row however old", func(in *SnapshotInput) { in.Now = in.Now.Add(24 * time.Hour) },
			[]string{"w", "n", "d", "e"}, Summary{StatusWorking, 1, 1, 1, 1, 4}},
		{"an unknown retire is route", func(in *SnapshotInput) { in.Retire = "sometimes"; in.Now = in.Now.Add(24 * time.Hour) },
			[]string{"w", "n", "d", "e"}, Summary{StatusWorking, 1, 1, 1, 1, 4}},
		{"timer keeps settled rows younger than 15 min", func(in *SnapshotInput) {
			in.Retire = RetireTimer
			in.Now = time.UnixMilli(at(20 + 15*minute)) // d exactly 15 min old: kept
		}, []string{"w", "n", "d", "e"}, Summary{StatusWorking, 1, 1, 1, 1, 4}},
		{"timer drops settled rows older than 15 min, never live ones", func(in *SnapshotInput) {
			in.Retire = RetireTimer
			in.Now = time.UnixMilli(at(21 + 15*minute)) // d 1 ms past, e 9 ms short
		}, []string{"w", "n", "e"}, Summary{StatusWorking, 1, 1, 0, 1, 3}},
		{"timer honours RetireAfter", func(in *SnapshotInput) {
			in.Retire, in.RetireAfter = RetireTimer, time.Minute
			in.Now = time.UnixMilli(at(40 + minute))
		}, []string{"w", "n"}, Summary{StatusWorking, 1, 1, 0, 0, 2}},
		{"showDone false drops done rows, not error rows (docs/contract.md rule 6)", func(in *SnapshotInput) { in.Settings.ShowDone = false },
			[]string{"w", "n", "e"}, Summary{StatusWorking, 1, 1, 0, 1, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := input(100)
			tc.edit(&in)
			d := settled(t).Snapshot(in)
			if got := ids(d); !slices.Equal(got, tc.wantIDs) {
				t.Errorf("rows = %v, want %v", got, tc.wantIDs)
			}
			if d.Summary != tc.want {
				t.Errorf("summary = %+v, want %+v", d.Summary, tc.want)
			}
		})
	}
}

// TestSnapshotMaxSessions: 60 sessions, 15 per status, opened in an order
// that interleaves the statuses. The 40 kept are all 15 attention, all 15
// error and the 10 working with the most recent since.
func TestSnapshotMaxSessions(t *testing.T) {
	f := NewFold()
	statuses := []string{StatusDone, StatusWorking, StatusError, StatusAttention}
	want := map[string]bool{}
	for i := range 60 {
		id := fmt.Sprintf("s%02d", i)
		st := statuses[i%4]
		ms := int64(1000 + i)
		mustApply(t, f, opened(ms, id))
		switch st {
		case StatusDone:
			mustApply(t, f, turnEnd(ms, id, OutcomeCompleted))
		case StatusError:
			mustApply(t, f, turnEnd(ms, id, OutcomeError))
			want[id] = true
		case StatusAttention:
			mustApply(t, f, askFor(ms, id, "bash", ""))
			want[id] = true
		case StatusWorking:
			if i >= 60-4*10 { // the 10 most recent working rows
				want[id] = true
			}
		}
	}
	// A subagent of a dropped working row: ranked on its own merits (most
	// recent working), it displaces the oldest of the 10.
	mustApply(t, f, subagent(5000, "late-sub", "s01"))
	want["late-sub"] = true
	delete(want, "s21")

	d := f.Snapshot(input(10_000))
	if len(d.Sessions) != MaxSessions {
		t.Fatalf("carried %d sessions, want %d", len(d.Sessions), MaxSessions)
	}
	got := map[string]bool{}
	for _, s := range d.Sessions {
		got[s.ID] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kept %v\nwant %v", ids(d), want)
	}
	if d.Summary != (Summary{StatusWorking, 10, 15, 0, 15, 40}) {
		t.Errorf("summary = %+v", d.Summary)
	}
	// Output stays in open order; the orphaned subagent is top-level, last.
	if !slices.IsSortedFunc(d.Sessions[:39], func(a, b Session) int { return compareIDs(a.ID, b.ID) }) || d.Sessions[39].ID != "late-sub" {
		t.Errorf("order = %v", ids(d))
	}
}

func compareIDs(a, b string) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func TestSnapshotOrder(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(0, "p"), opened(1, "q"), subagent(2, "p.1", "p"), opened(3, "r"),
		subagent(4, "q.1", "q"), subagent(5, "p.1.a", "p.1"), subagent(6, "p.2", "p"))
	want := []string{"p", "p.1", "p.1.a", "p.2", "q", "q.1", "r"}
	for i := range 3 { // stable across snapshots (map order must not leak)
		if got := ids(f.Snapshot(input(10))); !slices.Equal(got, want) {
			t.Fatalf("snapshot %d order = %v, want %v", i, got, want)
		}
	}
	// A parent that leaves: its subagents fall back to open order.
	mustApply(t, f, bare(20, TypeSessionFinished, "p"))
	if got, want := ids(f.Snapshot(input(30))), []string{"q", "q.1", "p.1", "p.1.a", "r", "p.2"}; !slices.Equal(got, want) {
		t.Errorf("after the parent finished: %v, want %v", got, want)
	}
	// A parent cycle (possible through re-opens) loses no row.
	g := NewFold()
	mustApply(t, g, opened(0, "x"), subagent(1, "y", "x"),
		Event{Type: TypeSessionOpened, Session: "x", At: at(2), Parent: "y"})
	if got := ids(g.Snapshot(input(10))); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("cycle: %v", got)
	}
}

func TestSnapshotContext(t *testing.T) {
	tests := []struct {
		name string
		in   Context
		want Context
	}{
		{"budget null stays null, hotAt defaults (docs/contract.md rule 1)", Context{}, Context{Budget: nil, HotAt: 0.5}},
		{"a real budget is published", Context{Budget: ptr[int64](1_000_000), HotAt: 0.7}, Context{Budget: ptr[int64](1_000_000), HotAt: 0.7}},
		{"a zero budget is not a budget", Context{Budget: ptr[int64](0), HotAt: 0.5}, Context{HotAt: 0.5}},
		{"a negative budget is not a budget", Context{Budget: ptr[int64](-5), HotAt: 0.5}, Context{HotAt: 0.5}},
		{"a negative hotAt defaults", Context{HotAt: -1}, Context{HotAt: 0.5}},
	}
	f := NewFold()
	mustApply(t, f, opened(0, "a"), tokens(1, "a", 412_034))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := input(10)
			in.Context = tc.in
			d := f.Snapshot(in)
			if !reflect.DeepEqual(d.Context, tc.want) {
				t.Errorf("context = %s, want %s", fmtContext(d.Context), fmtContext(tc.want))
			}
			if tc.in.Budget != nil && d.Context.Budget == tc.in.Budget {
				t.Error("the document aliases the caller's budget")
			}
			if d.Sessions[0].ContextTokens != 412_034 {
				t.Errorf("tokens = %d; a missing budget must not touch the count", d.Sessions[0].ContextTokens)
			}
		})
	}
}

func fmtContext(c Context) string {
	if c.Budget == nil {
		return fmt.Sprintf("{budget:null hotAt:%v}", c.HotAt)
	}
	return fmt.Sprintf("{budget:%d hotAt:%v}", *c.Budget, c.HotAt)
}

func TestSnapshotIsPure(t *testing.T) {
	f := NewFold()
	mustApply(t, f, opened(0, "a"), askFor(1, "a", "bash", "x"), resolve(2, "a", OutcomeAllowedOnce), askFor(3, "a", "bash", "y"))
	in := input(10)
	in.FinishedURL, in.OpenURL = ptr("http://127.0.0.1:1/f"), ptr("http://127.0.0.1:1/o")
	a, b := f.Snapshot(in), f.Snapshot(in)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two snapshots of the same fold and input differ")
	}
	if a.Schema != Schema || a.Plugin != Plugin || a.WallMs != at(10) || a.HostPid != 4242 || a.Retire != RetireRoute {
		t.Errorf("header = %d %q %d %d %q", a.Schema, a.Plugin, a.WallMs, a.HostPid, a.Retire)
	}
	// Mutating a document must not reach the fold or the input.
	a.Sessions[0].Approval.Reason = "mutated"
	*a.Sessions[0].ApprovedAt = 0
	*a.FinishedURL = "mutated"
	c := f.Snapshot(in)
	if !reflect.DeepEqual(b, c) || *in.FinishedURL != "http://127.0.0.1:1/f" {
		t.Error("a document shares memory with the fold or the input")
	}
}
