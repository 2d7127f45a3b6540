package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// Many machines: each machine keeps its own store, and the hub keeps every
// machine's. A machine's events, answers, costs and tokens share one sequence of
// its own (its outbox); the hub says the last it holds of that machine
// (Last), the machine sends what follows from its own store (Since), and
// the hub writes each once (Take): a machine that was away catches up, and
// a resend counts nothing twice.

// Last is the sequence of the last event, answer, cost or tokens the store holds
// of machine, or its mark in the feeds table when that is further (rows
// forgotten or pruned since); 0: none.
func (s *Store) Last(ctx context.Context, machine string) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT max(
		coalesce((SELECT max(oseq) FROM events WHERE machine = ?1), 0),
		coalesce((SELECT max(oseq) FROM answers WHERE machine = ?1), 0),
		coalesce((SELECT max(oseq) FROM costs WHERE machine = ?1), 0),
		coalesce((SELECT max(oseq) FROM tokens WHERE machine = ?1), 0),
		coalesce((SELECT oseq FROM feeds WHERE machine = ?1), 0))`, machine).Scan(&n)
	return n, err
}

// Item is one entry of a machine's outbox at its place in the machine's
// sequence (Seq): an event, an answered card, a reported cost or a
// session's tokens — exactly one of the four. An Event's own Machine and
// Seq are the batch's and the item's.
type Item struct {
	Seq    int64
	Event  *Event
	Answer *host.RecordedAnswer
	Cost   *Cost
	Tokens *TokenTotal
}

// TokenTotal is a session's running total of tokens as its machine keeps
// it (a row of its tokens table): Total at At (ms since the epoch). A
// total, not an increment, so a hub that takes it again counts nothing
// twice.
type TokenTotal struct {
	Session string
	Total   int64
	At      int64
}

// MaxTokens bounds a fed total: past it, a machine's word is not kept
// (2^50, as the ledger's own lines).
const MaxTokens = 1 << 50

// Since is at most n of this host's own events, answers, costs and tokens after
// sequence after, in the order of their sequence, for a hub (their machine
// is left for the hub to set). A count of context tokens carries its
// turn's count as the store holds it now (an event keeps none): the turn's
// last, which is what the hub's turn ends up with; a count with no turn
// before it carries none.
//
// It is one statement, so one snapshot of the file: read as four, a
// batch the writer committed between them could give an answer whose
// events before it were not read, and the hub's mark would pass them.
// Each table's part stops at n, by its (machine, oseq) index.
func (s *Store) Since(ctx context.Context, after int64, n int) ([]Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT * FROM (SELECT 0, e.oseq, e.session, e.at_ms, e.type, e.tool, e.outcome,
			coalesce(s.agent, ''), coalesce(s.project, ''), coalesce(s.cwd, ''), coalesce(s.title, ''), coalesce(s.parent, ''),
			CASE WHEN e.type = ?4 THEN (SELECT t.context_tokens FROM turns t WHERE t.machine = e.machine AND t.session = e.session AND t.started_ms <= e.at_ms ORDER BY t.seq DESC LIMIT 1) END,
			'', 0, '', '', 0.0
			FROM events e LEFT JOIN sessions s ON s.machine = e.machine AND s.id = e.session
			WHERE e.machine = ?1 AND e.oseq > ?2 ORDER BY e.oseq LIMIT ?3)
		UNION ALL SELECT * FROM (SELECT 1, oseq, session, answered_ms, '', tool, outcome, agent, '', '', '', '', NULL, call, asked_ms, by, device, 0.0
			FROM answers WHERE machine = ?1 AND oseq > ?2 ORDER BY oseq LIMIT ?3)
		UNION ALL SELECT * FROM (SELECT 2, oseq, session, at_ms, '', '', '', '', '', '', '', '', NULL, '', 0, '', '', usd
			FROM costs WHERE machine = ?1 AND oseq > ?2 ORDER BY oseq LIMIT ?3)
		UNION ALL SELECT * FROM (SELECT 3, oseq, session, at_ms, '', '', '', '', '', '', '', '', total, '', 0, '', '', 0.0
			FROM tokens WHERE machine = ?1 AND oseq > ?2 ORDER BY oseq LIMIT ?3)
		ORDER BY 2 LIMIT ?3`, Local, after, n, state.TypeContextTokens)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var kind int
		var e Event
		var project, cwd, title, parent, call, by, device string
		var tokens sql.NullInt64
		var asked int64
		var usd float64
		if err := rows.Scan(&kind, &e.Seq, &e.Session, &e.At, &e.Type, &e.Tool, &e.Outcome, &e.Agent, &project, &cwd, &title, &parent, &tokens,
			&call, &asked, &by, &device, &usd); err != nil {
			return nil, err
		}
		switch kind {
		case 1:
			out = append(out, Item{Seq: e.Seq, Answer: &host.RecordedAnswer{Session: e.Session, Call: call, Agent: e.Agent, Tool: e.Tool,
				By: by, Device: device, Outcome: e.Outcome, Asked: time.UnixMilli(asked), Answered: time.UnixMilli(e.At)}})
			continue
		case 2:
			out = append(out, Item{Seq: e.Seq, Cost: &Cost{Session: e.Session, USD: usd, At: e.At}})
			continue
		case 3:
			out = append(out, Item{Seq: e.Seq, Tokens: &TokenTotal{Session: e.Session, Total: tokens.Int64, At: e.At}})
			continue
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
		out = append(out, Item{Seq: e.Seq, Event: &e})
	}
	return out, rows.Err()
}

// ErrFeed: a batch Take refuses (no machine, this host's own name, an
// item without its machine's sequence, or not one of an event, an answer,
// a cost and tokens).
var ErrFeed = errors.New("not a machine's batch")

// feedFact is another machine's batch, written in one transaction (Take).
type feedFact struct {
	machine string
	items   []Item
	last    int64
	err     chan error // the transaction's outcome
}

// Take writes a batch of machine's events, answers, costs and tokens (the hub's
// feed) and returns once it is in the file, or why not: each item once by
// (machine, Seq), whatever was taken before, and machine's mark moved to
// last — the end of the batch as the machine sent it, which may be past
// its last item (the hub skips one it cannot read). Items of one machine
// must come in the order of their sequence, a batch after the one before.
func (s *Store) Take(ctx context.Context, machine string, items []Item, last int64) error {
	if machine == "" || machine == Local {
		return ErrFeed
	}
	for _, it := range items {
		kinds := 0
		for _, set := range []bool{it.Event != nil, it.Answer != nil, it.Cost != nil, it.Tokens != nil} {
			if set {
				kinds++
			}
		}
		if it.Seq <= 0 || it.Seq > last || kinds != 1 {
			return ErrFeed
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f := &feedFact{machine: machine, items: items, last: last, err: make(chan error, 1)}
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

// applyFeed writes a batch of another machine's items and moves its mark.
func (s *Store) applyFeed(ctx context.Context, tx dbtx, f *feedFact) error {
	for _, it := range f.items {
		var err error
		switch {
		case it.Event != nil:
			e := *it.Event
			e.Machine, e.Seq = f.machine, it.Seq
			err = s.applyEvent(ctx, tx, &e)
		case it.Answer != nil:
			err = s.applyAnswer(ctx, tx, f.machine, it.Seq, it.Answer)
		case it.Cost != nil:
			err = s.applyCost(ctx, tx, f.machine, it.Seq, it.Cost)
		case it.Tokens != nil:
			err = s.applyFedTokens(ctx, tx, f.machine, it.Seq, it.Tokens)
		}
		if err != nil {
			return err
		}
	}
	return setMark(ctx, tx, f.machine, f.last)
}

// markLocal keeps the last sequence given to this host's own events,
// answers, costs and tokens in the feeds table, once per batch that gave one.
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
