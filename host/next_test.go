package host

import (
	"testing"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

func TestNextChange(t *testing.T) {
	const t0 = int64(1_800_000_000_000)
	row := func(id, status string, since int64) state.Session {
		return state.Session{ID: id, Status: status, Since: since}
	}
	ms := func(v int64) time.Time { return time.UnixMilli(v) }
	for _, tc := range []struct {
		name    string
		follow  bool
		unknown bool
		doc     state.Document
		want    time.Time
	}{
		{name: "route: nothing by time", doc: state.Document{Retire: state.RetireRoute, Sessions: []state.Session{row("a", state.StatusDone, t0)}}},
		{name: "timer: no settled row", doc: state.Document{Retire: state.RetireTimer, Sessions: []state.Session{
			row("a", state.StatusWorking, t0), row("b", state.StatusAttention, t0)}}},
		{name: "timer: the first settled row to go", doc: state.Document{Retire: state.RetireTimer, Sessions: []state.Session{
			row("a", state.StatusWorking, t0-9000), row("b", state.StatusDone, t0), row("c", state.StatusError, t0-500), row("d", state.StatusDone, t0+10)}},
			want: ms(t0 - 500 + 60_000 + 1)},
		{name: "follow: when the heartbeat goes stale", follow: true, doc: state.Document{WallMs: t0, Retire: state.RetireTimer,
			Sessions: []state.Session{row("a", state.StatusDone, t0-59_000)}}, want: ms(t0 + 4001)},
		{name: "follow: stale already, only a new document", follow: true, unknown: true, doc: state.Document{WallMs: t0}},
		{name: "follow: nothing read yet", follow: true, unknown: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBoard(BoardConfig{RetireAfter: time.Minute}, tc.follow, nil)
			if got := b.NextChange(tc.doc, tc.unknown); !got.Equal(tc.want) {
				t.Errorf("NextChange = %v, want %v", got, tc.want)
			}
		})
	}
}

// NextChange names the very instant the view changes: a snapshot just
// before it still holds the row, one at it does not.
func TestNextChangeIsTheRetire(t *testing.T) {
	f := state.NewFold()
	t0 := time.UnixMilli(1_800_000_000_000)
	if _, err := f.Apply(state.Event{Type: "session.opened", Session: "a", At: t0.UnixMilli()},
		state.Event{Type: "turn.started", Session: "a", At: t0.UnixMilli()},
		state.Event{Type: "turn.ended", Session: "a", Outcome: "completed", At: t0.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	in := state.SnapshotInput{Now: t0, Retire: state.RetireTimer, RetireAfter: time.Minute, Settings: settings.Defaults}
	at := NewBoard(BoardConfig{RetireAfter: time.Minute}, false, nil).NextChange(f.Snapshot(in), false)
	in.Now = at.Add(-time.Millisecond)
	if len(f.Snapshot(in).Sessions) != 1 {
		t.Fatalf("the row left before %v", at)
	}
	in.Now = at
	if len(f.Snapshot(in).Sessions) != 0 {
		t.Fatalf("the row is still there at %v", at)
	}
}
