package state

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
)

// waitFor polls cond until it holds or the deadline passes: a condition,
// never a fixed sleep.
func waitFor(t *testing.T, what string, cond func() bool) { waitfor.Until(t, what, cond) }

func startWriter(t *testing.T, w *Writer, notify <-chan struct{}) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, notify) }()
	return func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after its context ended")
			return nil
		}
	}
}

func TestWriterHeartbeat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents-notch", "state.json")
	var calls atomic.Int64
	w := &Writer{Path: path, Interval: 5 * time.Millisecond, Snapshot: func(now time.Time) Document {
		calls.Add(1)
		return NewFold().Snapshot(SnapshotInput{Now: now})
	}}
	stop := startWriter(t, w, nil)
	// With no notification at all, wallMs keeps moving: the heartbeat.
	first := time.Now().UnixMilli()
	waitFor(t, "a heartbeat with a fresh wallMs", func() bool {
		d, err := ReadFile(path)
		return err == nil && d.WallMs > first && calls.Load() >= 3
	})
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v when its context ended; want nil", err)
	}
	after := calls.Load()
	time.Sleep(30 * time.Millisecond)
	if calls.Load() != after {
		t.Error("the writer kept writing after Run returned")
	}
}

func TestWriterNotify(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var mu sync.Mutex
	f := NewFold()
	w := &Writer{Path: path, Interval: time.Hour, Snapshot: func(now time.Time) Document {
		mu.Lock()
		defer mu.Unlock()
		return f.Snapshot(SnapshotInput{Now: now})
	}}
	notify := make(chan struct{}, 1)
	stop := startWriter(t, w, notify)
	defer stop()
	waitFor(t, "the first write at start", func() bool { _, err := ReadFile(path); return err == nil })
	mu.Lock()
	mustApply(t, f, opened(0, "a"))
	mu.Unlock()
	notify <- struct{}{}
	// The heartbeat is an hour away: only the notification can write this.
	waitFor(t, "the notified change", func() bool {
		d, err := ReadFile(path)
		return err == nil && len(d.Sessions) == 1
	})
}

// A burst of changes is written at MinGap's pace, but a heartbeat does not
// start the pace: the first change after heartbeats is written at once.
func TestWriterPacesChangesNotHeartbeats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var mu sync.Mutex
	var beats atomic.Int64
	f := NewFold()
	w := &Writer{Path: path, Interval: 5 * time.Millisecond, MinGap: time.Hour, Snapshot: func(now time.Time) Document {
		beats.Add(1)
		mu.Lock()
		defer mu.Unlock()
		return f.Snapshot(SnapshotInput{Now: now})
	}}
	notify := make(chan struct{}, 1)
	stop := startWriter(t, w, notify)
	defer stop() // Run must also end while it waits out a gap
	waitFor(t, "heartbeats", func() bool { return beats.Load() >= 3 })
	mu.Lock()
	mustApply(t, f, opened(0, "a"))
	mu.Unlock()
	notify <- struct{}{}
	// Were the heartbeats pacing, this would wait an hour.
	waitFor(t, "the first change after heartbeats", func() bool {
		d, err := ReadFile(path)
		return err == nil && len(d.Sessions) == 1
	})
	notify <- struct{}{}
	// The second change of the burst waits out the gap (an hour here): the
	// writer stops beating, where a writer that let it through would
	// write it and go on beating every 5 ms. (A beat may still come
	// between the send and the writer taking it: that is not a change.)
	waitFor(t, "the writer to wait out the gap", func() bool {
		n := beats.Load()
		time.Sleep(50 * time.Millisecond)
		return beats.Load() == n
	})
	n := beats.Load()
	time.Sleep(100 * time.Millisecond)
	if got := beats.Load(); got != n {
		t.Fatalf("the writer wrote %d times within the gap", got-n)
	}
}

func TestWriterClosedNotifyKeepsBeating(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var calls atomic.Int64
	w := &Writer{Path: path, Interval: 5 * time.Millisecond, Snapshot: func(now time.Time) Document {
		calls.Add(1)
		return Document{Schema: Schema, WallMs: now.UnixMilli()}
	}}
	notify := make(chan struct{})
	close(notify)
	stop := startWriter(t, w, notify)
	waitFor(t, "heartbeats after notify closed", func() bool { return calls.Load() >= 3 })
	stop()
	if n := calls.Load(); n > 1000 {
		t.Errorf("%d writes: a closed notify channel must not spin the writer", n)
	}
}

func TestWriterReportsErrorsAndCarriesOn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.Mkdir(path, 0o755); err != nil { // unwritable: a directory is in the way
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "x"), nil, 0o644)
	var errs atomic.Int64
	w := &Writer{Path: path, Interval: 5 * time.Millisecond,
		Snapshot: func(now time.Time) Document { return Document{Schema: Schema, WallMs: now.UnixMilli()} },
		OnError:  func(error) { errs.Add(1) }}
	stop := startWriter(t, w, nil)
	waitFor(t, "an error from the failed writes", func() bool { return errs.Load() >= 1 })
	// Once the obstacle goes, the next beat writes.
	os.RemoveAll(path)
	waitFor(t, "recovery", func() bool { _, err := ReadFile(path); return err == nil })
	stop()
}

// Run first clears the old temporary files a killed predecessor left
// beside state.json, and only the old ones.
func TestWriterRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	old, young := filepath.Join(dir, ".state.json.tmp-111"), filepath.Join(dir, ".state.json.tmp-222")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-time.Hour)
	os.Chtimes(old, hourAgo, hourAgo)
	w := &Writer{Path: path, Interval: time.Hour,
		Snapshot: func(now time.Time) Document { return Document{Schema: Schema, WallMs: now.UnixMilli()} }}
	stop := startWriter(t, w, nil)
	waitFor(t, "the first write", func() bool { _, err := ReadFile(path); return err == nil })
	stop()
	if _, err := os.Stat(old); err == nil {
		t.Error("the old temp file is still there")
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("the young temp file (maybe a live writer's) was removed: %v", err)
	}
}

func TestWriterNeedsPathAndSnapshot(t *testing.T) {
	if err := (&Writer{}).Run(context.Background(), nil); err == nil {
		t.Error("a Writer without Path and Snapshot ran")
	}
}

// TestWriterBacksOffAndSummarises: a write that keeps failing (a full disk,
// a directory in the way) is retried with a growing gap, not every beat,
// and reported once, then summarised, not logged every beat (issue 19:
// ~288,000 ERROR records a day on a full disk). A change during the
// failure does not bring a write forward.
func TestWriterBacksOffAndSummarises(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "x"), nil, 0o644)
	var errs, attempts atomic.Int64
	w := &Writer{Path: path, Interval: 5 * time.Millisecond,
		Snapshot: func(now time.Time) Document {
			attempts.Add(1)
			return Document{Schema: Schema, WallMs: now.UnixMilli()}
		},
		OnError: func(error) { errs.Add(1) }}
	notify := make(chan struct{}, 1)
	stop := startWriter(t, w, notify)
	// A second of failures, with a change every few milliseconds.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(3 * time.Millisecond) {
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	stop()
	// Every beat for a second would be 200 attempts and as many reports.
	if n := attempts.Load(); n > 30 {
		t.Errorf("%d write attempts in a second of failures at a 5 ms beat: no back-off", n)
	}
	if n := errs.Load(); n != 1 {
		t.Errorf("%d failures reported in a second, want 1 (then a summary at most every 30 s)", n)
	}
}

// With Version set, a write with nothing changed is the last write's bytes
// with a fresh wallMs — byte for byte what a snapshot would give — and a
// new version or a change by time due snapshots again.
func TestWriterRestampsAnUnchangedDocument(t *testing.T) {
	f := NewFold()
	t0 := time.UnixMilli(1_800_000_000_000)
	if _, err := f.Apply(Event{Type: "session.opened", Session: "a", Title: `a "wallMs":1 title`, At: t0.UnixMilli()},
		Event{Type: "session.opened", Session: "b", At: t0.UnixMilli()},
		Event{Type: "turn.started", Session: "b", At: t0.UnixMilli()},
		Event{Type: "turn.ended", Session: "b", Outcome: OutcomeCompleted, At: t0.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	in := func(now time.Time) SnapshotInput {
		return SnapshotInput{Now: now, HostPid: 7, Retire: RetireTimer, RetireAfter: time.Minute, Settings: settings.Defaults}
	}
	var version uint64 = 1
	snapshots := 0
	w := &Writer{
		Snapshot: func(now time.Time) Document { snapshots++; return f.Snapshot(in(now)) },
		Version:  func() uint64 { return version },
		NextChange: func(d Document) time.Time {
			at, _ := RetiresAt(d.Sessions[len(d.Sessions)-1], d.Retire, time.Minute)
			return at
		},
	}
	for _, step := range []struct {
		name      string
		at        time.Duration
		bump      bool
		snapshots int
	}{
		{"the first write", 0, false, 1},
		{"a heartbeat", 340 * time.Millisecond, false, 1},
		{"another", 680 * time.Millisecond, false, 1},
		{"a change", time.Second, true, 2},
		{"a heartbeat after it", 1340 * time.Millisecond, false, 2},
		{"the retire due", time.Minute + time.Millisecond, false, 3},
		{"a heartbeat after the retire", time.Minute + time.Second, false, 3},
	} {
		if step.bump {
			version++
		}
		now := t0.Add(step.at)
		got, err := w.document(now)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Encode(f.Snapshot(in(now)))
		if string(got) != string(want) {
			t.Errorf("%s: wrote\n%s\nwant\n%s", step.name, got, want)
		}
		if snapshots != step.snapshots {
			t.Errorf("%s: %d snapshots so far, want %d", step.name, snapshots, step.snapshots)
		}
	}
}

// A change not yet written when the writer stops is written before Run
// returns: a host stopped right after a change restarts from it.
func TestWriterWritesAPendingChangeOnStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var version atomic.Uint64
	var title atomic.Value
	title.Store("before")
	w := &Writer{Path: path, Interval: time.Hour, Version: func() uint64 { return version.Load() },
		Snapshot: func(now time.Time) Document {
			f := NewFold()
			f.Apply(Event{Type: TypeSessionOpened, Session: "a", Title: title.Load().(string), At: 1})
			return f.Snapshot(SnapshotInput{Now: now, Settings: settings.Defaults})
		}}
	stop := startWriter(t, w, nil)
	waitFor(t, "the first write", func() bool { _, err := ReadFile(path); return err == nil })
	title.Store("after")
	version.Add(1) // counted, never notified
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	d, err := ReadFile(path)
	if err != nil || len(d.Sessions) != 1 || d.Sessions[0].Title != "after" {
		t.Fatalf("after the stop state.json holds %+v (%v), want the change", d.Sessions, err)
	}
}

// A host stopped before its writer ran (a change taken, then a stop, all
// before the goroutine was scheduled) still writes what it holds: the
// restart reads it (TestHistoryOutlivesARestart lost its row so).
func TestWriterStoppedBeforeItRanWritesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	w := &Writer{Path: path, Interval: time.Hour, Snapshot: func(now time.Time) Document {
		f := NewFold()
		f.Apply(Event{Type: TypeSessionOpened, Session: "a", At: 1})
		return f.Snapshot(SnapshotInput{Now: now, Settings: settings.Defaults})
	}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadFile(path); err != nil || len(d.Sessions) != 1 {
		t.Fatalf("state.json %+v (%v), want the row", d, err)
	}
}
