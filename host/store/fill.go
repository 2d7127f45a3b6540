package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Fill writes n made-up past sessions straight into the file (two turns,
// four status bands and an answer each, spread over the 60 days before
// now, today's marked stale as on a working day) — a heavy user's
// history, made fast, for the benchmarks of the store and of the History
// page. Not for a real history.
func Fill(s *Store, n int, now time.Time) error {
	ctx := context.Background()
	span := int64(60*24*time.Hour/time.Millisecond) / int64(n)
	return s.tx(ctx, func(tx *sql.Tx) error {
		ins := func(q string, args ...any) error { _, err := tx.ExecContext(ctx, q, args...); return err }
		for i := range n {
			start := now.UnixMilli() - int64(n-i)*span
			id := fmt.Sprintf("sess-%07d", i)
			project := fmt.Sprintf("project-%d", i%40)
			m := Local
			if i%3 == 0 {
				m = "box"
			}
			if err := ins(`INSERT INTO sessions (rowid, machine, id, agent, project, cwd, title, started_ms, ended_ms, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				startKey(start), m, id, []string{"claude-code", "codex", "gemini"}[i%3], project, "/src/"+project, fmt.Sprintf("fix issue %d in the build", i), start, start+600000, "done"); err != nil {
				return err
			}
			for t := range 2 {
				if err := ins(`INSERT INTO turns (machine, session, seq, started_ms, ended_ms, outcome, tools, context_tokens) VALUES (?, ?, ?, ?, ?, 'done', '{"Bash":3,"Read":2}', ?)`,
					m, id, t+1, start+int64(t)*300000, start+int64(t)*300000+200000, 20000+i%5000); err != nil {
					return err
				}
			}
			for j, st := range []string{"working", "attention", "working", "done"} {
				if err := ins(`INSERT INTO spans (machine, session, from_ms, status, to_ms) VALUES (?, ?, ?, ?, ?)`, m, id, start+int64(j)*100000, st, start+int64(j+1)*100000); err != nil {
					return err
				}
			}
			if err := ins(`INSERT INTO answers (machine, session, call, asked_ms, answered_ms, tool, by, outcome) VALUES (?, ?, 'c', ?, ?, 'Bash', 'board', 'allowed')`, m, id, start+100000, start+200000); err != nil {
				return err
			}
		}
		for d := midnightMs(now.UnixMilli() - int64(n)*span); d <= now.UnixMilli(); d = nextMidnight(d) {
			if err := rebuildDay(ctx, tx, d); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO days_stale (day) VALUES (?)`, midnightMs(now.UnixMilli()))
		return err
	})
}
