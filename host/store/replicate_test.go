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

// outbox is every item of a store's own after after, read as a hub would:
// batches of n.
func outbox(t *testing.T, s *Store, after int64, n int) []Item {
	t.Helper()
	var all []Item
	for {
		got, err := s.Since(context.Background(), after, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			return all
		}
		for i, it := range got {
			if it.Seq <= after || (i > 0 && it.Seq <= got[i-1].Seq) {
				t.Fatalf("item %d at %d after %d: out of order", i, it.Seq, after)
			}
		}
		all = append(all, got...)
		after = got[len(got)-1].Seq
	}
}

// kinds counts a batch's events, answers and costs.
func kinds(items []Item) (evs, answers, costs int) {
	for _, it := range items {
		switch {
		case it.Event != nil:
			evs++
		case it.Answer != nil:
			answers++
		case it.Cost != nil:
			costs++
		}
	}
	return
}

// rowsOf counts machine's rows of a table.
func rowsOf(t *testing.T, s *Store, table, machine string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM `+table+` WHERE machine = ?`, machine).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sameHistory checks the hub holds machine's sessions as the machine's
// own store does: each session's cost, its turns' costs, its answers, the
// cost rows, and the day's cost.
func sameHistory(t *testing.T, mine, hub *Store, machine string) {
	t.Helper()
	ctx := context.Background()
	flush(t, mine)
	flush(t, hub)
	ms, _, err := mine.Sessions(ctx, Query{Machine: Local})
	if err != nil || len(ms) == 0 {
		t.Fatalf("the machine's sessions: %v %v", ms, err)
	}
	for _, m := range ms {
		hs, _, _ := hub.Sessions(ctx, Query{Machine: machine, Words: nil})
		var h *Session
		for i := range hs {
			if hs[i].ID == m.ID {
				h = &hs[i]
			}
		}
		if h == nil {
			t.Fatalf("session %s is not on the hub", m.ID)
		}
		if !reflect.DeepEqual(m.CostUSD, h.CostUSD) {
			t.Errorf("session %s costs %v on the hub, %v on the machine", m.ID, deref(h.CostUSD), deref(m.CostUSD))
		}
		mt, _ := mine.Turns(ctx, Local, m.ID)
		ht, _ := hub.Turns(ctx, machine, m.ID)
		if !reflect.DeepEqual(mt, ht) {
			t.Errorf("session %s's turns on the hub %+v, on the machine %+v", m.ID, ht, mt)
		}
		ma, _ := mine.Answers(ctx, Local, m.ID)
		ha, _ := hub.Answers(ctx, machine, m.ID)
		if !reflect.DeepEqual(ma, ha) {
			t.Errorf("session %s's answers on the hub %+v, on the machine %+v", m.ID, ha, ma)
		}
	}
	for _, table := range []string{"answers", "costs"} {
		if h, m := rowsOf(t, hub, table, machine), rowsOf(t, mine, table, Local); h != m {
			t.Errorf("%s: the hub holds %d of the machine's, the machine %d", table, h, m)
		}
	}
	md, _ := mine.Days(ctx, day0, 1)
	hd, _ := hub.Days(ctx, day0, 1)
	if len(md) != 1 || len(hd) != 1 || md[0].CostUSD == nil || !reflect.DeepEqual(md[0].CostUSD, hd[0].CostUSD) {
		t.Errorf("the day's cost on the hub %v, on the machine %v", hd, md)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// Answers and costs go through the feed as events do: a machine's own
// take its sequence, a hub takes them in batches, once each however often
// they come, and ends with the machine's answers, costs, sessions' and
// turns' costs and the day's cost.
func TestAnswersAndCostsAreFed(t *testing.T) {
	now := day0.Add(time.Hour)
	mine := open(t, &now, Options{})
	hub := open(t, &now, Options{})
	ctx := context.Background()
	aDay(mine)
	mine.RecordCost("b", 1.5, day0.Add(44*time.Minute))
	mine.RecordAnswer(host.RecordedAnswer{Session: "b", Call: "t9", Agent: "codex", Tool: "Shell", By: host.ByTerminal, Outcome: host.OutcomeDenied,
		Asked: day0.Add(41 * time.Minute), Answered: day0.Add(42 * time.Minute)})
	flush(t, mine)

	all := outbox(t, mine, 0, 4)
	evs, answers, costs := kinds(all)
	if evs != 18 || answers != 2 || costs != 3 {
		t.Fatalf("the outbox: %d events, %d answers, %d costs; want 18, 2, 3 (a cost that changes nothing is not kept)", evs, answers, costs)
	}
	if newest, _ := mine.Last(ctx, Local); newest != all[len(all)-1].Seq {
		t.Errorf("the machine's newest %d, its last item %d", newest, all[len(all)-1].Seq)
	}
	// The hub takes it in batches of four, each to its last item.
	for i := 0; i < len(all); i += 4 {
		batch := all[i:min(i+4, len(all))]
		if err := hub.Take(ctx, "box", batch, batch[len(batch)-1].Seq); err != nil {
			t.Fatal(err)
		}
	}
	sameHistory(t, mine, hub, "box")
	// Every batch again, and the whole outbox in one: nothing counts twice.
	for range 2 {
		if err := hub.Take(ctx, "box", all, all[len(all)-1].Seq); err != nil {
			t.Fatal(err)
		}
	}
	sameHistory(t, mine, hub, "box")
	if got, want := rowsOf(t, hub, "answers", "box"), 2; got != want {
		t.Errorf("%d answers of box after every batch twice, want %d", got, want)
	}
	if last, _ := hub.Last(ctx, "box"); last != all[len(all)-1].Seq {
		t.Errorf("the hub's last of box %d, the machine's newest %d", last, all[len(all)-1].Seq)
	}

	// The machine's next answer and cost follow in its sequence.
	mine.RecordAnswer(host.RecordedAnswer{Session: "a", Call: "t2", Tool: "Edit", By: host.ByPush, Device: "ntfy alerts", Outcome: host.OutcomeAllowed,
		Asked: day0.Add(50 * time.Minute), Answered: day0.Add(51 * time.Minute)})
	mine.RecordCost("a", 2.25, day0.Add(52*time.Minute))
	flush(t, mine)
	more := outbox(t, mine, all[len(all)-1].Seq, 500)
	if _, a, c := kinds(more); len(more) != 2 || a != 1 || c != 1 {
		t.Fatalf("after the hub's mark: %+v, want the answer and the cost", more)
	}
	if err := hub.Take(ctx, "box", more, more[1].Seq); err != nil {
		t.Fatal(err)
	}
	sameHistory(t, mine, hub, "box")
}

// What the hub takes of another machine's answers and costs holds to its
// own sessions: one for a session it does not hold (forgotten or pruned
// here) is dropped, and a batch item that is none of an event, an answer
// and a cost, or two, is refused.
func TestAFedAnswerNeedsItsSession(t *testing.T) {
	now := day0.Add(time.Hour)
	hub := open(t, &now, Options{})
	ctx := context.Background()
	opened := &Event{Event: state.Event{Type: state.TypeSessionOpened, Session: "x", At: at(0)}}
	ans := func(session string) *host.RecordedAnswer {
		return &host.RecordedAnswer{Session: session, Call: "c", By: host.ByBoard, Outcome: host.OutcomeAllowed, Asked: day0, Answered: day0.Add(time.Second)}
	}
	if err := hub.Take(ctx, "box", []Item{
		{Seq: 1, Event: opened},
		{Seq: 2, Answer: ans("x")},
		{Seq: 3, Answer: ans("gone")},
		{Seq: 4, Cost: &Cost{Session: "gone", USD: 1, At: at(time.Minute)}},
		{Seq: 5, Cost: &Cost{Session: "x", USD: 0.5, At: at(time.Minute)}},
	}, 5); err != nil {
		t.Fatal(err)
	}
	flush(t, hub)
	if a, c := rowsOf(t, hub, "answers", "box"), rowsOf(t, hub, "costs", "box"); a != 1 || c != 1 {
		t.Errorf("%d answers, %d costs of box: want only x's", a, c)
	}
	for _, bad := range []Item{
		{Seq: 6},
		{Seq: 6, Answer: ans("x"), Cost: &Cost{Session: "x", USD: 1, At: at(0)}},
		{Seq: 6, Event: opened, Answer: ans("x")},
		{Seq: 0, Answer: ans("x")},
		{Seq: 9, Answer: ans("x")},
	} {
		if err := hub.Take(ctx, "box", []Item{bad}, 6); !errors.Is(err, ErrFeed) {
			t.Errorf("Take(%+v): %v, want ErrFeed", bad, err)
		}
	}
}

// A file of the schema before (3: answers and costs without a sequence)
// is migrated: its own answers and costs get the numbers after its mark,
// in the order they happened, so a hub level with its events takes them
// next; the mark follows, a new answer goes on after them, and another
// machine's mark is kept.
func TestMigrationFromSchema3(t *testing.T) {
	path, db, exec := atSchema(t, 3)
	m := time.Minute
	exec(`INSERT INTO sessions (rowid, machine, id, started_ms, cost_usd) VALUES (?, ?, 'a', ?, 0.75)`, startKey(at(0)), Local, at(0))
	exec(`INSERT INTO turns (machine, session, seq, started_ms, cost_usd) VALUES (?, 'a', 1, ?, 0.75)`, Local, at(0))
	exec(`INSERT INTO events (machine, oseq, session, at_ms, type) VALUES (?, 100, 'a', ?, 'session.opened'), (?, 101, 'a', ?, 'turn.started')`, Local, at(0), Local, at(0))
	exec(`INSERT INTO feeds (machine, oseq) VALUES (?, 105), ('box', 41)`, Local) // a forgotten session's numbers beyond the events
	exec(`INSERT INTO answers (machine, session, call, asked_ms, answered_ms, agent, tool, by, outcome) VALUES
		(?, 'a', 't2', ?, ?, 'claude-code', 'Edit', 'push', 'denied'), (?, 'a', 't1', ?, ?, 'claude-code', 'Bash', 'board', 'allowed')`,
		Local, at(20*m), at(21*m), Local, at(3*m), at(4*m))
	exec(`INSERT INTO costs (machine, session, at_ms, usd) VALUES (?, 'a', ?, 0.75), (?, 'a', ?, 0.25)`, Local, at(30*m), Local, at(10*m))
	exec(`INSERT INTO days_stale (day) VALUES (?)`, midnightMs(at(0))) // its totals not rebuilt yet
	db.Close()

	now := day0.Add(time.Hour)
	s := openAt(t, path, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != Version || Version < 7 {
		t.Errorf("schema %d after the migration (this build's: %d)", v, Version)
	}
	got := outbox(t, s, 101, 500)
	var order []any
	for _, it := range got {
		switch {
		case it.Answer != nil:
			order = append(order, it.Seq, it.Answer.Call)
		case it.Cost != nil:
			order = append(order, it.Seq, it.Cost.USD)
		default:
			order = append(order, it.Seq, "event")
		}
	}
	if want := []any{int64(106), "t1", int64(107), 0.25, int64(108), "t2", int64(109), 0.75}; !reflect.DeepEqual(order, want) {
		t.Errorf("after the migration the outbox after the events holds %v, want %v", order, want)
	}
	if last, _ := s.Last(ctx, Local); last != 109 {
		t.Errorf("the mark after the migration: %d, want 109", last)
	}
	if last, _ := s.Last(ctx, "box"); last != 41 {
		t.Errorf("box's mark after the migration: %d", last)
	}
	if a := got[0].Answer; a == nil || a.Agent != "claude-code" || a.Tool != "Bash" || a.By != "board" || a.Outcome != "allowed" ||
		a.Asked.UnixMilli() != at(3*m) || a.Answered.UnixMilli() != at(4*m) {
		t.Errorf("an answer from before: %+v", a)
	}
	s.RecordAnswer(host.RecordedAnswer{Session: "a", Call: "t3", By: host.ByBoard, Outcome: host.OutcomeAllowed, Asked: day0.Add(40 * m), Answered: day0.Add(41 * m)})
	flush(t, s)
	if next := outbox(t, s, 109, 500); len(next) != 1 || next[0].Seq != 110 || next[0].Answer == nil || next[0].Answer.Call != "t3" {
		t.Errorf("a new answer after the migration: %+v, want t3 at 110", next)
	}

	// A hub level with the machine's events takes the rest: the same
	// answers and costs, the same session's and day's cost.
	hub := open(t, &now, Options{})
	all := outbox(t, s, 0, 500)
	if err := hub.Take(context.Background(), "box", all, all[len(all)-1].Seq); err != nil {
		t.Fatal(err)
	}
	sameHistory(t, s, hub, "box")
}

// A file of schema 3 that never gave a number (its answers from before
// any event of its own) numbers them from its clock, as a new file does.
func TestMigrationFromSchema3WithoutAMark(t *testing.T) {
	path, db, exec := atSchema(t, 3)
	exec(`INSERT INTO answers (machine, session, call, asked_ms, answered_ms, by, outcome) VALUES (?, 'a', 't1', 1, 2, 'board', 'allowed')`, Local)
	db.Close()
	before := time.Now().UnixMicro()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if last, _ := s.Last(context.Background(), Local); last < before-time.Second.Microseconds() || last > time.Now().UnixMicro()+time.Second.Microseconds() {
		t.Errorf("the first number %d, want about the clock's %d µs", last, before)
	}
}

// A file of schema 4 (answers numbered, no device) keeps its answers as
// they were, with no device, and their numbers; an answer after it keeps
// its device, and the outbox carries it.
func TestMigrationFromSchema4(t *testing.T) {
	path, db, exec := atSchema(t, 4)
	m := time.Minute
	exec(`INSERT INTO sessions (rowid, machine, id, started_ms) VALUES (?, ?, 'a', ?)`, startKey(at(0)), Local, at(0))
	exec(`INSERT INTO events (machine, oseq, session, at_ms, type) VALUES (?, 100, 'a', ?, 'session.opened')`, Local, at(0))
	exec(`INSERT INTO answers (machine, session, call, asked_ms, answered_ms, agent, tool, by, outcome, oseq) VALUES
		(?, 'a', 't1', ?, ?, 'claude-code', 'Bash', 'board', 'allowed', 101)`, Local, at(3*m), at(4*m))
	exec(`INSERT INTO feeds (machine, oseq) VALUES (?, 101)`, Local)
	db.Close()

	now := day0.Add(time.Hour)
	s := openAt(t, path, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != Version {
		t.Fatalf("schema %d after the migration, want %d", v, Version)
	}
	before := outbox(t, s, 100, 500)
	if len(before) != 1 || before[0].Seq != 101 || before[0].Answer == nil || before[0].Answer.By != "board" || before[0].Answer.Device != "" {
		t.Fatalf("the answer from before: %+v, want 101 by board with no device", before)
	}
	s.RecordAnswer(host.RecordedAnswer{Session: "a", Call: "t2", By: host.ByBoard, Device: "phone", Outcome: host.OutcomeAllowed,
		Asked: day0.Add(10 * m), Answered: day0.Add(11 * m)})
	flush(t, s)
	ans, err := s.Answers(ctx, Local, "a")
	if err != nil || len(ans) != 2 || ans[0].Device != "" || ans[1].Device != "phone" {
		t.Fatalf("answers after the migration: %+v %v", ans, err)
	}
	if next := outbox(t, s, 101, 500); len(next) != 1 || next[0].Seq != 102 || next[0].Answer == nil || next[0].Answer.Device != "phone" {
		t.Errorf("the new answer in the outbox: %+v, want phone at 102", next)
	}
}
