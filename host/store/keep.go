package store

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
)

// What is kept, and for how long: sessions that ended more than Days ago
// go (with their turns, bands, answers, costs and events), and the oldest
// go while the file is larger than MaxBytes. A session still open is never
// pruned by age.

// tables holds every table keyed by (machine, session).
var tables = []struct{ name, col string }{
	{"turns", "session"}, {"spans", "session"}, {"answers", "session"}, {"costs", "session"}, {"tokens", "session"}, {"events", "session"},
	{"sessions", "id"},
}

// deleteSessions removes the sessions and everything of theirs, and
// rebuilds the totals of the days they spanned.
func deleteSessions(ctx context.Context, tx dbtx, keys [][2]string, now int64) error {
	days := map[int64]bool{}
	for _, k := range keys {
		var from, to int64
		if err := tx.QueryRowContext(ctx, `SELECT started_ms, CASE WHEN ended_ms = 0 THEN ? ELSE ended_ms END FROM sessions WHERE machine = ? AND id = ?`, now, k[0], k[1]).Scan(&from, &to); err == nil {
			for d := midnightMs(from); d <= to && len(days) < 4000; d = nextMidnight(d) {
				days[d] = true
			}
		}
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.name+` WHERE machine = ? AND `+t.col+` = ?`, k[0], k[1]); err != nil {
				return err
			}
		}
	}
	for d := range days {
		if err := rebuildDay(ctx, tx, d); err != nil {
			return err
		}
	}
	return nil
}

// keysWhere are the (machine, id) of the sessions cond finds, oldest first.
func keysWhere(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, cond string, args ...any) ([][2]string, error) {
	if !strings.Contains(cond, "ORDER BY") {
		cond += " ORDER BY started_ms"
	}
	rows, err := q.QueryContext(ctx, `SELECT machine, id FROM sessions WHERE `+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// prune applies the retention; its failure is the history's problem.
func (s *Store) prune(ctx context.Context) {
	n, err := s.Prune(ctx)
	if err != nil {
		s.setProblem(err)
		return
	}
	if n > 0 {
		s.log.Info("old history pruned", "log_type", logx.TypeHistory, slog.Group("data", "sessions", n, "days", s.opts.Days))
	}
}

// Prune removes what the retention no longer keeps, and reports how many
// sessions went.
func (s *Store) Prune(ctx context.Context) (int, error) {
	cutoff := s.now().AddDate(0, 0, -s.opts.Days).UnixMilli()
	keys, err := keysWhere(ctx, s.db, `ended_ms != 0 AND ended_ms < ?`, cutoff)
	if err != nil {
		return 0, err
	}
	n := len(keys)
	now := s.now().UnixMilli()
	if err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := deleteSessions(ctx, tx, keys, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM launches WHERE at_ms < ?`, cutoff); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM days WHERE day < ?`, midnightMs(cutoff))
		return err
	}); err != nil {
		return 0, err
	}
	// The size bound: while over, the oldest sessions in proportion to the
	// excess (and a twentieth more), then the freed pages are given back.
	for {
		size, err := s.Size(ctx)
		if err != nil || size <= s.opts.MaxBytes {
			return n, err
		}
		var total int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&total); err != nil || total == 0 {
			return n, err
		}
		excess := int(int64(total)*(size-s.opts.MaxBytes)/size) + total/20
		keys, err := keysWhere(ctx, s.db, `1 ORDER BY started_ms LIMIT ?`, max(excess, 1))
		if err != nil {
			return n, err
		}
		if err := s.tx(ctx, func(tx *sql.Tx) error { return deleteSessions(ctx, tx, keys, now) }); err != nil {
			return n, err
		}
		n += len(keys)
		if err := s.compact(ctx); err != nil {
			return n, err
		}
	}
}

// compact gives the freed pages back to the file system, and rewrites the
// file when deleting left its pages sparse (rare: only past the bound).
func (s *Store) compact(ctx context.Context) error {
	// The search index keeps a deleted row's words until it is merged.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO sessions_words (sessions_words) VALUES ('optimize')`); err != nil {
		return err
	}
	// incremental_vacuum frees a page per step: step it to the end.
	rows, err := s.db.QueryContext(ctx, `PRAGMA incremental_vacuum`)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	if size, err := s.Size(ctx); err != nil || size <= s.opts.MaxBytes {
		return err
	}
	_, err = s.db.ExecContext(ctx, `VACUUM`)
	return err
}

// Size is the bytes the store's pages hold.
func (s *Store) Size(ctx context.Context) (int64, error) {
	var pages, size, free int64
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return 0, err
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		return 0, err
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return 0, err
	}
	return (pages - free) * size, nil
}

// Forget removes a session (every machine's of that id; "machine/id"
// names one machine's) and reports how many went.
func (s *Store) Forget(ctx context.Context, session string) (int, error) {
	cond, args := `id = ?`, []any{session}
	if m, id, ok := strings.Cut(session, "/"); ok {
		cond, args = `(id = ? OR (machine = ? AND id = ?))`, []any{session, m, id}
	}
	return s.forget(ctx, cond, args...)
}

// ForgetBefore removes the sessions that started before t.
func (s *Store) ForgetBefore(ctx context.Context, t time.Time) (int, error) {
	return s.forget(ctx, `started_ms < ?`, t.UnixMilli())
}

func (s *Store) forget(ctx context.Context, cond string, args ...any) (int, error) {
	var n int
	err := s.tx(ctx, func(tx *sql.Tx) error {
		keys, err := keysWhere(ctx, tx, cond, args...)
		if err != nil {
			return err
		}
		n = len(keys)
		return deleteSessions(ctx, tx, keys, s.now().UnixMilli())
	})
	if err == nil {
		// The writer drops what it keeps of the forgotten sessions at its
		// next batch (Store.others: this was another connection's write).
		s.changes.Notify()
	}
	return n, err
}

// Export formats.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

// exported is one session of a jsonl export.
type exported struct {
	Machine string         `json:"machine"`
	ID      string         `json:"id"`
	Agent   string         `json:"agent,omitempty"`
	Project string         `json:"project,omitempty"`
	Cwd     string         `json:"cwd,omitempty"`
	Title   string         `json:"title,omitempty"`
	Parent  string         `json:"parent,omitempty"`
	Started string         `json:"started"`
	Ended   string         `json:"ended,omitempty"`
	Outcome string         `json:"outcome,omitempty"`
	CostUSD *float64       `json:"costUsd,omitempty"`
	Turns   []exportedTurn `json:"turns"`
	Answers []exportedAns  `json:"answers"`
}

type exportedTurn struct {
	Seq           int            `json:"seq"`
	Started       string         `json:"started"`
	Ended         string         `json:"ended,omitempty"`
	Outcome       string         `json:"outcome,omitempty"`
	Tools         map[string]int `json:"tools"`
	Errors        int            `json:"errors"`
	ContextTokens int64          `json:"contextTokens"`
	CostUSD       *float64       `json:"costUsd,omitempty"`
	Why           string         `json:"why,omitempty"`
}

type exportedAns struct {
	Call     string `json:"call,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Asked    string `json:"asked"`
	Answered string `json:"answered"`
	WaitedMs int64  `json:"waitedMs"`
	By       string `json:"by"`
	Device   string `json:"device,omitempty"` // a board or push answer's, where known
	Outcome  string `json:"outcome"`
	// OperationID is the answering request's operation id (a board
	// click's), as on its approval and completion log records.
	OperationID string `json:"operationId,omitempty"`
}

func stamp(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}

// Export writes every session that started at or after since (zero: all),
// oldest first: one JSON object per line (jsonl), or one CSV row per turn
// (a session with none has one row of its own).
func (s *Store) Export(ctx context.Context, w io.Writer, since time.Time, format string) error {
	if format != FormatJSONL && format != FormatCSV {
		return fmt.Errorf("format %q: want jsonl or csv", format)
	}
	var from int64
	if !since.IsZero() {
		from = since.UnixMilli()
	}
	rows, err := s.db.QueryContext(ctx, `SELECT machine, id, agent, project, cwd, title, parent, started_ms, ended_ms, outcome, cost_usd FROM sessions WHERE started_ms >= ? ORDER BY started_ms, machine, id`, from)
	if err != nil {
		return err
	}
	var all []Session
	for rows.Next() {
		var r Session
		var cost sql.NullFloat64
		if err := rows.Scan(&r.Machine, &r.ID, &r.Agent, &r.Project, &r.Cwd, &r.Title, &r.Parent, &r.StartedMs, &r.EndedMs, &r.Outcome, &cost); err != nil {
			rows.Close()
			return err
		}
		r.CostUSD = floatPtr(cost)
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var cw *csv.Writer
	if format == FormatCSV {
		cw = csv.NewWriter(w)
		cw.Write([]string{"machine", "session", "agent", "project", "title", "session_started", "session_ended", "session_outcome",
			"turn", "turn_started", "turn_ended", "turn_outcome", "tools", "errors", "context_tokens", "cost_usd", "turn_why"})
	}
	enc := json.NewEncoder(w)
	for _, r := range all {
		turns, err := s.Turns(ctx, r.Machine, r.ID)
		if err != nil {
			return err
		}
		if cw != nil {
			head := []string{r.Machine, r.ID, r.Agent, r.Project, r.Title, stamp(r.StartedMs), stamp(r.EndedMs), r.Outcome}
			if len(turns) == 0 {
				writeCSV(cw, append(head, "", "", "", "", "", "", "", costText(r.CostUSD), ""))
			}
			for _, t := range turns {
				writeCSV(cw, append(slices.Clone(head), strconv.Itoa(t.Seq), stamp(t.StartedMs), stamp(t.EndedMs), t.Outcome, toolsText(t.Tools),
					strconv.Itoa(t.Errors), strconv.FormatInt(t.ContextTokens, 10), costText(t.CostUSD), t.Why))
			}
			continue
		}
		answers, err := s.Answers(ctx, r.Machine, r.ID)
		if err != nil {
			return err
		}
		x := exported{Machine: r.Machine, ID: r.ID, Agent: r.Agent, Project: r.Project, Cwd: r.Cwd, Title: r.Title, Parent: r.Parent,
			Started: stamp(r.StartedMs), Ended: stamp(r.EndedMs), Outcome: r.Outcome, CostUSD: r.CostUSD, Turns: []exportedTurn{}, Answers: []exportedAns{}}
		for _, t := range turns {
			if t.Tools == nil {
				t.Tools = map[string]int{}
			}
			x.Turns = append(x.Turns, exportedTurn{Seq: t.Seq, Started: stamp(t.StartedMs), Ended: stamp(t.EndedMs), Outcome: t.Outcome,
				Tools: t.Tools, Errors: t.Errors, ContextTokens: t.ContextTokens, CostUSD: t.CostUSD, Why: t.Why})
		}
		for _, a := range answers {
			x.Answers = append(x.Answers, exportedAns{Call: a.Call, Tool: a.Tool, Asked: stamp(a.AskedMs), Answered: stamp(a.AnsweredMs),
				WaitedMs: a.AnsweredMs - a.AskedMs, By: a.By, Device: a.Device, Outcome: a.Outcome, OperationID: a.OperationID})
		}
		if err := enc.Encode(x); err != nil {
			return err
		}
	}
	if cw != nil {
		cw.Flush()
		return cw.Error()
	}
	return nil
}

// writeCSV writes one row of the export, every cell through csvSafe: a
// machine, a session id, an agent, a project (a folder's name), a title,
// an outcome, a tool is text from outside, and each is kept from being a
// formula, not only the ones that look likely.
func writeCSV(w *csv.Writer, cells []string) {
	for i, c := range cells {
		cells[i] = csvSafe(c)
	}
	w.Write(cells)
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet: one
// that begins with =, +, -, @, a tab or a carriage return (OWASP's "CSV
// injection" list) is written after a ', which a spreadsheet reads as
// "this is text". A lone "-" (the hub's own machine) is no formula, and
// stays as it is.
func csvSafe(v string) string {
	if v != "" && v != "-" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

func toolsText(t map[string]int) string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", csvSafe(n), t[n])
	}
	return strings.Join(parts, ";")
}

func costText(c *float64) string {
	if c == nil {
		return ""
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
}
