package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// agrees checks that the history says of each of the board's rows what
// the board does: a row in a turn (working, needs you) has its session
// open and its last turn open; a settled row's session, when ended, ended
// as the row (done or error), and its last turn is over, ended as the row
// unless the session's own end decided it.
func agrees(ctx context.Context, doc state.Document, s *Store) error {
	list, _, err := s.Sessions(ctx, Query{Limit: 1000})
	if err != nil {
		return err
	}
	byID := map[string]Session{}
	for _, x := range list {
		byID[x.ID] = x
	}
	for _, row := range doc.Sessions {
		x, ok := byID[row.ID]
		if !ok {
			return fmt.Errorf("%s: on the board (%s), not in the history", row.ID, row.Status)
		}
		turns, err := s.Turns(ctx, Local, row.ID)
		if err != nil {
			return err
		}
		var last *Turn
		if len(turns) > 0 {
			last = &turns[len(turns)-1]
		}
		switch row.Status {
		case state.StatusWorking, state.StatusAttention:
			if x.EndedMs != 0 || (last != nil && last.EndedMs != 0) {
				return fmt.Errorf("%s: %s on the board, ended in the history (session %q at %d, turn %+v)", row.ID, row.Status, x.Outcome, x.EndedMs, last)
			}
		case state.StatusDone, state.StatusError:
			if last != nil && last.EndedMs == 0 {
				return fmt.Errorf("%s: %s on the board, its last turn open in the history", row.ID, row.Status)
			}
			if x.EndedMs != 0 && x.Outcome != row.Status {
				return fmt.Errorf("%s: %s on the board, the history's session %s", row.ID, row.Status, x.Outcome)
			}
			if x.EndedMs == 0 && last != nil && last.Outcome != row.Status {
				return fmt.Errorf("%s: %s on the board, the history's last turn %s", row.ID, row.Status, last.Outcome)
			}
		}
	}
	return nil
}

// The board and the history agree, whichever way a session ends: killed
// or ended (SessionEnd) mid-turn or at an ask is an error in both, for
// the turn and the session; a clean end after a failed turn stays an
// error; a subagent in a turn under an ended session ends with it; and a
// second end (a restart's) moves no recorded time.
func TestTheHistoryAgreesWithTheBoard(t *testing.T) {
	e := func(d time.Duration, typ, session string, more ...func(*state.Event)) state.Event {
		ev := state.Event{Type: typ, Session: session, At: at(d)}
		if typ == state.TypeSessionOpened {
			ev.Cwd = "/src/argon"
		}
		for _, f := range more {
			f(&ev)
		}
		return ev
	}
	out := func(o string) func(*state.Event) { return func(e *state.Event) { e.Outcome = o } }
	sub := func(p string) func(*state.Event) {
		return func(e *state.Event) { e.Origin, e.Parent = state.OriginSubagent, p }
	}
	tool := func(e *state.Event) { e.Tool = "Bash" }
	s, m := time.Second, time.Minute
	for _, c := range []struct {
		name  string
		evs   []state.Event
		ended map[string]int64 // sessions whose recorded end must be at this time
	}{
		{"killed mid-turn", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"), e(m, state.TypeSessionEnded, "a")}, nil},
		{"SessionEnd at an ask", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeApprovalRequested, "a", tool), e(m, state.TypeSessionEnded, "a")}, nil},
		{"a clean end", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeTurnEnded, "a", out(state.OutcomeCompleted)), e(3*s, state.TypeSessionEnded, "a")}, nil},
		{"a clean end after a failed turn", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeTurnEnded, "a", out(state.OutcomeError)), e(3*s, state.TypeSessionEnded, "a")}, nil},
		{"a subagent under a killed session", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeSessionOpened, "a-sub", sub("a")), e(2*s, state.TypeTurnStarted, "a-sub"),
			e(3*s, state.TypeTurnEnded, "a", out(state.OutcomeCompleted)), e(m, state.TypeSessionEnded, "a")}, nil},
		{"still working", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"), e(2*s, state.TypeToolStarted, "a", tool)}, nil},
		{"a second end moves nothing", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeTurnEnded, "a", out(state.OutcomeCompleted)), e(3*s, state.TypeSessionEnded, "a"), e(3*m, state.TypeSessionEnded, "a")},
			map[string]int64{"a": at(3 * s)}},
		{"a failure that was a cancel", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeTurnEnded, "a", out(state.OutcomeError)), e(3*s, state.TypeTurnEnded, "a", out(state.OutcomeCompleted))}, nil},
		{"a late hook after the end", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeSessionEnded, "a"), e(3*s, state.TypeTurnEnded, "a", out(state.OutcomeCompleted))}, nil},
		{"ended, opened again, working", []state.Event{e(0, state.TypeSessionOpened, "a"), e(s, state.TypeTurnStarted, "a"),
			e(2*s, state.TypeSessionEnded, "a"), e(m, state.TypeSessionOpened, "a"), e(m+s, state.TypeTurnStarted, "a")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := day0.Add(time.Hour)
			st := open(t, &now, Options{})
			b := host.NewBoard(host.BoardConfig{}, false, settings.NewService(settings.Options{PanePath: filepath.Join(t.TempDir(), "settings.json")}))
			b.SetRecorder(st)
			for _, ev := range c.evs {
				if _, err := b.Ingest([]state.Event{ev}, now); err != nil {
					t.Fatal(err)
				}
			}
			flush(t, st)
			doc, _ := b.Snapshot(now)
			if err := agrees(context.Background(), doc, st); err != nil {
				t.Error(err)
			}
			// An ended session's bands end with it: the day's picture
			// draws none of it past its end (nor to now, nor to a restart).
			list, _, _ := st.Sessions(context.Background(), Query{Limit: 10})
			spans, err := st.Day(context.Background(), day0)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range list {
				for _, p := range spans {
					if p.Session == x.ID && x.EndedMs != 0 && p.ToMs > x.EndedMs {
						t.Errorf("%s: a %s band to %d, past the session's end at %d", x.ID, p.Status, p.ToMs, x.EndedMs)
					}
				}
			}
			for id, want := range c.ended {
				list, _, _ := st.Sessions(context.Background(), Query{Limit: 10})
				for _, x := range list {
					if x.ID == id && x.EndedMs != want {
						t.Errorf("%s: ended at %d in the history, want %d (its first end)", id, x.EndedMs, want)
					}
				}
			}
		})
	}
}
