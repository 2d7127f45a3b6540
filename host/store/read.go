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

// from builds the sessions a query reads, as a FROM and WHERE: with
// words, the full-text index newest first (its rowid is the session's,
// their start's order) joined to each session it finds, so a page stops
// reading at its last row; else the sessions newest first. only is true
// when the words are the whole query (a count needs no join).
func (q Query) from() (from, where string, args []any, only bool) {
	var conds []string
	from = `sessions s`
	if len(q.Words) > 0 {
		// Each word is a word, or the beginning of one, of the session's
		// title, project, machine, agent or folder (the full-text index:
		// case and accents aside); all must be there.
		terms := make([]string, len(q.Words))
		for i, w := range q.Words {
			terms[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `" *`
		}
		from = `sessions_words w CROSS JOIN sessions s ON s.rowid = w.rowid`
		conds = append(conds, `w.sessions_words MATCH ?`)
		args = append(args, strings.Join(terms, " AND "))
	}
	only = len(conds) == 1
	if !q.Day.IsZero() {
		start := q.Day.UnixMilli()
		end := q.Day.AddDate(0, 0, 1).UnixMilli()
		conds = append(conds, `s.rowid < ? AND s.started_ms < ? AND (s.ended_ms = 0 OR s.ended_ms >= ?)`)
		args = append(args, startKey(end), end, start)
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
	only = only && len(conds) == 1
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return from, where, args, only
}

// MaxTotal is where Sessions stops counting.
const MaxTotal = 1000

// Sessions are the sessions q finds, newest first, and how many there are
// (up to MaxTotal).
func (s *Store) Sessions(ctx context.Context, q Query) ([]Session, int, error) {
	from, where, args, only := q.from()
	order := ` ORDER BY s.rowid DESC`
	if len(q.Words) > 0 {
		order = ` ORDER BY w.rowid DESC` // the index's own order: read newest first, no sort
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	now := s.now().UnixMilli()
	// The page's rows first, then their sums: the sums of only the rows
	// shown, never of every match.
	rows, err := s.db.QueryContext(ctx, `SELECT s.machine, s.id, s.agent, s.project, s.cwd, s.title, s.parent, s.started_ms, s.ended_ms, s.outcome, s.cost_usd,
		(SELECT count(*) FROM turns t WHERE t.machine = s.machine AND t.session = s.id),
		(SELECT coalesce(max(t.context_tokens), 0) FROM turns t WHERE t.machine = s.machine AND t.session = s.id),
		(SELECT coalesce(sum(CASE WHEN p.to_ms = 0 THEN ? ELSE p.to_ms END - p.from_ms), 0) FROM spans p WHERE p.machine = s.machine AND p.session = s.id AND p.status = 'working'),
		(SELECT coalesce(sum(CASE WHEN p.to_ms = 0 THEN ? ELSE p.to_ms END - p.from_ms), 0) FROM spans p WHERE p.machine = s.machine AND p.session = s.id AND p.status = 'attention')
		FROM (SELECT s.rowid AS k, s.* FROM `+from+where+order+` LIMIT ? OFFSET ?) s ORDER BY s.k DESC`,
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
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if q.Offset == 0 && len(out) < limit {
		return out, len(out), nil // every match is on the page
	}
	// The count stops at MaxTotal (the page says "1,000 or more"): a word
	// every session has would otherwise be counted through the whole file.
	// Words alone are counted in their index, with no join.
	count := `SELECT count(*) FROM (SELECT 1 FROM ` + from + where + ` LIMIT ?)`
	if only {
		count = `SELECT count(*) FROM (SELECT 1 FROM sessions_words w` + where + ` LIMIT ?)`
	}
	var total int
	if err := s.db.QueryRowContext(ctx, count, append(slices.Clone(args), MaxTotal)...).Scan(&total); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// Turns are a session's turns, first first.
func (s *Store) Turns(ctx context.Context, machine, id string) ([]Turn, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, started_ms, ended_ms, outcome, tools, errors, context_tokens, cost_usd, why FROM turns WHERE machine = ? AND session = ? ORDER BY seq`, machine, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Turn
	for rows.Next() {
		var t Turn
		var tools string
		var cost sql.NullFloat64
		if err := rows.Scan(&t.Seq, &t.StartedMs, &t.EndedMs, &t.Outcome, &tools, &t.Errors, &t.ContextTokens, &cost, &t.Why); err != nil {
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
	rows, err := s.db.QueryContext(ctx, `SELECT session, call, tool, asked_ms, answered_ms, by, device, outcome, operation_id FROM answers WHERE machine = ? AND session = ? ORDER BY asked_ms`, machine, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Answer
	for rows.Next() {
		var a Answer
		if err := rows.Scan(&a.Session, &a.Call, &a.Tool, &a.AskedMs, &a.AnsweredMs, &a.By, &a.Device, &a.Outcome, &a.OperationID); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Details are the turns and the answered cards of each of sessions (a
// page of the list), in its order, first first: two reads for the page,
// not two a session.
func (s *Store) Details(ctx context.Context, sessions []Session) ([][]Turn, [][]Answer, error) {
	turns := make([][]Turn, len(sessions))
	answers := make([][]Answer, len(sessions))
	if len(sessions) == 0 {
		return turns, answers, nil
	}
	at := make(map[[2]string]int, len(sessions))
	args := make([]any, 0, 2*len(sessions))
	for i, r := range sessions {
		at[[2]string{r.Machine, r.ID}] = i
		args = append(args, r.Machine, r.ID)
	}
	keys := `(VALUES (?, ?)` + strings.Repeat(`, (?, ?)`, len(sessions)-1) + `)`
	rows, err := s.db.QueryContext(ctx, `SELECT machine, session, seq, started_ms, ended_ms, outcome, tools, errors, context_tokens, cost_usd, why FROM turns
		WHERE (machine, session) IN `+keys+` ORDER BY machine, session, seq`, args...)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var m, id, tools string
		var t Turn
		var cost sql.NullFloat64
		if err := rows.Scan(&m, &id, &t.Seq, &t.StartedMs, &t.EndedMs, &t.Outcome, &tools, &t.Errors, &t.ContextTokens, &cost, &t.Why); err != nil {
			rows.Close()
			return nil, nil, err
		}
		_ = json.Unmarshal([]byte(tools), &t.Tools)
		t.CostUSD = floatPtr(cost)
		if i, ok := at[[2]string{m, id}]; ok {
			turns[i] = append(turns[i], t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT machine, session, call, tool, asked_ms, answered_ms, by, device, outcome, operation_id FROM answers
		WHERE (machine, session) IN `+keys+` ORDER BY machine, session, asked_ms`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m string
		var a Answer
		if err := rows.Scan(&m, &a.Session, &a.Call, &a.Tool, &a.AskedMs, &a.AnsweredMs, &a.By, &a.Device, &a.Outcome, &a.OperationID); err != nil {
			return nil, nil, err
		}
		if i, ok := at[[2]string{m, a.Session}]; ok {
			answers[i] = append(answers[i], a)
		}
	}
	return turns, answers, rows.Err()
}

// MaxDaySessions bounds the sessions a day's picture draws: the most
// recently started of those active that day.
const MaxDaySessions = 60

// Day is the status bands of the sessions active in the local day of day
// (at most MaxDaySessions, the latest started), clipped to it, by session
// then time.
func (s *Store) Day(ctx context.Context, day time.Time) ([]Span, error) {
	start, end := dayBounds(day)
	// A closed band lies within one day (split at midnight); an open one
	// may have begun any day before. The latest started come first: those
	// started that day, newest first, each with a band in it (a read that
	// stops at the picture's last); only when they are fewer, those that
	// started before and have a band in it.
	inDay := `((p.from_ms >= ?1 AND p.from_ms < ?2) OR (p.to_ms = 0 AND p.from_ms < ?1))`
	rows, err := s.db.QueryContext(ctx, `WITH chosen AS (
			SELECT * FROM (SELECT s.rowid AS k, s.machine, s.id, s.title FROM sessions s
				WHERE s.rowid >= ?4 AND s.rowid < ?5 AND EXISTS (SELECT 1 FROM spans p WHERE p.machine = s.machine AND p.session = s.id AND `+inDay+`)
				ORDER BY s.rowid DESC LIMIT ?3)
			UNION ALL
			SELECT * FROM (SELECT s.rowid, s.machine, s.id, s.title FROM (
					SELECT machine, session FROM spans INDEXED BY spans_status WHERE status IN ('working', 'attention', 'done', 'error') AND from_ms >= ?1 AND from_ms < ?2
					UNION SELECT machine, session FROM spans INDEXED BY spans_open WHERE to_ms = 0 AND from_ms < ?1) a
				JOIN sessions s ON s.machine = a.machine AND s.id = a.session WHERE s.rowid < ?4
				ORDER BY s.rowid DESC LIMIT ?3)
			LIMIT ?3)
		SELECT c.machine, c.id, c.title, p.status, p.from_ms, p.to_ms FROM chosen c
		JOIN spans p ON p.machine = c.machine AND p.session = c.id AND `+inDay+`
		ORDER BY c.k, p.from_ms`, start, end, MaxDaySessions, startKey(start), startKey(end))
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

// Days are n days of bars ending with last's local day, oldest first:
// each day's totals as the writer keeps them, a day the writer has not
// rebuilt yet (days_stale) counted from the tables, and the bands still
// open counted up to now — all of one snapshot, so the bars agree with
// the list read beside them.
func (s *Store) Days(ctx context.Context, last time.Time, n int) ([]DayBar, error) {
	first := midnight(last).AddDate(0, 0, -(n - 1))
	out := make([]DayBar, n)
	index := map[int64]int{}
	for i := range n {
		d := first.AddDate(0, 0, i)
		out[i].Day = d
		index[d.UnixMilli()] = i
	}
	from, to := first.UnixMilli(), first.AddDate(0, 0, n).UnixMilli()
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT day, sessions, turns, working_ms, waiting_ms, tokens, cost_usd FROM days WHERE day >= ? AND day < ?`, from, to)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var day int64
		var b DayBar
		var cost sql.NullFloat64
		if err := rows.Scan(&day, &b.Sessions, &b.Turns, &b.WorkingMs, &b.WaitingMs, &b.Tokens, &cost); err != nil {
			rows.Close()
			return nil, err
		}
		if i, ok := index[day]; ok {
			b.Day, b.CostUSD = out[i].Day, floatPtr(cost)
			out[i] = b
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	stale, err := tx.QueryContext(ctx, `SELECT day FROM days_stale WHERE day >= ? AND day < ?`, from, to)
	if err != nil {
		return nil, err
	}
	var days []int64
	for stale.Next() {
		var day int64
		if err := stale.Scan(&day); err != nil {
			stale.Close()
			return nil, err
		}
		days = append(days, day)
	}
	stale.Close()
	if err := stale.Err(); err != nil {
		return nil, err
	}
	for _, day := range days {
		i, ok := index[day]
		if !ok {
			continue
		}
		b, err := dayTotals(ctx, tx, day)
		if err != nil {
			return nil, err
		}
		b.Day = out[i].Day
		out[i] = b
	}
	open, err := tx.QueryContext(ctx, `SELECT status, from_ms FROM spans INDEXED BY spans_open WHERE to_ms = 0 AND status IN ('working', 'attention')`)
	if err != nil {
		return nil, err
	}
	defer open.Close()
	now := s.now().UnixMilli()
	for open.Next() {
		var status string
		var from int64
		if err := open.Scan(&status, &from); err != nil {
			return nil, err
		}
		for day := midnightMs(from); day < now; day = nextMidnight(day) {
			i, ok := index[day]
			if !ok {
				continue
			}
			d := min(now, nextMidnight(day)) - max(from, day)
			if status == state.StatusWorking {
				out[i].WorkingMs += d
			} else {
				out[i].WaitingMs += d
			}
		}
	}
	return out, open.Err()
}

// Headline is a day's waits on the human: their total, count, median and
// the longest, with its session (every session of the day, not only the
// picture's).
func (s *Store) Headline(ctx context.Context, day time.Time) (Headline, error) {
	var h Headline
	start, end := dayBounds(day)
	now := s.now().UnixMilli()
	rows, err := s.db.QueryContext(ctx, `SELECT machine, session, max(from_ms, ?1), CASE WHEN to_ms = 0 THEN min(?3, ?2) ELSE to_ms END FROM (
			SELECT * FROM spans INDEXED BY spans_status WHERE status = 'attention' AND from_ms >= ?1 AND from_ms < ?2
			UNION ALL SELECT * FROM spans INDEXED BY spans_open WHERE to_ms = 0 AND from_ms < ?1 AND status = 'attention')`, start, end, now)
	if err != nil {
		return h, err
	}
	var waits []int64
	for rows.Next() {
		var m, id string
		var from, to int64
		if err := rows.Scan(&m, &id, &from, &to); err != nil {
			rows.Close()
			return h, err
		}
		d := state.WaitMs(from, to) // the board's lane measures a wait the same way
		waits = append(waits, d)
		h.WaitingMs += d
		if d > h.LongestWaitMs {
			h.LongestWaitMs, h.LongestMachine, h.LongestSession = d, m, id
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return h, err
	}
	if h.LongestSession != "" {
		_ = s.db.QueryRowContext(ctx, `SELECT title FROM sessions WHERE machine = ? AND id = ?`, h.LongestMachine, h.LongestSession).Scan(&h.LongestTitle)
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

// Facets are the projects, machines and agents the store has seen, for
// the filters (at most 200 of each, by name).
func (s *Store) Facets(ctx context.Context) (projects, machines, agents []string, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT kind, value FROM facets WHERE value != '' ORDER BY kind, value`)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, v string
		if err := rows.Scan(&kind, &v); err != nil {
			return nil, nil, nil, err
		}
		switch {
		case kind == "project" && len(projects) < 200:
			projects = append(projects, v)
		case kind == "machine" && len(machines) < 200:
			machines = append(machines, v)
		case kind == "agent" && len(agents) < 200:
			agents = append(agents, v)
		}
	}
	return projects, machines, agents, rows.Err()
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

// AgentUse is what one agent's sessions used on one day, as the agents
// told it: nil where none told (Claude Code's statusline tells cost, no
// tokens; Codex tells tokens, no cost) — never a guess, never a price.
type AgentUse struct {
	Agent   string
	Tokens  *int64
	CostUSD *float64
}

// AgentDay is one day's use per agent, in agent order.
type AgentDay struct {
	Day    time.Time // local midnight
	Agents []AgentUse
}

// AgentDays are the tokens and cost per agent of the n days that end with
// last's: each session's growth that day (its last total of the day less
// its last before it), added up by the session's agent.
func (s *Store) AgentDays(ctx context.Context, last time.Time, n int) ([]AgentDay, error) {
	first := midnight(last).AddDate(0, 0, -(n - 1))
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := make([]AgentDay, n)
	growth := func(table, col string, day, end int64, each func(agent string, v float64)) error {
		rows, err := tx.QueryContext(ctx, `SELECT s.agent, sum(max(g.hi - g.lo, 0)) FROM (
				SELECT c.machine, c.session, max(c.`+col+`) AS hi,
					coalesce((SELECT max(b.`+col+`) FROM `+table+` b WHERE b.machine = c.machine AND b.session = c.session AND b.at_ms < ?), 0) AS lo
				FROM `+table+` c WHERE c.at_ms >= ? AND c.at_ms < ? GROUP BY c.machine, c.session) g
			JOIN sessions s ON s.machine = g.machine AND s.id = g.session
			GROUP BY s.agent ORDER BY s.agent`, day, day, end)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var agent string
			var v float64
			if err := rows.Scan(&agent, &v); err != nil {
				return err
			}
			each(agent, v)
		}
		return rows.Err()
	}
	for i := range n {
		d := first.AddDate(0, 0, i)
		day, end := d.UnixMilli(), nextMidnight(d.UnixMilli())
		by := map[string]*AgentUse{}
		use := func(agent string) *AgentUse {
			u := by[agent]
			if u == nil {
				u = &AgentUse{Agent: agent}
				by[agent] = u
			}
			return u
		}
		if err := growth("tokens", "total", day, end, func(a string, v float64) { n := int64(v); use(a).Tokens = &n }); err != nil {
			return nil, err
		}
		if err := growth("costs", "usd", day, end, func(a string, v float64) { use(a).CostUSD = &v }); err != nil {
			return nil, err
		}
		out[i].Day = d
		for _, u := range by {
			out[i].Agents = append(out[i].Agents, *u)
		}
		slices.SortFunc(out[i].Agents, func(x, y AgentUse) int { return strings.Compare(x.Agent, y.Agent) })
	}
	return out, nil
}
