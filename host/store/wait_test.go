package store

import (
	"context"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// TestTheBoardsWaitIsTheHistorys: the same events folded into rows (the
// board's lane, state.Queue) and kept in the history (the page's "time
// waiting on you", Headline) give one number for an open wait, as the
// clock moves, and for one answered — a second request while it waits
// does not restart it in either.
func TestTheBoardsWaitIsTheHistorys(t *testing.T) {
	now := day0.Add(4 * time.Minute)
	s := open(t, &now, Options{})
	m := time.Minute
	evs := []state.Event{
		{Type: state.TypeSessionOpened, Session: "w", Project: "argon", Cwd: "/src/argon", At: at(0)},
		{Type: state.TypeTurnStarted, Session: "w", At: at(0)},
		{Type: state.TypeApprovalRequested, Session: "w", Tool: "Bash", At: at(1 * m)},
		{Type: state.TypeApprovalRequested, Session: "w", Tool: "Edit", At: at(2 * m)},
	}
	f := state.NewFold()
	if _, err := f.Apply(evs...); err != nil {
		t.Fatal(err)
	}
	var rec []host.RecordedEvent
	for _, e := range evs {
		rec = append(rec, host.RecordedEvent{Event: e, Agent: "claude-code"})
	}
	s.RecordEvents(rec)
	flush(t, s)
	ctx := context.Background()
	for _, d := range []time.Duration{4 * m, 7*m + 30*time.Second, 63 * m} {
		now = day0.Add(d)
		q := state.Queue(f.Snapshot(state.SnapshotInput{Now: now}).Sessions, nil, now.UnixMilli())
		h, err := s.Headline(ctx, day0)
		if err != nil || len(q) != 1 || h.Waits != 1 {
			t.Fatalf("at %v: queue %+v, headline %+v, %v", d, q, h, err)
		}
		if want := (d - m).Milliseconds(); q[0].WaitMs != want || h.WaitingMs != want {
			t.Errorf("at %v: the board waits %d ms, the history %d, want %d", d, q[0].WaitMs, h.WaitingMs, want)
		}
	}
	answer := state.Event{Type: state.TypeApprovalResolved, Session: "w", Outcome: state.OutcomeAllowedOnce, At: at(65 * m)}
	before := state.Queue(f.Snapshot(state.SnapshotInput{}).Sessions, nil, answer.At)
	if _, err := f.Apply(answer); err != nil {
		t.Fatal(err)
	}
	s.RecordEvents([]host.RecordedEvent{{Event: answer}})
	flush(t, s)
	now = day0.Add(90 * m)
	h, _ := s.Headline(ctx, day0)
	if q := state.Queue(f.Snapshot(state.SnapshotInput{}).Sessions, nil, now.UnixMilli()); len(q) != 0 || h.WaitingMs != before[0].WaitMs {
		t.Errorf("answered: queue %+v; the history kept %d ms, the board showed %d last", q, h.WaitingMs, before[0].WaitMs)
	}
}
