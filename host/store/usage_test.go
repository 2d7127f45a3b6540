package store

import (
	"context"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// A file of schema 8 (no tokens) opens at this schema with its sessions
// and costs as they were, no tokens told for them (NULL, not 0); tokens
// recorded after it add up per session, and a day's use per agent is each
// session's growth that day: tokens where the agent told tokens, cost where
// it told cost, neither invented.
func TestMigrationFromSchema8Tokens(t *testing.T) {
	if Version < 9 {
		t.Fatal("no schema 9")
	}
	path, db, exec := atSchema(t, 8)
	m := time.Minute
	exec(`INSERT INTO sessions (rowid, machine, id, agent, started_ms, cost_usd) VALUES (?, ?, 'old', 'claude-code', ?, 0.5)`, startKey(at(0)), Local, at(0))
	exec(`INSERT INTO costs (machine, session, at_ms, usd, oseq) VALUES (?, 'old', ?, 0.5, 1)`, Local, at(5*m))
	exec(`INSERT INTO feeds (machine, oseq) VALUES (?, 1)`, Local)
	db.Close()

	now := day0.Add(3 * time.Hour)
	s := openAt(t, path, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != Version {
		t.Fatalf("schema %d after the migration, want %d", v, Version)
	}
	var told *int64
	if err := s.db.QueryRow(`SELECT tokens FROM sessions WHERE id = 'old'`).Scan(&told); err != nil || told != nil {
		t.Fatalf("the old session's tokens: %v %v, want NULL", told, err)
	}

	// A Codex session tells tokens (twice), a Claude Code one cost alone.
	s.RecordEvents([]host.RecordedEvent{
		{Event: state.Event{Type: state.TypeSessionOpened, Session: "cx", At: at(60 * m)}, Agent: "codex"},
		{Event: state.Event{Type: state.TypeTurnStarted, Session: "cx", At: at(60 * m)}, Agent: "codex"},
	})
	flush(t, s)
	s.RecordTokens("cx", 1200, day0.Add(61*m))
	s.RecordTokens("cx", 800, day0.Add(62*m))
	s.RecordTokens("cx", 50, day0.Add(30*m)) // stamped before the last: kept at the last's time
	s.RecordTokens("nobody", 999, day0.Add(62*m))
	s.RecordCost("old", 0.75, day0.Add(70*m))
	flush(t, s)

	var total int64
	if err := s.db.QueryRow(`SELECT tokens FROM sessions WHERE id = 'cx'`).Scan(&total); err != nil || total != 2050 {
		t.Fatalf("cx's tokens %d %v, want 2050", total, err)
	}
	var turnTokens int64
	if err := s.db.QueryRow(`SELECT tokens FROM turns WHERE session = 'cx'`).Scan(&turnTokens); err != nil || turnTokens != 2050 {
		t.Fatalf("cx's turn's tokens %d %v, want 2050", turnTokens, err)
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM tokens WHERE session = 'nobody'`).Scan(&n)
	if n != 0 {
		t.Fatalf("a session the history does not hold took %d rows", n)
	}

	days, err := s.AgentDays(ctx, now, 2)
	if err != nil || len(days) != 2 {
		t.Fatal(days, err)
	}
	if len(days[0].Agents) != 0 {
		t.Errorf("the day before: %+v, want nothing", days[0].Agents)
	}
	got := map[string]AgentUse{}
	for _, u := range days[1].Agents {
		got[u.Agent] = u
	}
	if u := got["codex"]; u.Tokens == nil || *u.Tokens != 2050 || u.CostUSD != nil {
		t.Errorf("codex's day: %+v, want 2050 tokens and no cost", u)
	}
	if u := got["claude-code"]; u.Tokens != nil || u.CostUSD == nil || *u.CostUSD != 0.75 {
		t.Errorf("claude-code's day: %+v, want $0.75 and no tokens", u)
	}

	// The next day counts only that day's growth.
	s.RecordTokens("cx", 100, day0.Add(24*time.Hour+m))
	flush(t, s)
	next, err := s.AgentDays(ctx, day0.Add(25*time.Hour), 2)
	if err != nil {
		t.Fatal(err)
	}
	if u := next[1].Agents; len(u) != 1 || u[0].Agent != "codex" || *u[0].Tokens != 100 {
		t.Errorf("the next day: %+v, want codex 100", u)
	}
	if u := next[0].Agents; len(u) != 2 {
		t.Errorf("the first day seen from the next: %+v", u)
	}
}

// Forgetting a session forgets its tokens too.
func TestTokensPrunedWithTheirSession(t *testing.T) {
	found := false
	for _, tb := range tables {
		found = found || tb.name == "tokens"
	}
	if !found {
		t.Fatal("the tokens table is not pruned with its sessions")
	}
}
