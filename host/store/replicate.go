package store

import (
	"context"

	"github.com/notch-web/notch-web/state"
)

// Many machines: each machine keeps its own store, and the hub keeps every
// machine's. A machine's events carry its own sequence; the hub says the
// last it holds of that machine (Last), the machine sends what follows
// from its own store (Since), and the hub inserts them once each (Add): a
// machine that was away catches up, and a resend counts nothing twice.

// Last is the sequence of the last event the store holds of machine (0:
// none).
func (s *Store) Last(ctx context.Context, machine string) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(oseq), 0) FROM events WHERE machine = ?`, machine).Scan(&n)
	return n, err
}

// Since is at most n of this host's own events after sequence after, in
// order, for a hub (their Machine is left for the hub to set).
func (s *Store) Since(ctx context.Context, after int64, n int) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.oseq, e.session, e.at_ms, e.type, e.tool, e.outcome,
		coalesce(s.agent, ''), coalesce(s.project, ''), coalesce(s.cwd, ''), coalesce(s.title, ''), coalesce(s.parent, '')
		FROM events e LEFT JOIN sessions s ON s.machine = e.machine AND s.id = e.session
		WHERE e.machine = ? AND e.oseq > ? ORDER BY e.oseq LIMIT ?`, Local, after, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var project, cwd, title, parent string
		if err := rows.Scan(&e.Seq, &e.Session, &e.At, &e.Type, &e.Tool, &e.Outcome, &e.Agent, &project, &cwd, &title, &parent); err != nil {
			return nil, err
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
