package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// fillSessions is Fill, for a test.
func fillSessions(b testing.TB, s *Store, n int, now time.Time) {
	b.Helper()
	if err := Fill(s, n, now); err != nil {
		b.Fatal(err)
	}
}

var benchStore *Store

// bigStore is a store of 100,000 sessions, made once per test binary.
func bigStore(b *testing.B) *Store {
	if benchStore == nil {
		now := time.Now()
		s, err := Open(filepath.Join(b.TempDir(), File), Options{Now: func() time.Time { return now }})
		if err != nil {
			b.Fatal(err)
		}
		fillSessions(b, s, 100000, now)
		benchStore = s
	}
	return benchStore
}

// BenchmarkSearch100k is a search of 100,000 sessions, the first page and
// the count: a word every session has with one only a few have ("issue
// 4242"), a project a fortieth of them have (project-7: "project" then a
// word beginning "7"), and a word every title has (the count stops at
// MaxTotal). Target ≤ 20 ms.
func BenchmarkSearch100k(b *testing.B) {
	s := bigStore(b)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		words []string
	}{{"rare", []string{"issue", "4242"}}, {"project", []string{"project-7"}}, {"everywhere", []string{"build"}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.Sessions(ctx, Query{Words: c.words}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPageQueries100k is every query of the History page over
// 100,000 sessions: the newest sessions, the facets, today's bands, the
// headline and 30 days of bars. Target (with the render) ≤ 50 ms.
func BenchmarkPageQueries100k(b *testing.B) {
	s := bigStore(b)
	ctx := context.Background()
	now := time.Now()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := s.Sessions(ctx, Query{}); err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := s.Facets(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Day(ctx, now); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Headline(ctx, now); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Days(ctx, now, 30); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileSize is the file's size per 10,000 turns as the writer
// makes them (bytes-per-10k-turns): sessions of 10 turns, each with five
// tool calls, a context count and a band change.
func BenchmarkFileSize(b *testing.B) {
	for b.Loop() {
		now := time.Now()
		path := filepath.Join(b.TempDir(), File)
		s, err := Open(path, Options{Now: func() time.Time { return now }})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Run(ctx); close(done) }()
		for i := range 1000 {
			aSession(s, fmt.Sprintf("s%d", i), now.Add(time.Duration(i)*time.Minute), 10)
			if i%50 == 49 {
				s.Flush(context.Background()) // 6,550 events: the queue holds 8,192 (beyond, they were dropped)
			}
		}
		s.Flush(context.Background())
		cancel()
		<-done
		s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		s.Close()
		fi, _ := os.Stat(path)
		b.ReportMetric(float64(fi.Size()), "bytes-per-10k-turns")
	}
}

// BenchmarkWriterEvent is the writer's cost per event (the process's CPU
// per event — the writer's, the benchmark's own loop is little — and with
// -benchmem its allocations, the garbage a hook's handler shares the
// collector with): a tool's start and end in an open turn, as a busy
// agent's hooks queue them, written in the writer's batches.
func BenchmarkWriterEvent(b *testing.B) {
	now := time.Now()
	s, err := Open(filepath.Join(b.TempDir(), File), Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { cancel(); <-done; s.Close() }()
	ev := func(typ, tool, outcome string) host.RecordedEvent {
		return host.RecordedEvent{Event: state.Event{Type: typ, Session: "busy", Project: "argon", Cwd: "/src/argon", Tool: tool, Outcome: outcome, At: time.Now().UnixMilli()}, Agent: "claude-code"}
	}
	s.RecordEvents([]host.RecordedEvent{ev(state.TypeSessionOpened, "", ""), ev(state.TypeTurnStarted, "", "")})
	s.Flush(ctx)
	cpu := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i += 2 {
		s.RecordEvents([]host.RecordedEvent{ev(state.TypeToolStarted, "Bash", ""), ev(state.TypeToolEnded, "Bash", state.OutcomeOK)})
		if i%1000 == 998 {
			s.Flush(ctx) // the queue holds 8,192
		}
	}
	s.Flush(ctx)
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/event")
}

// BenchmarkWriteOne is one batch of one event, as the writer takes a
// single change (a retitle, the load tool's change) when nothing else is
// queued: the transaction, its statements and the commit (cpu-µs/batch,
// the process's CPU; with -benchmem the garbage it leaves).
func BenchmarkWriteOne(b *testing.B) {
	now := time.Now()
	s, err := Open(filepath.Join(b.TempDir(), File), Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	retitle := func(i int) []fact {
		return []fact{{ev: &Event{Machine: Local, Agent: "claude-code", Event: state.Event{
			Type: state.TypeSessionTitled, Session: "busy", Title: fmt.Sprintf("change %d", i), At: now.UnixMilli()}}}}
	}
	s.write([]fact{{ev: &Event{Machine: Local, Agent: "claude-code", Event: state.Event{
		Type: state.TypeSessionOpened, Session: "busy", Cwd: "/src/argon", At: now.UnixMilli()}}}})
	s.writeDays()
	cpu := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s.write(retitle(i))
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/batch")
	if p := s.Problem(); p != "" {
		b.Fatal(p)
	}
}
