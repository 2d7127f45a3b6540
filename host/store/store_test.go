package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/golden"
	"github.com/notch-web/notch-web/state"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// day0 is a fixed local morning.
var day0 = time.Date(2026, 12, 3, 9, 0, 0, 0, time.Local)

func at(d time.Duration) int64 { return day0.Add(d).UnixMilli() }

func tokens(n int64) *int64 { return &n }

// open returns a store in a temp dir whose clock is now (a pointer the
// test moves), with its writer running.
func open(t *testing.T, now *time.Time, o Options) *Store {
	t.Helper()
	o.Now = func() time.Time { return *now }
	return openAt(t, filepath.Join(t.TempDir(), File), o)
}

// openAt opens the store at path with its writer running until the test
// ends.
func openAt(t *testing.T, path string, o Options) *Store {
	t.Helper()
	s, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	return s
}

// atSchema is a history file at schema step n, as a notch-web of that
// step left it: the migrations before it applied, user_version n. The
// test fills it through exec and closes db before it opens the file.
func atSchema(t *testing.T, n int) (path string, db *sql.DB, exec func(q string, args ...any)) {
	t.Helper()
	path = filepath.Join(t.TempDir(), File)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	exec = func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range migrations[:n] {
		exec(m)
	}
	exec(fmt.Sprintf(`PRAGMA user_version = %d`, n))
	return path, db, exec
}

// items are evs as a batch's items, each at its own sequence.
func items(evs ...Event) []Item {
	out := make([]Item, len(evs))
	for i := range evs {
		out[i] = Item{Seq: evs[i].Seq, Event: &evs[i]}
	}
	return out
}

func flush(t *testing.T, s *Store) {
	t.Helper()
	// Bounded by the test binary's -timeout, not a time of its own: a
	// loaded machine writes slowly, and that is no failure.
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// aDay is a session with two turns — tools, an error, an approval waited
// on for 90 s, context tokens, costs — and a second that failed.
func aDay(s *Store) {
	ev := func(d time.Duration, e state.Event) host.RecordedEvent {
		e.At = at(d)
		return host.RecordedEvent{Event: e, Agent: "claude-code"}
	}
	m := time.Minute
	s.RecordEvents([]host.RecordedEvent{
		ev(0, state.Event{Type: state.TypeSessionOpened, Session: "a", Project: "argon", Cwd: "/src/argon"}),
		ev(0, state.Event{Type: state.TypeTurnStarted, Session: "a"}),
		ev(0, state.Event{Type: state.TypeSessionTitled, Session: "a", Title: "fix the <b>build</b>"}),
		ev(1*m, state.Event{Type: state.TypeToolStarted, Session: "a", Tool: "Bash"}),
		ev(2*m, state.Event{Type: state.TypeToolEnded, Session: "a", Tool: "Bash", Outcome: state.OutcomeError}),
		ev(3*m, state.Event{Type: state.TypeToolStarted, Session: "a", Tool: "Bash"}),
		ev(3*m, state.Event{Type: state.TypeApprovalRequested, Session: "a", Tool: "Bash"}),
		ev(3*m+90*time.Second, state.Event{Type: state.TypeApprovalResolved, Session: "a", Outcome: state.OutcomeAllowedOnce}),
		ev(5*m, state.Event{Type: state.TypeToolEnded, Session: "a", Tool: "Bash", Outcome: state.OutcomeOK}),
		ev(6*m, state.Event{Type: state.TypeToolStarted, Session: "a", Tool: "Read"}),
		ev(7*m, state.Event{Type: state.TypeContextTokens, Session: "a", Tokens: tokens(12000)}),
		ev(10*m, state.Event{Type: state.TypeTurnEnded, Session: "a", Outcome: state.OutcomeCompleted}),
		ev(20*m, state.Event{Type: state.TypeTurnStarted, Session: "a"}),
		ev(25*m, state.Event{Type: state.TypeContextTokens, Session: "a", Tokens: tokens(30000)}),
		ev(30*m, state.Event{Type: state.TypeTurnEnded, Session: "a", Outcome: state.OutcomeCompleted}),
	})
	s.RecordAnswer(host.RecordedAnswer{Session: "a", Call: "t1", Agent: "claude-code", Tool: "Bash", By: host.ByBoard, Device: "phone", Outcome: host.OutcomeAllowed,
		Asked: day0.Add(3 * m), Answered: day0.Add(3*m + 90*time.Second)})
	s.RecordCost("a", 0.25, day0.Add(10*m))
	s.RecordCost("a", 0.25, day0.Add(11*m)) // the same: no new row
	s.RecordCost("a", 0.75, day0.Add(30*m))
	s.RecordEvents([]host.RecordedEvent{
		{Event: state.Event{Type: state.TypeSessionOpened, Session: "b", Project: "neon", Cwd: "/src/neon", At: at(40 * m)}, Agent: "codex"},
		{Event: state.Event{Type: state.TypeTurnStarted, Session: "b", At: at(40 * m)}, Agent: "codex"},
		{Event: state.Event{Type: state.TypeSessionEnded, Session: "b", Outcome: state.OutcomeError, At: at(45 * m)}, Agent: "codex"},
	})
}

func TestADayIsKept(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	aDay(s)
	flush(t, s)
	ctx := context.Background()

	all, total, err := s.Sessions(ctx, Query{})
	if err != nil || total != 2 || len(all) != 2 {
		t.Fatalf("sessions: %d %v %+v", total, err, all)
	}
	b, a := all[0], all[1] // newest first
	if a.ID != "a" || a.Title != "fix the <b>build</b>" || a.Agent != "claude-code" || a.Project != "argon" || a.Turns != 2 ||
		a.ContextTokens != 30000 || a.CostUSD == nil || *a.CostUSD != 0.75 || a.WaitingMs != 90000 || a.Outcome != "" || a.EndedMs != 0 {
		t.Errorf("session a: %+v", a)
	}
	// working: 0–3 min, 4:30–10 min, 20–30 min = 3 + 5.5 + 10 minutes
	if want := int64((18*time.Minute + 30*time.Second) / time.Millisecond); a.WorkingMs != want {
		t.Errorf("a worked %d ms, want %d", a.WorkingMs, want)
	}
	if b.ID != "b" || b.Outcome != "error" || b.EndedMs != at(45*time.Minute) || b.Turns != 1 {
		t.Errorf("session b: %+v", b)
	}
	turns, _ := s.Turns(ctx, Local, "a")
	if len(turns) != 2 || turns[0].Tools["Bash"] != 2 || turns[0].Tools["Read"] != 1 || turns[0].Errors != 1 ||
		turns[0].ContextTokens != 12000 || *turns[0].CostUSD != 0.25 || turns[0].Outcome != "done" || turns[1].ContextTokens != 30000 {
		t.Errorf("turns: %+v", turns)
	}
	bt, _ := s.Turns(ctx, Local, "b")
	if len(bt) != 1 || bt[0].Outcome != "error" || bt[0].EndedMs != at(45*time.Minute) {
		t.Errorf("a turn open when its process ended: %+v", bt)
	}
	ans, _ := s.Answers(ctx, Local, "a")
	if len(ans) != 1 || ans[0].By != host.ByBoard || ans[0].Device != "phone" || ans[0].AnsweredMs-ans[0].AskedMs != 90000 {
		t.Errorf("answers: %+v", ans)
	}

	for _, c := range []struct {
		q    string
		want []string
	}{
		{"q=build", []string{"a"}},
		{"q=BUILD", []string{"a"}},
		{"q=neon", []string{"b"}},
		{"q=codex", []string{"b"}},
		{"q=src", []string{"b", "a"}},
		{"q=src+argon", []string{"a"}},
		{"q=%25", nil},
		{"q=_", nil},
		{"agent=claude-code", []string{"a"}},
		{"outcome=error", []string{"b"}},
		{"outcome=open", []string{"a"}},
		{"project=neon", []string{"b"}},
		{"machine=-", []string{"b", "a"}},
		{"machine=box", nil},
		{"day=2026-12-03", []string{"b", "a"}},
		{"day=2026-12-02", nil},
	} {
		v, _ := url.ParseQuery(c.q)
		q, err := ParseQuery(v, time.Local)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		rows, n, err := s.Sessions(ctx, q)
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		if err != nil || n != len(c.want) || strings.Join(ids, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: %v (%d) %v, want %v", c.q, ids, n, err, c.want)
		}
	}

	spans, _ := s.Day(ctx, day0)
	var bands []string
	for _, p := range spans {
		bands = append(bands, p.Session+":"+p.Status)
	}
	if got := strings.Join(bands, " "); got != "a:working a:attention a:working a:done a:working a:done b:working b:error" {
		t.Errorf("the day's bands: %s", got)
	}
	// a's last band is open: it runs to now; b ended at 45 min, and its
	// last band (its verdict) ends with it, not at now (issue 48).
	if a := spans[5]; a.ToMs != now.UnixMilli() {
		t.Errorf("an open band runs to now: %+v", a)
	}
	if last := spans[len(spans)-1]; last.ToMs != at(45*time.Minute) {
		t.Errorf("an ended session's last band runs past its end: %+v", last)
	}
	h, _ := s.Headline(ctx, day0)
	if h.WaitingMs != 90000 || h.Waits != 1 || h.MedianWaitMs != 90000 || h.LongestSession != "a" || h.LongestTitle != "fix the <b>build</b>" {
		t.Errorf("headline: %+v", h)
	}
	days, _ := s.Days(ctx, day0, 3)
	if len(days) != 3 || days[0].Sessions != 0 || days[0].CostUSD != nil {
		t.Fatalf("days: %+v", days)
	}
	if d := days[2]; d.Sessions != 2 || d.Turns != 3 || d.WaitingMs != 90000 || d.Tokens != 30000 || d.CostUSD == nil || *d.CostUSD != 0.75 {
		t.Errorf("today's bar: %+v", d)
	}
	entries, _ := s.Entries(ctx, Local, "a", 3)
	if len(entries) != 3 || entries[0].Type != state.TypeTurnEnded || entries[1].Type != state.TypeContextTokens {
		t.Errorf("entries: %+v", entries)
	}
}

// Another machine's events replayed after a lost link are counted once.
func TestAReplayCountsNothingTwice(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	evs := []Event{
		{Machine: "box", Seq: 1, Agent: "gemini", Event: state.Event{Type: state.TypeSessionOpened, Session: "x", Project: "p", At: at(0)}},
		{Machine: "box", Seq: 2, Event: state.Event{Type: state.TypeTurnStarted, Session: "x", At: at(time.Minute)}},
		{Machine: "box", Seq: 3, Event: state.Event{Type: state.TypeToolStarted, Session: "x", Tool: "Shell", At: at(2 * time.Minute)}},
	}
	ctx := context.Background()
	take := func(evs []Event) {
		t.Helper()
		if err := s.Take(ctx, "box", items(evs...), evs[len(evs)-1].Seq); err != nil {
			t.Fatal(err)
		}
	}
	take(evs)
	take(evs) // the whole outbox again
	take([]Event{evs[2], {Machine: "box", Seq: 4, Event: state.Event{Type: state.TypeTurnEnded, Session: "x", Outcome: state.OutcomeCompleted, At: at(3 * time.Minute)}}})
	flush(t, s)
	turns, _ := s.Turns(context.Background(), "box", "x")
	if len(turns) != 1 || turns[0].Tools["Shell"] != 1 || turns[0].Outcome != "done" {
		t.Errorf("after replays: %+v", turns)
	}
	rows, n, _ := s.Sessions(context.Background(), Query{Machine: "box"})
	if n != 1 || rows[0].Agent != "gemini" {
		t.Errorf("sessions of box: %+v", rows)
	}
	if seq, _ := s.Last(context.Background(), "box"); seq != 4 {
		t.Errorf("the hub's last of box: %d", seq)
	}
	// The batch's machine is the one Take names, whatever the events say;
	// this host's own name and a sequence-less event are refused.
	if err := s.Take(ctx, "eve", items(Event{Machine: "box", Seq: 5, Event: state.Event{Type: state.TypeTurnStarted, Session: "x", At: at(4 * time.Minute)}}), 5); err != nil {
		t.Fatal(err)
	}
	if turns, _ := s.Turns(ctx, "box", "x"); len(turns) != 1 {
		t.Errorf("a batch taken as eve reached box: %+v", turns)
	}
	for _, bad := range []struct {
		machine string
		seq     int64
	}{{Local, 6}, {"", 6}, {"box", 0}, {"box", 9}} {
		if err := s.Take(ctx, bad.machine, items(Event{Seq: bad.seq, Event: state.Event{Type: state.TypeTurnStarted, Session: "x", At: at(5 * time.Minute)}}), 6); !errors.Is(err, ErrFeed) {
			t.Errorf("Take(%q, seq %d): %v, want ErrFeed", bad.machine, bad.seq, err)
		}
	}
}

// A machine's marks outlive its events: a sequence is never given twice
// (the newest session forgotten, the host restarted), and the hub's mark
// of a machine stays where the feed left it when its sessions go.
func TestMarksOutliveForgetting(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	ctx := context.Background()
	run := func(fn func(s *Store)) {
		t.Helper()
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { s.Run(rctx); close(done) }()
		fn(s)
		flush(t, s)
		cancel()
		<-done
		s.Close()
	}
	run(func(s *Store) {
		s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: "a", At: at(0)}},
			{Event: state.Event{Type: state.TypeSessionOpened, Session: "b", At: at(time.Minute)}}})
		flush(t, s)
		if err := s.Take(ctx, "box", items(Event{Seq: 7, Event: state.Event{Type: state.TypeSessionOpened, Session: "x", At: at(0)}}), 9); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Forget(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Forget(ctx, "box/x"); err != nil {
			t.Fatal(err)
		}
	})
	run(func(s *Store) {
		if n, _ := s.Last(ctx, "box"); n != 9 {
			t.Errorf("the mark of box after its session went: %d, want 9 (the batch's end)", n)
		}
		s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: "c", At: at(2 * time.Minute)}}})
		flush(t, s)
		evs, _ := s.Since(ctx, 0, 10)
		if len(evs) != 2 || evs[0].Event == nil || evs[0].Event.Session != "a" || evs[1].Event == nil || evs[1].Event.Session != "c" || evs[1].Seq != evs[0].Seq+2 {
			t.Errorf("own events after forgetting the newest and a restart: %+v; want a (n) and c (n+2): n+1 is not given again", evs)
		}
	})
	// A new file (the old one moved aside) goes on beyond the old one's.
	var first []Item
	run(func(s *Store) { first, _ = s.Since(ctx, 0, 1) })
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(f)
	}
	run(func(s *Store) {
		s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: "d", At: at(3 * time.Minute)}}})
		flush(t, s)
		evs, _ := s.Since(ctx, 0, 10)
		if len(first) != 1 || len(evs) != 1 || evs[0].Seq <= first[0].Seq+2 {
			t.Errorf("a new file's first sequence %+v, the old file's %+v: want beyond it", evs, first)
		}
	})
}

func TestMigrationsAndANewerFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %o", fi.Mode().Perm())
	}
	again, err := Open(path, Options{}) // a second open migrates nothing
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	db, _ := sql.Open("sqlite", path)
	db.Exec(`PRAGMA user_version = 99`)
	db.Close()
	if _, err := Open(path, Options{}); !errors.Is(err, ErrNewer) || !strings.Contains(err.Error(), "schema 99") {
		t.Errorf("a newer file: %v", err)
	}
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, bytes.Repeat([]byte("not a database "), 400), 0o600)
	if _, err := Open(junk, Options{}); err == nil {
		t.Error("a file that is not a database opened")
	}
}

func TestRetentionAndForget(t *testing.T) {
	now := day0.Add(100 * 24 * time.Hour)
	s := open(t, &now, Options{Days: 90})
	aDay(s) // a ends never; b ended 100 days ago
	flush(t, s)
	ctx := context.Background()
	if n, err := s.Prune(ctx); err != nil || n != 1 {
		t.Fatalf("pruned %d %v, want b", n, err)
	}
	if _, n, _ := s.Sessions(ctx, Query{}); n != 1 {
		t.Errorf("%d sessions left, want the open one", n)
	}
	if n, _ := s.Forget(ctx, "a"); n != 1 {
		t.Errorf("forgot %d", n)
	}
	if turns, _ := s.Turns(ctx, Local, "a"); len(turns) != 0 {
		t.Errorf("a forgotten session keeps turns: %+v", turns)
	}
	aDay(s)
	flush(t, s)
	if n, _ := s.ForgetBefore(ctx, day0.Add(30*time.Minute)); n != 1 {
		t.Errorf("forget --before: %d, want a", n)
	}
}

func TestTheSizeBound(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{MaxBytes: 200 << 10})
	for i := range 400 {
		id := strings.Repeat("x", 200) + string(rune('a'+i%26)) + strings.Repeat("y", i)
		s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: id, Title: strings.Repeat("t", 500), At: at(time.Duration(i) * time.Second)}}})
		// A batch at a time: the writer gives one batch 10 s, and 400
		// sessions in one (with their search index) took longer under
		// -race beside two CPU hogs, and were lost.
		if i%40 == 39 {
			flush(t, s)
		}
	}
	flush(t, s)
	ctx := context.Background()
	if size, _ := s.Size(ctx); size <= 200<<10 {
		t.Fatalf("the test's data is too small: %d (%s)", size, s.Problem())
	}
	if _, err := s.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if size, _ := s.Size(ctx); size > 200<<10 {
		t.Errorf("after the size bound: %d bytes", size)
	}
	rows, _, _ := s.Sessions(ctx, Query{Limit: 1})
	if len(rows) != 1 || !strings.HasSuffix(rows[0].ID, strings.Repeat("y", 399)) {
		t.Error("the newest session went")
	}
}

// A file locked by another writer makes the history unavailable (one
// record, the page says so) while recording never blocks; it comes back
// when the lock goes.
func TestALockedFileDegrades(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	// The lock is taken once the writer's own transactions let it: the
	// writer prunes and rebuilds days at start and a moment after each
	// batch, and a BEGIN that gave up at once failed the test whenever one
	// of those held the file (a busy timeout waits for the release, not
	// for a time).
	other, _ := sql.Open("sqlite", "file:"+s.Path()+"?_pragma=busy_timeout(60000)")
	defer other.Close()
	conn, _ := other.Conn(context.Background())
	if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	aDay(s)
	flush(t, s)
	if p := s.Problem(); !strings.HasPrefix(p, "history unavailable") {
		t.Errorf("problem %q", p)
	}
	// With the writer stuck, recording drops (and counts) rather than
	// waits: the board's lock is never held on the history. Recorded until
	// the queue is full and one is dropped — however fast the stuck writer
	// fails its batches (2 * queueLen was not always enough under -race
	// beside two CPU hogs); a RecordCost that waited would hang the test
	// past its -timeout instead.
	for s.dropped.Load() == 0 {
		s.RecordCost("a", 1, now)
	}
	conn.ExecContext(context.Background(), `ROLLBACK`)
	conn.Close()
	aDay(s)
	flush(t, s)
	if p := s.Problem(); p != "" {
		t.Errorf("after the lock went: %q", p)
	}
}

// TestWhySearched: why a turn stopped is kept on its turn and its session,
// and the search finds the session by its words; a why of a session the
// store does not hold opens nothing.
func TestWhySearched(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	aDay(s)
	s.RecordWhy(host.RecordedWhy{Session: "b", Why: hookjson.Why{Kind: hookjson.WhyContext, Words: "Prompt is too long"}, At: time.UnixMilli(at(45 * time.Minute))})
	s.RecordWhy(host.RecordedWhy{Session: "nobody", Why: hookjson.Why{Kind: hookjson.WhyAuth}, At: time.UnixMilli(at(45 * time.Minute))})
	flush(t, s)
	ctx := context.Background()
	for _, words := range [][]string{{"context"}, {"too", "long"}} {
		got, n, err := s.Sessions(ctx, Query{Words: words, Limit: 10})
		if err != nil || n != 1 || got[0].ID != "b" {
			t.Errorf("search %q: %v %d %+v", words, err, n, got)
		}
	}
	turns, err := s.Turns(ctx, Local, "b")
	if err != nil || len(turns) != 1 || turns[0].Why != "context window exceeded: Prompt is too long" {
		t.Errorf("turns: %v %+v", err, turns)
	}
	if _, n, _ := s.Sessions(ctx, Query{Words: []string{"authentication"}, Limit: 10}); n != 0 {
		t.Errorf("a why of no session was kept: %d", n)
	}
}

func TestExport(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	aDay(s)
	s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: "c", Title: "=HYPERLINK(\"x\")", At: at(50 * time.Minute)}}})
	// Why b's turn stopped: a column of the CSV, a member of the JSONL.
	s.RecordWhy(host.RecordedWhy{Session: "b", Why: hookjson.Why{Kind: hookjson.WhyLimit, Words: "429 · resets 2pm"}, At: time.UnixMilli(at(45 * time.Minute))})
	flush(t, s)
	for _, f := range []string{FormatJSONL, FormatCSV} {
		var b bytes.Buffer
		if err := s.Export(context.Background(), &b, time.Time{}, f); err != nil {
			t.Fatal(err)
		}
		// Times are UTC in the export: stable whatever the machine's zone.
		path := filepath.Join("testdata", "export."+f)
		got := strings.ReplaceAll(b.String(), day0.UTC().Format("2006-01-02T15"), "DAY0")
		golden.Check(t, path, path+".actual", []byte(got), *update)
	}
	var b bytes.Buffer
	if err := s.Export(context.Background(), &b, day0.Add(35*time.Minute), FormatJSONL); err != nil || strings.Count(b.String(), "\n") != 2 {
		t.Errorf("since: %v %q", err, b.String())
	}
	if err := s.Export(context.Background(), &b, time.Time{}, "xml"); err == nil {
		t.Error("an unknown format")
	}
}

func TestParseQuery(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"q=a+b", ""},
		{"day=2026-12-03&outcome=open&offset=50", ""},
		{"q=a&q=b", "2 times"},
		{"day=yesterday", "YYYY-MM-DD"},
		{"day=0001-01-01", "YYYY-MM-DD"},
		{"outcome=maybe", "outcome"},
		{"offset=-1", "offset"},
		{"offset=99999999999999999999", "offset"},
		{"q=" + strings.Repeat("a", 201), "at most"},
		{"q=%1b%5b31m", "text"},
		{"q=" + strings.Repeat("w+", 9), "words"},
	} {
		v, _ := url.ParseQuery(c.in)
		_, err := ParseQuery(v, time.Local)
		if (err == nil) != (c.err == "") || (err != nil && (!strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrQuery))) {
			t.Errorf("%s: %v, want %q", c.in, err, c.err)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	f.Add("q=build+argon&day=2026-12-03")                  // words and a day
	f.Add("outcome=open&offset=100&machine=-&agent=codex") // filters
	f.Add("q=%25_%5C&project=a%00b")                       // LIKE's own characters, a NUL
	f.Add("day=2026-02-30")                                // a day that is not
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseQuery(v, time.UTC)
		if err != nil {
			return
		}
		if len(q.Words) > maxWords || q.Offset < 0 || q.Offset > maxOffset {
			t.Fatalf("out of bounds: %+v", q)
		}
		back, err := ParseQuery(q.Values(), time.UTC)
		if err != nil || len(back.Words) != len(q.Words) || back.Offset != q.Offset || back.Outcome != q.Outcome {
			t.Fatalf("round trip: %+v → %+v (%v)", q, back, err)
		}
	})
}

// aSession records a session of n turns of five tool calls each.
func aSession(s *Store, id string, start time.Time, n int) {
	var evs []host.RecordedEvent
	t := start
	add := func(e state.Event) {
		t = t.Add(time.Second)
		e.Session, e.At = id, t.UnixMilli()
		evs = append(evs, host.RecordedEvent{Event: e, Agent: "claude-code"})
	}
	add(state.Event{Type: state.TypeSessionOpened, Project: "argon", Cwd: "/src/argon", Title: "a title of some length"})
	for range n {
		add(state.Event{Type: state.TypeTurnStarted})
		for range 5 {
			add(state.Event{Type: state.TypeToolStarted, Tool: "Bash"})
			add(state.Event{Type: state.TypeToolEnded, Tool: "Bash", Outcome: state.OutcomeOK})
		}
		add(state.Event{Type: state.TypeContextTokens, Tokens: tokens(25000)})
		add(state.Event{Type: state.TypeTurnEnded, Outcome: state.OutcomeCompleted})
	}
	s.RecordEvents(evs)
}

// A session whose events name only a folder is kept under the folder's
// last segment as its project, as the board shows it (and the filters
// find it).
func TestAProjectFromTheFolder(t *testing.T) {
	now := day0.Add(time.Hour)
	s := open(t, &now, Options{})
	s.RecordEvents([]host.RecordedEvent{{Event: state.Event{Type: state.TypeSessionOpened, Session: "x", Cwd: "/src/krypton", At: at(0)}}})
	flush(t, s)
	projects, _, _, _ := s.Facets(context.Background())
	rows, _, _ := s.Sessions(context.Background(), Query{Project: "krypton"})
	if len(rows) != 1 || len(projects) != 1 || projects[0] != "krypton" {
		t.Errorf("sessions %+v, facets %v", rows, projects)
	}
}
