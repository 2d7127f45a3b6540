package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/notch-web/notch-web/state"
)

// The reads. Each is one or a few indexed queries; times are ms since the
// epoch, a span or session still open counts up to now.

// where builds the filter of a session query.
func (q Query) where() (string, []any) {
	var conds []string
	var args []any
	for _, w := range q.Words {
		like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(w) + "%"
		conds = append(conds, `(s.title LIKE ? ESCAPE '\' OR s.project LIKE ? ESCAPE '\' OR s.machine LIKE ? ESCAPE '\' OR s.agent LIKE ? ESCAPE '\' OR s.cwd LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like, like, like)
	}
	if !q.Day.IsZero() {
		start := q.Day.UnixMilli()
		end := q.Day.AddDate(0, 0, 1).UnixMilli()
		conds = append(conds, `s.started_ms < ? AND (s.ended_ms = 0 OR s.ended_ms >= ?)`)
		args = append(args, end, start)
	}
	for _, c := range []struct{ col, v string }{{"s.project", q.Project}, {"s.machine", q.Machine}, {"s.agent", q.Agent}} {
		if c.v != "" {
			conds = append(conds, c.col+` = ?`)
			args = append(args, c.v)
		}
	}
	switch q.Outcome {
	case "":
	case "open":
		conds = append(conds, `s.ended_ms = 0`)
	default:
		conds = append(conds, `s.outcome = ?`)
		args = append(args, q.Outcome)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Sessions are the sessions q finds, newest first, and how many there are.
func (s *Store) Sessions(ctx context.Context, q Query) ([]Session, int, error) {
	where, args := q.where()
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions s`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	now := s.now().UnixMilli()
	rows, err := s.db.QueryContext(ctx, `SELECT s.machine, s.id, s.agent, s.project, s.cwd, s.title, s.parent, s.started_ms, s.ended_ms, s.outcome, s.cost_usd,
		(SELECT count(*) FROM turns t WHERE t.machine = s.machine AND t.session = s.id),
		(SELECT coalesce(max(t.context_tokens), 0) FROM turns t WHERE t.machine = s.machine AND t.session = s.id),
		(SELECT coalesce(sum(CASE WHEN p.to_ms = 0 THEN ? ELSE p.to_ms END - p.from_ms), 0) FROM spans p WHERE p.machine = s.machine AND p.session = s.id AND p.status = 'working'),
		(SELECT coalesce(sum(CASE WHEN p.to_ms = 0 THEN ? ELSE p.to_ms END - p.from_ms), 0) FROM spans p WHERE p.machine = s.machine AND p.session = s.id AND p.status = 'attention')
		FROM sessions s`+where+` ORDER BY s.started_ms DESC, s.id LIMIT ? OFFSET ?`,
		slices.Concat([]any{now, now}, args, []any{limit, q.Offset})...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var r Session
		var cost sql.NullFloat64
		if err := rows.Scan(&r.Machine, &r.ID, &r.Agent, &r.Project, &r.Cwd, &r.Title, &r.Parent, &r.StartedMs, &r.EndedMs, &r.Outcome, &cost,
			&r.Turns, &r.ContextTokens, &r.WorkingMs, &r.WaitingMs); err != nil {
			return nil, 0, err
		}
		r.CostUSD = floatPtr(cost)
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// Turns are a session's turns, first first.
func (s *Store) Turns(ctx context.Context, machine, id string) ([]Turn, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, started_ms, ended_ms, outcome, tools, errors, context_tokens, cost_usd FROM turns WHERE machine = ? AND session = ? ORDER BY seq`, machine, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Turn
	for rows.Next() {
		var t Turn
		var tools string
		var cost sql.NullFloat64
		if err := rows.Scan(&t.Seq, &t.StartedMs, &t.EndedMs, &t.Outcome, &tools, &t.Errors, &t.ContextTokens, &cost); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(tools), &t.Tools)
		t.CostUSD = floatPtr(cost)
		out = append(out, t)
	}
	return out, rows.Err()
}

// Answers are a session's answered cards, first first.
func (s *Store) Answers(ctx context.Context, machine, id string) ([]Answer, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session, call, tool, asked_ms, answered_ms, by, outcome FROM answers WHERE machine = ? AND session = ? ORDER BY asked_ms`, machine, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Answer
	for rows.Next() {
		var a Answer
		if err := rows.Scan(&a.Session, &a.Call, &a.Tool, &a.AskedMs, &a.AnsweredMs, &a.By, &a.Outcome); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Day is the status bands of every session that has one in the local day
// of day (clipped to it), by session then time.
func (s *Store) Day(ctx context.Context, day time.Time) ([]Span, error) {
	start, end := dayBounds(day)
	rows, err := s.db.QueryContext(ctx, `SELECT p.machine, p.session, coalesce(s.title, ''), p.status, p.from_ms, p.to_ms
		FROM spans p LEFT JOIN sessions s ON s.machine = p.machine AND s.id = p.session
		WHERE p.from_ms < ? AND (p.to_ms = 0 OR p.to_ms > ?)
		ORDER BY coalesce(s.started_ms, p.from_ms), p.machine, p.session, p.from_ms`, end, start)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	now := s.now().UnixMilli()
	var out []Span
	for rows.Next() {
		var p Span
		if err := rows.Scan(&p.Machine, &p.Session, &p.Title, &p.Status, &p.FromMs, &p.ToMs); err != nil {
			return nil, err
		}
		p.FromMs = max(p.FromMs, start)
		if p.ToMs == 0 || p.ToMs > end {
			p.ToMs = min(end, max(now, p.FromMs))
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Days are n days of bars ending with last's local day, oldest first.
func (s *Store) Days(ctx context.Context, last time.Time, n int) ([]DayBar, error) {
	out := make([]DayBar, 0, n)
	first := midnight(last).AddDate(0, 0, -(n - 1))
	now := s.now().UnixMilli()
	for i := range n {
		d := first.AddDate(0, 0, i)
		start, end := dayBounds(d)
		bar := DayBar{Day: d}
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE started_ms >= ? AND started_ms < ?`, start, end).Scan(&bar.Sessions); err != nil {
			return nil, err
		}
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM turns WHERE started_ms >= ? AND started_ms < ?`, start, end).Scan(&bar.Turns); err != nil {
			return nil, err
		}
		clip := `SELECT coalesce(sum(min(CASE WHEN to_ms = 0 THEN ? ELSE to_ms END, ?) - max(from_ms, ?)), 0) FROM spans WHERE status = ? AND from_ms < ? AND (to_ms = 0 OR to_ms > ?)`
		if err := s.db.QueryRowContext(ctx, clip, now, end, start, state.StatusWorking, end, start).Scan(&bar.WorkingMs); err != nil {
			return nil, err
		}
		if err := s.db.QueryRowContext(ctx, clip, now, end, start, state.StatusAttention, end, start).Scan(&bar.WaitingMs); err != nil {
			return nil, err
		}
		bar.WorkingMs, bar.WaitingMs = max(bar.WorkingMs, 0), max(bar.WaitingMs, 0)
		if err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(m), 0) FROM (SELECT max(context_tokens) AS m FROM turns WHERE ended_ms >= ? AND ended_ms < ? GROUP BY machine, session)`, start, end).Scan(&bar.Tokens); err != nil {
			return nil, err
		}
		// The cost of a day: per session, its last report of the day less
		// its last before it; nil when no agent reported one that day.
		var cost sql.NullFloat64
		if err := s.db.QueryRowContext(ctx, `SELECT sum(hi - lo) FROM (
			SELECT max(c.usd) AS hi, coalesce((SELECT max(b.usd) FROM costs b WHERE b.machine = c.machine AND b.session = c.session AND b.at_ms < ?), 0) AS lo
			FROM costs c WHERE c.at_ms >= ? AND c.at_ms < ? GROUP BY c.machine, c.session)`, start, start, end).Scan(&cost); err != nil {
			return nil, err
		}
		bar.CostUSD = floatPtr(cost)
		out = append(out, bar)
	}
	return out, nil
}

// Headline is a day's waits on the human: their total, count, median and
// the longest, with its session.
func (s *Store) Headline(ctx context.Context, day time.Time) (Headline, error) {
	var h Headline
	spans, err := s.Day(ctx, day)
	if err != nil {
		return h, err
	}
	var waits []int64
	for _, p := range spans {
		if p.Status != state.StatusAttention {
			continue
		}
		d := p.ToMs - p.FromMs
		waits = append(waits, d)
		h.WaitingMs += d
		if d > h.LongestWaitMs {
			h.LongestWaitMs, h.LongestMachine, h.LongestSession, h.LongestTitle = d, p.Machine, p.Session, p.Title
		}
	}
	h.Waits = len(waits)
	if len(waits) > 0 {
		slices.Sort(waits)
		h.MedianWaitMs = waits[len(waits)/2]
		if len(waits)%2 == 0 {
			h.MedianWaitMs = (waits[len(waits)/2-1] + waits[len(waits)/2]) / 2
		}
	}
	return h, nil
}

// Facets are the projects, machines and agents the store has, for the
// filters (at most 200 of each, by name).
func (s *Store) Facets(ctx context.Context) (projects, machines, agents []string, err error) {
	get := func(col string) ([]string, error) {
		rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT `+col+` FROM sessions WHERE `+col+` != '' ORDER BY `+col+` LIMIT 200`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, rows.Err()
	}
	if projects, err = get("project"); err != nil {
		return
	}
	if machines, err = get("machine"); err != nil {
		return
	}
	agents, err = get("agent")
	return
}

// Entries are a session's last n events, newest first (the row's ▸
// panel after a restart).
func (s *Store) Entries(ctx context.Context, machine, id string, n int) ([]Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at_ms, type, tool, outcome FROM events WHERE machine = ? AND session = ? ORDER BY at_ms DESC, oseq DESC LIMIT ?`, machine, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		if err := rows.Scan(&e.AtMs, &e.Type, &e.Tool, &e.Outcome); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func floatPtr(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	v := f.Float64
	return &v
}

func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// dayBounds are the ms of a local day's start and the next day's.
func dayBounds(day time.Time) (int64, int64) {
	d := midnight(day)
	return d.UnixMilli(), d.AddDate(0, 0, 1).UnixMilli()
}
