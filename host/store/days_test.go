package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// unrun opens a store whose writer is not running: the test applies
// batches itself (s.write), so no rebuild of the days' totals happens
// unless it asks.
func unrun(t *testing.T, path string, now *time.Time) *Store {
	t.Helper()
	s, err := Open(path, Options{Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// batch is what RecordEvents would queue, as one batch.
func batch(evs ...host.RecordedEvent) []fact {
	var out []fact
	for _, e := range evs {
		out = append(out, fact{ev: &Event{Machine: Local, Agent: e.Agent, Event: e.Event}})
	}
	return out
}

func ev(typ, session string, d time.Duration) host.RecordedEvent {
	return host.RecordedEvent{Event: state.Event{Type: typ, Session: session, At: at(d), Project: "argon"}, Agent: "claude-code"}
}

// The bars agree with the list as soon as a batch is written, before the
// writer rebuilds the day's totals (it waits for the writes to pause):
// the README's History page showed today's bars at 0 beside 29 sessions.
// The days it touched stay marked in the file, so a host that stops
// before the rebuild leaves them counted, and rebuilt at its next start.
func TestTheBarsAgreeWithTheList(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	now := day0.Add(time.Hour)
	s := unrun(t, path, &now)
	s.write(batch(
		ev(state.TypeSessionOpened, "a", 0), ev(state.TypeTurnStarted, "a", 0), ev(state.TypeTurnEnded, "a", 10*time.Minute),
		ev(state.TypeSessionOpened, "b", 20*time.Minute), ev(state.TypeTurnStarted, "b", 20*time.Minute),
	))
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		_, total, err := s.Sessions(ctx, Query{})
		if err != nil {
			t.Fatal(err)
		}
		days, err := s.Days(ctx, now, 2)
		if err != nil {
			t.Fatal(err)
		}
		today := days[1]
		// a worked 10 min; b works since 20 min, an hour from day0 is now
		if today.Sessions != total || today.Sessions != 2 || today.Turns != 2 || today.WorkingMs != (10+40)*60*1000 {
			t.Errorf("%s: today's bar %+v beside %d sessions in the list", when, today, total)
		}
	}
	check("before the rebuild")
	s.Close()

	s = unrun(t, path, &now) // stopped before its rebuild
	defer s.Close()
	check("after a restart")
	var stale int
	s.db.QueryRow(`SELECT count(*) FROM days_stale`).Scan(&stale)
	if stale != 1 {
		t.Errorf("%d days stale after the restart, want today", stale)
	}
	s.writeDays()
	s.db.QueryRow(`SELECT count(*) FROM days_stale`).Scan(&stale)
	if stale != 0 {
		t.Errorf("%d days stale after the rebuild", stale)
	}
	check("after the rebuild")
}

// The day's picture draws the latest started of the sessions active that
// day: those started that day first, then, when they are fewer than the
// picture holds, those started before with a band in it (one still
// working since yesterday, one that came back this morning).
func TestTheDaysPictureChoosesTheLatest(t *testing.T) {
	now := day0.Add(3 * time.Hour)
	s := open(t, &now, Options{})
	h := time.Hour
	s.RecordEvents([]host.RecordedEvent{
		ev(state.TypeSessionOpened, "old-idle", -30*h), ev(state.TypeTurnStarted, "old-idle", -30*h), ev(state.TypeTurnEnded, "old-idle", -29*h),
		ev(state.TypeSessionOpened, "overnight", -20*h), ev(state.TypeTurnStarted, "overnight", -20*h),
		ev(state.TypeSessionOpened, "back", -26*h), ev(state.TypeTurnStarted, "back", -26*h), ev(state.TypeTurnEnded, "back", -25*h),
		ev(state.TypeTurnStarted, "back", time.Hour),
		ev(state.TypeSessionOpened, "today", 2*h), ev(state.TypeTurnStarted, "today", 2*h),
		ev(state.TypeSessionOpened, "no-band", 2*h), // opened, no turn yet: no band to draw
	})
	flush(t, s)
	ctx := context.Background()
	sessionsOf := func(spans []Span) string {
		var ids []string
		for _, p := range spans {
			if len(ids) == 0 || ids[len(ids)-1] != p.Session {
				ids = append(ids, p.Session)
			}
		}
		return strings.Join(ids, " ")
	}
	spans, err := s.Day(ctx, day0)
	if err != nil {
		t.Fatal(err)
	}
	// old-idle's done band is still open (no session.finished): it is
	// active today as the board would show it.
	if got := sessionsOf(spans); got != "old-idle back overnight today" {
		t.Errorf("the day's sessions: %q", got)
	}
	// A picture's worth started today: only they.
	var evs []host.RecordedEvent
	for i := range MaxDaySessions {
		id := fmt.Sprintf("t%02d", i)
		evs = append(evs, ev(state.TypeSessionOpened, id, h+time.Duration(i)*time.Second), ev(state.TypeTurnStarted, id, h+time.Duration(i)*time.Second))
	}
	s.RecordEvents(evs)
	flush(t, s)
	spans, _ = s.Day(ctx, day0)
	got := strings.Fields(sessionsOf(spans))
	if len(got) != MaxDaySessions || got[len(got)-1] != "today" || got[0] != "t01" {
		t.Errorf("a full day's picture: %d sessions %v … %v", len(got), got[:2], got[len(got)-2:])
	}
}

// A file of the schema before (2: rowids in insertion order, the index
// keeping its own copy of the words) is migrated: the list is newest
// first, the search finds the same sessions, every day's totals are
// rebuilt, the feed's marks are kept.
func TestMigrationFromSchema2(t *testing.T) {
	path, db, exec := atSchema(t, 2)
	exec(`INSERT INTO feeds (machine, oseq) VALUES ('box', 41)`)
	// Inserted out of their start's order, as a hub's replay does; two
	// started in the same millisecond.
	for i, c := range []struct {
		id    string
		start time.Duration
	}{{"late", 2 * time.Hour}, {"early", 0}, {"tie-a", time.Hour}, {"tie-b", time.Hour}} {
		if _, err := db.Exec(`INSERT INTO sessions (machine, id, project, title, started_ms) VALUES (?, ?, 'argon', ?, ?)`, Local, c.id, fmt.Sprintf("title %d of %s", i, c.id), at(c.start)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO spans (machine, session, from_ms, status, to_ms) VALUES (?, ?, ?, 'working', ?)`, Local, c.id, at(c.start), at(c.start+time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// The totals as a crash left them: none.
	exec(`INSERT INTO days (day, sessions) VALUES (?, 0)`, midnightMs(at(0)))
	db.Close()

	now := day0.Add(3 * time.Hour)
	s2 := openAt(t, path, Options{Now: func() time.Time { return now }})
	flush(t, s2)
	var v int
	s2.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != Version {
		t.Errorf("schema %d after the migration (this build's: %d)", v, Version)
	}
	rows, n, err := s2.Sessions(context.Background(), Query{})
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	if err != nil || n != 4 || strings.Join(ids, " ") != "late tie-b tie-a early" {
		t.Errorf("the list after the migration: %v (%d) %v", ids, n, err)
	}
	if rows, _, _ := s2.Sessions(context.Background(), Query{Words: []string{"tit", "ear"}}); len(rows) != 1 || rows[0].ID != "early" {
		t.Errorf("a search after the migration: %+v", rows)
	}
	days, _ := s2.Days(context.Background(), now, 1)
	if days[0].Sessions != 4 || days[0].WorkingMs != 4*60*1000 {
		t.Errorf("today's bar after the migration: %+v", days[0])
	}
	var stale int
	s2.db.QueryRow(`SELECT count(*) FROM days_stale`).Scan(&stale)
	if stale != 0 {
		t.Errorf("%d days left stale after the first run", stale)
	}
	if last, _ := s2.Last(context.Background(), "box"); last != 41 {
		t.Errorf("box's mark after the migration: %d", last)
	}
	// A session added after it goes to the top.
	s2.RecordEvents([]host.RecordedEvent{ev(state.TypeSessionOpened, "new", 150*time.Minute)})
	flush(t, s2)
	if rows, _, _ := s2.Sessions(context.Background(), Query{Limit: 1}); len(rows) != 1 || rows[0].ID != "new" {
		t.Errorf("the newest after the migration: %+v", rows)
	}
}

// The writer keeps what it knows of a session's row, turn and band between
// batches, and drops it when another connection wrote the file: a session
// another notch-web forgot (`history forget` while the host runs) comes
// back whole with its next events, as it did when every event read the
// file.
func TestTheWriterSeesAnotherWriter(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	s.RecordEvents([]host.RecordedEvent{ev(state.TypeSessionOpened, "a", 0), ev(state.TypeTurnStarted, "a", time.Minute)})
	flush(t, s)
	other, err := Open(s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := other.Forget(context.Background(), "a"); n != 1 || err != nil {
		t.Fatalf("forgot %d: %v", n, err)
	}
	other.Close()
	s.RecordEvents([]host.RecordedEvent{
		ev(state.TypeToolStarted, "a", 2*time.Minute), ev(state.TypeTurnEnded, "a", 3*time.Minute),
		ev(state.TypeTurnStarted, "a", 4*time.Minute),
	})
	flush(t, s)
	ctx := context.Background()
	rows, n, _ := s.Sessions(ctx, Query{})
	if n != 1 || rows[0].ID != "a" || rows[0].Turns != 1 || rows[0].WorkingMs != (60-4)*60*1000 {
		t.Errorf("after another's forget: %d %+v", n, rows)
	}
	days, _ := s.Days(ctx, now, 1)
	if days[0].Sessions != 1 || days[0].Turns != 1 {
		t.Errorf("today's bar after another's forget: %+v", days[0])
	}
}

// A page that does not hold every match counts them: words alone in the
// search's index, words with a filter through the sessions.
func TestTheCountBeyondAPage(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	var evs []host.RecordedEvent
	for i, p := range []string{"argon", "argon", "neon"} {
		e := ev(state.TypeSessionOpened, fmt.Sprintf("s%d", i), time.Duration(i)*time.Minute)
		e.Project, e.Title = p, "fix the build"
		evs = append(evs, e)
	}
	s.RecordEvents(evs)
	flush(t, s)
	ctx := context.Background()
	for _, c := range []struct {
		q     Query
		first string
		total int
	}{
		{Query{Words: []string{"build"}, Limit: 1}, "s2", 3},
		{Query{Words: []string{"buil"}, Project: "argon", Limit: 1}, "s1", 2},
		{Query{Words: []string{"build"}, Limit: 1, Offset: 2}, "s0", 3},
		{Query{Project: "argon", Limit: 1}, "s1", 2},
	} {
		rows, total, err := s.Sessions(ctx, c.q)
		if err != nil || len(rows) != 1 || rows[0].ID != c.first || total != c.total {
			t.Errorf("%+v: %+v, %d of them, %v; want %s first of %d", c.q, rows, total, err, c.first, c.total)
		}
	}
}

// A page's turns and answers are read at once, each in its session's
// place, as Turns and Answers read them one session at a time.
func TestDetailsOfAPage(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	aDay(s)
	flush(t, s)
	ctx := context.Background()
	page, _, _ := s.Sessions(ctx, Query{})
	page = append(page, Session{Machine: "box", ID: "a"}) // another machine's "a": none of a's
	turns, answers, err := s.Details(ctx, page)
	if err != nil || len(turns) != 3 || len(answers) != 3 {
		t.Fatalf("details: %d %d %v", len(turns), len(answers), err)
	}
	for i, r := range page {
		wt, _ := s.Turns(ctx, r.Machine, r.ID)
		wa, _ := s.Answers(ctx, r.Machine, r.ID)
		if !reflect.DeepEqual(turns[i], wt) || !reflect.DeepEqual(answers[i], wa) {
			t.Errorf("%s/%s: %+v %+v, want %+v %+v", r.Machine, r.ID, turns[i], answers[i], wt, wa)
		}
	}
	if len(turns[1]) != 2 || len(answers[1]) != 1 || len(turns[0]) != 1 || len(turns[2]) != 0 {
		t.Errorf("a page's details: %+v %+v", turns, answers)
	}
}
