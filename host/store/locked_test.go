package store

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// Sessions that start while another program holds the history file locked
// are kept for later, not dropped: the history is "unavailable" meanwhile
// (docs/history.md), and once the file is free they are written — with
// nothing else recorded to carry them, in order, each event once, and the
// sequence the feed sends goes on without a gap.
func TestALockedFileKeepsWhatCameForLater(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	ctx := context.Background()
	s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: "before", At: at(0)}}})
	flush(t, s)
	last, err := s.Last(ctx, Local)
	if err != nil {
		t.Fatal(err)
	}

	other, err := sql.Open("sqlite", dsn(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	ev := func(d time.Duration, e state.Event) host.RecordedEvent {
		e.At = at(d)
		return host.RecordedEvent{Event: e, Agent: "codex"}
	}
	s.RecordEvents([]host.RecordedEvent{
		ev(time.Minute, state.Event{Type: state.TypeSessionOpened, Session: "while-locked", Project: "argon"}),
		ev(time.Minute, state.Event{Type: state.TypeTurnStarted, Session: "while-locked"}),
		ev(2*time.Minute, state.Event{Type: state.TypeToolStarted, Session: "while-locked", Tool: "Bash"}),
		ev(3*time.Minute, state.Event{Type: state.TypeTurnEnded, Session: "while-locked", Outcome: state.OutcomeCompleted}),
	})
	s.RecordAnswer(host.RecordedAnswer{Session: "while-locked", Call: "c1", Agent: "codex", Tool: "Bash", By: host.ByBoard, Outcome: host.OutcomeAllowed,
		Asked: day0.Add(2 * time.Minute), Answered: day0.Add(2*time.Minute + 5*time.Second)})
	flush(t, s) // the batch fails: the file is locked
	if p := s.Problem(); !strings.HasPrefix(p, "history unavailable") {
		t.Fatalf("problem %q while the file is locked", p)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}

	// Nothing more is recorded: the writer tries again on its own, and
	// the history is available again once it wrote them.
	waitfor.Until(t, "the session that started while the file was locked, and the history available", func() bool {
		if s.Problem() != "" {
			return false
		}
		rows, _, err := s.Sessions(ctx, Query{})
		for _, r := range rows {
			if r.ID == "while-locked" {
				return err == nil
			}
		}
		return false
	})
	turns, err := s.Turns(ctx, Local, "while-locked")
	if err != nil || len(turns) != 1 || turns[0].Tools["Bash"] != 1 || turns[0].EndedMs == 0 {
		t.Errorf("its turn: %+v %v, want one ended turn with one Bash", turns, err)
	}
	answers, err := s.Answers(ctx, Local, "while-locked")
	if err != nil || len(answers) != 1 {
		t.Errorf("its answer: %+v %v", answers, err)
	}
	// Four events and an answer, numbered right after what came before.
	if got, err := s.Last(ctx, Local); err != nil || got != last+5 {
		t.Errorf("the machine's sequence: %d %v, want %d (every fact once, no gap)", got, err, last+5)
	}
	var events int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE machine = ? AND session = 'while-locked'`, Local).Scan(&events); err != nil || events != 4 {
		t.Errorf("its events: %d %v, want 4", events, err)
	}
}
