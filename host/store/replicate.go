package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/notch-web/notch-web/state"
)

// Many machines: each machine keeps its own store, and the hub keeps every
// machine's. A machine's events carry its own sequence; the hub says the
// last it holds of that machine (Last), the machine sends what follows
// from its own store (Since), and the hub writes them once each (Take): a
// machine that was away catches up, and a resend counts nothing twice.

// Last is the sequence of the last event the store holds of machine, or
// its mark in the feeds table when that is further (events forgotten or
// pruned since); 0: none.
func (s *Store) Last(ctx context.Context, machine string) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT max(
		coalesce((SELECT max(oseq) FROM events WHERE machine = ?1), 0),
		coalesce((SELECT oseq FROM feeds WHERE machine = ?1), 0))`, machine).Scan(&n)
	return n, err
}

// Since is at most n of this host's own events after sequence after, in
// order, for a hub (their Machine is left for the hub to set). A count of
// context tokens carries its turn's count as the store holds it now (an
// event keeps none): the turn's last, which is what the hub's turn ends up
// with; a count with no turn before it carries none.
func (s *Store) Since(ctx context.Context, after int64, n int) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.oseq, e.session, e.at_ms, e.type, e.tool, e.outcome,
		coalesce(s.agent, ''), coalesce(s.project, ''), coalesce(s.cwd, ''), coalesce(s.title, ''), coalesce(s.parent, ''),
		CASE WHEN e.type = ? THEN (SELECT t.context_tokens FROM turns t WHERE t.machine = e.machine AND t.session = e.session AND t.started_ms <= e.at_ms ORDER BY t.seq DESC LIMIT 1) END
		FROM events e LEFT JOIN sessions s ON s.machine = e.machine AND s.id = e.session
		WHERE e.machine = ? AND e.oseq > ? ORDER BY e.oseq LIMIT ?`, state.TypeContextTokens, Local, after, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var project, cwd, title, parent string
		var tokens sql.NullInt64
		if err := rows.Scan(&e.Seq, &e.Session, &e.At, &e.Type, &e.Tool, &e.Outcome, &e.Agent, &project, &cwd, &title, &parent, &tokens); err != nil {
			return nil, err
		}
		if tokens.Valid {
			e.Tokens = &tokens.Int64
		}
		// The session's descriptive facts ride on its opening (and its
		// title on a titling), as the events first carried them.
		switch e.Type {
		case state.TypeSessionOpened:
			e.Project, e.Cwd, e.Title, e.Parent = project, cwd, title, parent
		case state.TypeSessionTitled:
			e.Title = title
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ErrFeed: a batch Take refuses (no machine, this host's own name, an
// event without its machine's sequence).
var ErrFeed = errors.New("not a machine's batch")

// feedFact is another machine's batch, written in one transaction (Take).
type feedFact struct {
	machine string
	evs     []Event
	last    int64
	err     chan error // the transaction's outcome
}

// Take writes a batch of machine's events (the hub's feed) and returns
// once it is in the file, or why not: each event once by (machine, Seq),
// whatever was taken before, and machine's mark moved to last — the end of
// the batch as the machine sent it, which may be past its last event (the
// hub skips an event it cannot read). Events of one machine must come in
// the order of their sequence, a batch after the one before.
func (s *Store) Take(ctx context.Context, machine string, evs []Event, last int64) error {
	if machine == "" || machine == Local {
		return ErrFeed
	}
	for _, e := range evs {
		if e.Seq <= 0 || e.Seq > last {
			return ErrFeed
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f := &feedFact{machine: machine, evs: evs, last: last, err: make(chan error, 1)}
	select {
	case s.in <- fact{feed: f}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-f.err:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// applyFeed writes a batch of another machine's events and moves its mark.
func (s *Store) applyFeed(ctx context.Context, tx dbtx, f *feedFact) error {
	for i := range f.evs {
		e := f.evs[i]
		e.Machine = f.machine
		if err := s.applyEvent(ctx, tx, &e); err != nil {
			return err
		}
	}
	return setMark(ctx, tx, f.machine, f.last)
}

// markLocal keeps the last sequence given to this host's own events in
// the feeds table, once per batch that gave one.
func (s *Store) markLocal(ctx context.Context, tx dbtx) error {
	if s.oseq == s.marked {
		return nil
	}
	return setMark(ctx, tx, Local, s.oseq)
}

func setMark(ctx context.Context, tx dbtx, machine string, oseq int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO feeds (machine, oseq) VALUES (?, ?) ON CONFLICT (machine) DO UPDATE SET oseq = max(oseq, excluded.oseq)`, machine, oseq)
	return err
}
