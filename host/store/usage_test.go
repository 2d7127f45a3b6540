package store

import (
	"context"
	"errors"
	"reflect"
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

// tokenRows are a store's rows of tokens of machine: session, time and
// total, in that order.
func tokenRows(t *testing.T, s *Store, machine string) [][3]any {
	t.Helper()
	rows, err := s.db.Query(`SELECT session, at_ms, total FROM tokens WHERE machine = ? ORDER BY session, at_ms`, machine)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][3]any
	for rows.Next() {
		var session string
		var at, total int64
		if err := rows.Scan(&session, &at, &total); err != nil {
			t.Fatal(err)
		}
		out = append(out, [3]any{session, at, total})
	}
	return out
}

// sameTokens checks the hub holds machine's tokens as the machine's own
// store does: its rows, each session's total, and the day's tokens per
// agent on the History page.
func sameTokens(t *testing.T, mine, hub *Store, machine string) {
	t.Helper()
	flush(t, mine)
	flush(t, hub)
	if m, h := tokenRows(t, mine, Local), tokenRows(t, hub, machine); len(m) == 0 || !reflect.DeepEqual(m, h) {
		t.Errorf("the tokens rows on the hub %v, on the machine %v", h, m)
	}
	totals := func(s *Store, machine string) map[string]int64 {
		rows, err := s.db.Query(`SELECT id, tokens FROM sessions WHERE machine = ? AND tokens IS NOT NULL`, machine)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var id string
			var n int64
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			out[id] = n
		}
		return out
	}
	if m, h := totals(mine, Local), totals(hub, machine); !reflect.DeepEqual(m, h) {
		t.Errorf("the sessions' tokens on the hub %v, on the machine %v", h, m)
	}
	ctx := context.Background()
	md, err := mine.AgentDays(ctx, day0, 1)
	if err != nil {
		t.Fatal(err)
	}
	hd, err := hub.AgentDays(ctx, day0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(md, hd) {
		t.Errorf("the day per agent on the hub %+v, on the machine %+v", hd, md)
	}
}

// Tokens go through the feed as costs do: a row of a session's tokens
// takes its machine's sequence, the hub takes it once however often it
// comes, and the hub's History counts the machine's tokens per agent and
// day as the machine does. A later total in the same millisecond replaces
// the earlier on both, whether the hub took the earlier or not; a resend
// of the earlier after it moves nothing; a session the hub does not hold
// takes none; an item of tokens and a cost together is refused.
func TestTokensAreFed(t *testing.T) {
	now := day0.Add(time.Hour)
	mine := open(t, &now, Options{})
	hub := open(t, &now, Options{})
	ctx := context.Background()
	m := time.Minute
	aDay(mine)
	mine.RecordTokens("b", 1200, day0.Add(41*m))
	mine.RecordTokens("b", 800, day0.Add(42*m))
	mine.RecordTokens("a", 500, day0.Add(43*m))
	mine.RecordTokens("nobody", 7, day0.Add(43*m))
	flush(t, mine)

	all := outbox(t, mine, 0, 4)
	var fed []TokenTotal
	for _, it := range all {
		if it.Tokens != nil {
			fed = append(fed, *it.Tokens)
		}
	}
	want := []TokenTotal{{"b", 1200, at(41 * m)}, {"b", 2000, at(42 * m)}, {"a", 500, at(43 * m)}}
	if !reflect.DeepEqual(fed, want) {
		t.Fatalf("the outbox's tokens %+v, want %+v", fed, want)
	}
	if newest, _ := mine.Last(ctx, Local); newest != all[len(all)-1].Seq {
		t.Errorf("the machine's newest %d, its last item %d", newest, all[len(all)-1].Seq)
	}
	for i := 0; i < len(all); i += 4 {
		batch := all[i:min(i+4, len(all))]
		if err := hub.Take(ctx, "box", batch, batch[len(batch)-1].Seq); err != nil {
			t.Fatal(err)
		}
	}
	sameTokens(t, mine, hub, "box")
	hd, _ := hub.AgentDays(ctx, day0, 1)
	if u := hd[0].Agents; len(u) != 2 || u[0].Agent != "claude-code" || *u[0].Tokens != 500 || u[1].Agent != "codex" || *u[1].Tokens != 2000 {
		t.Errorf("the hub's day per agent: %+v, want claude-code 500 and codex 2,000", u)
	}

	// The same millisecond again: the later total, a new number.
	mine.RecordTokens("a", 5, day0.Add(43*m))
	flush(t, mine)
	more := outbox(t, mine, all[len(all)-1].Seq, 500)
	if len(more) != 1 || more[0].Tokens == nil || more[0].Tokens.Total != 505 {
		t.Fatalf("after the hub's mark: %+v, want a's 505", more)
	}
	if err := hub.Take(ctx, "box", more, more[0].Seq); err != nil {
		t.Fatal(err)
	}
	sameTokens(t, mine, hub, "box")
	// Every batch again, the earlier total of a among them: nothing moves.
	for range 2 {
		if err := hub.Take(ctx, "box", all, more[0].Seq); err != nil {
			t.Fatal(err)
		}
	}
	sameTokens(t, mine, hub, "box")

	// A hub that took neither: the machine's outbox now holds a's later
	// row only, and it ends the same.
	late := open(t, &now, Options{})
	whole := outbox(t, mine, 0, 500)
	if err := late.Take(ctx, "box", whole, whole[len(whole)-1].Seq); err != nil {
		t.Fatal(err)
	}
	sameTokens(t, mine, late, "box")

	if err := hub.Take(ctx, "box", []Item{{Seq: more[0].Seq + 1, Tokens: &TokenTotal{Session: "nobody", Total: 9, At: at(50 * m)}}}, more[0].Seq+1); err != nil {
		t.Fatal(err)
	}
	flush(t, hub)
	if n := rowsOf(t, hub, "tokens", "box"); n != 3 {
		t.Errorf("%d rows of box's tokens after one of a session the hub does not hold, want 3", n)
	}
	bad := Item{Seq: more[0].Seq + 2, Tokens: &TokenTotal{Session: "a", Total: 9, At: at(50 * m)}, Cost: &Cost{Session: "a", USD: 1, At: at(50 * m)}}
	if err := hub.Take(ctx, "box", []Item{bad}, bad.Seq); !errors.Is(err, ErrFeed) {
		t.Errorf("tokens and a cost in one item: %v, want ErrFeed", err)
	}
}

// A file of schema 9 (tokens without a sequence) is migrated: its own
// rows of tokens get the numbers after its mark, in the order they
// happened, so a hub level with it takes them next; the mark follows, and
// the next row of tokens goes on after them.
func TestMigrationFromSchema9(t *testing.T) {
	path, db, exec := atSchema(t, 9)
	m := time.Minute
	exec(`INSERT INTO sessions (rowid, machine, id, agent, started_ms, tokens) VALUES (?, ?, 'a', 'codex', ?, 900)`, startKey(at(0)), Local, at(0))
	exec(`INSERT INTO turns (machine, session, seq, started_ms, tokens) VALUES (?, 'a', 1, ?, 900)`, Local, at(0))
	exec(`INSERT INTO events (machine, oseq, session, at_ms, type) VALUES (?, 100, 'a', ?, 'session.opened'), (?, 101, 'a', ?, 'turn.started')`, Local, at(0), Local, at(0))
	exec(`INSERT INTO costs (machine, session, at_ms, usd, oseq) VALUES (?, 'a', ?, 0.5, 103)`, Local, at(2*m))
	exec(`INSERT INTO feeds (machine, oseq) VALUES (?, 103), ('box', 41)`, Local)
	exec(`INSERT INTO tokens (machine, session, at_ms, total) VALUES (?, 'a', ?, 900), (?, 'a', ?, 400)`, Local, at(9*m), Local, at(3*m))
	db.Close()

	now := day0.Add(time.Hour)
	s := openAt(t, path, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != Version || Version < 10 {
		t.Fatalf("schema %d after the migration (this build's: %d)", v, Version)
	}
	got := outbox(t, s, 103, 500)
	want := []Item{{Seq: 104, Tokens: &TokenTotal{"a", 400, at(3 * m)}}, {Seq: 105, Tokens: &TokenTotal{"a", 900, at(9 * m)}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the migration the outbox after the mark holds %+v, want %+v", got, want)
	}
	if last, _ := s.Last(ctx, Local); last != 105 {
		t.Errorf("the mark after the migration: %d, want 105", last)
	}
	if last, _ := s.Last(ctx, "box"); last != 41 {
		t.Errorf("box's mark after the migration: %d", last)
	}
	s.RecordTokens("a", 100, day0.Add(20*m))
	flush(t, s)
	if next := outbox(t, s, 105, 500); len(next) != 1 || next[0].Seq != 106 || next[0].Tokens == nil || next[0].Tokens.Total != 1000 {
		t.Errorf("new tokens after the migration: %+v, want 1,000 at 106", next)
	}
	hub := open(t, &now, Options{})
	all := outbox(t, s, 0, 500)
	if err := hub.Take(ctx, "box", all, all[len(all)-1].Seq); err != nil {
		t.Fatal(err)
	}
	sameTokens(t, s, hub, "box")
}
