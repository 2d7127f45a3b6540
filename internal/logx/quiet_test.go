package logx

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/syncbuf"
)

type lockedBuf struct{ syncbuf.Buffer }

func (l *lockedBuf) lines() []string {
	s := strings.TrimSpace(l.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// A record repeated every beat is written once, then summarised at most
// every window with its count — while it goes on and when it stops.
func TestQuietSummarisesRepeats(t *testing.T) {
	var out lockedBuf
	log, q := NewQuiet(&out, slog.LevelInfo, 30*time.Second)
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	q.now = func() time.Time { return clock }
	fail := func() {
		log.Error("state.json not written", "log_type", "agents-notch.state.v1", Err("WriteError", errors.New("read-only file system")))
	}
	// 100 beats of 340 ms: 34 s.
	for range 100 {
		fail()
		clock = clock.Add(340 * time.Millisecond)
	}
	lines := out.lines()
	if len(lines) != 2 {
		t.Fatalf("100 identical errors over 34 s wrote %d lines, want the first and one summary:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	first, sum := checkLine(t, lines[0]), checkLine(t, lines[1])
	if first["message"] != "state.json not written" {
		t.Errorf("first line %v", first)
	}
	if sum["level"] != "ERROR" || !strings.Contains(sum["message"].(string), "(repeated 89×)") {
		t.Errorf("summary %v, want the ERROR again with its count", sum)
	}
	if rep, _ := sum["repeats"].(map[string]any); rep["count"] != 89.0 {
		t.Errorf("summary repeats = %v", sum["repeats"])
	}
	// The repeats stop: the rest is summarised by Run within a window.
	fail()
	clock = clock.Add(31 * time.Second)
	q.flush(false)
	if lines := out.lines(); len(lines) != 3 || !strings.Contains(lines[2], "(repeated 11×)") {
		t.Fatalf("after the repeats stopped: %q", lines[len(lines)-1])
	}
	// A different error, or an INFO, is never held back.
	log.Error("state.json not written", "log_type", "agents-notch.state.v1", Err("WriteError", errors.New("disk full")))
	log.Info("x")
	log.Info("x")
	if n := len(out.lines()); n != 6 {
		t.Errorf("%d lines, want 6", n)
	}
}

func TestQuietRunFlushesAtTheEnd(t *testing.T) {
	var out lockedBuf
	log, q := NewQuiet(&out, slog.LevelInfo, time.Hour)
	for range 5 {
		log.Warn("same")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.Run(ctx); err != nil {
		t.Fatal(err)
	}
	lines := out.lines()
	if len(lines) != 2 || !strings.Contains(lines[1], "(repeated 4×)") {
		t.Fatalf("lines %q", lines)
	}
}

// A flood of distinct records never costs a repeat already held back: past
// the bound, new records are written untracked, and the summary still comes.
func TestQuietFloodKeepsHeldRepeats(t *testing.T) {
	var out lockedBuf
	log, q := NewQuiet(&out, slog.LevelInfo, time.Hour)
	log.Warn("held")
	log.Warn("held")
	for i := range maxRepeatKeys + 10 {
		log.Warn("distinct", "i", i)
	}
	q.Flush()
	lines := out.lines()
	if want := 1 + maxRepeatKeys + 10 + 1; len(lines) != want {
		t.Errorf("%d lines, want %d", len(lines), want)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "held (repeated 1×)") {
		t.Errorf("the held repeat's summary is missing; last line %q", last)
	}
}
