package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// recorder collects what a Follower reports, from Run's goroutine.
type recorder struct {
	mu   sync.Mutex
	docs []int64 // wallMs of each OnDocument
	errs []error
}

func (r *recorder) follower(path string, interval time.Duration) *Follower {
	return &Follower{Path: path, Interval: interval,
		OnDocument: func(d Document) { r.mu.Lock(); r.docs = append(r.docs, d.WallMs); r.mu.Unlock() },
		OnError:    func(err error) { r.mu.Lock(); r.errs = append(r.errs, err); r.mu.Unlock() },
	}
}

func (r *recorder) snapshot() (docs []int64, errs []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.docs...), append([]error(nil), r.errs...)
}

func runFollower(t *testing.T, f *Follower) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v when its context ended; want nil", err)
		}
	})
}

func writeDoc(t *testing.T, path string, wall int64) {
	t.Helper()
	data, err := Encode(Document{Schema: Schema, Plugin: Plugin, WallMs: wall})
	if err != nil {
		t.Fatal(err)
	}
	if err := fsx.WriteFileAtomic(path, data); err != nil {
		t.Fatal(err)
	}
}

func lastWall(f *Follower) int64 {
	d, ok := f.Last()
	if !ok {
		return -1
	}
	return d.WallMs
}

// TestFollowerFollowsRenames: another writer renames new documents into
// place repeatedly; the follower, relying on its directory watch alone (the
// poll is an hour away), ends on the latest, never goes backwards, keeps
// the last good document through garbage, and picks up again after it.
func TestFollowerFollowsRenames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	writeDoc(t, path, t0)
	var rec recorder
	f := rec.follower(path, time.Hour)
	runFollower(t, f)
	waitFor(t, "the first document", func() bool { return lastWall(f) == t0 })

	const n = 200
	for i := int64(1); i <= n; i++ {
		writeDoc(t, path, t0+i)
	}
	waitFor(t, "the latest document", func() bool { return lastWall(f) == t0+n })
	docs, errs := rec.snapshot()
	for i := 1; i < len(docs); i++ {
		if docs[i] <= docs[i-1] {
			t.Fatalf("documents went backwards or repeated: %v", docs)
		}
	}
	if len(errs) != 0 {
		t.Fatalf("errors while following clean renames: %v", errs)
	}

	// Garbage in between: reported, last good kept.
	for i, bad := range []struct {
		data string
		is   error
	}{
		{`{"schema":4,"wallMs":17900`, ErrMalformed}, // half a file
		{`{"schema":5,"wallMs":1}`, ErrSchema},       // another schema
		{"not json at all", ErrMalformed},
	} {
		if err := fsx.WriteFileAtomic(path, []byte(bad.data)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "OnError for "+bad.data, func() bool { _, errs := rec.snapshot(); return len(errs) == i+1 })
		_, errs := rec.snapshot()
		if !errors.Is(errs[i], bad.is) {
			t.Errorf("OnError(%v), want %v", errs[i], bad.is)
		}
		if got := lastWall(f); got != t0+n {
			t.Fatalf("after %q the last good document is %d, want %d", bad.data, got, t0+n)
		}
	}
	writeDoc(t, path, t0+n+1)
	waitFor(t, "the document after the garbage", func() bool { return lastWall(f) == t0+n+1 })
}

// TestFollowerPollsUntilTheFileAppears: the directory does not exist when
// following starts, so no watch can be placed; polling finds the file, and
// a missing file is reported once, not at every poll.
func TestFollowerPollsUntilTheFileAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later", "state.json")
	var rec recorder
	f := rec.follower(path, 5*time.Millisecond)
	runFollower(t, f)
	waitFor(t, "a missing-file error", func() bool { _, errs := rec.snapshot(); return len(errs) > 0 })
	time.Sleep(50 * time.Millisecond) // ten polls
	if _, errs := rec.snapshot(); len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) {
		t.Fatalf("errors = %v; want exactly one not-exist report", errs)
	}
	if _, ok := f.Last(); ok {
		t.Fatal("a document before there was a file")
	}
	writeDoc(t, path, t0)
	waitFor(t, "the file, once it exists", func() bool { return lastWall(f) == t0 })
	writeDoc(t, path, t0+1)
	waitFor(t, "the next write", func() bool { return lastWall(f) == t0+1 })
}

func TestFollowerNeedsPath(t *testing.T) {
	if err := (&Follower{}).Run(context.Background()); err == nil {
		t.Error("a Follower without a Path ran")
	}
}

func TestStale(t *testing.T) {
	now := time.UnixMilli(t0)
	tests := []struct {
		name  string
		wall  int64
		stale bool
	}{
		{"just written", t0, false},
		{"exactly 4 s old", t0 - 4000, false},
		{"4 s and 1 ms old (docs/contract.md rule 3)", t0 - 4001, true},
		{"an hour old", t0 - 3_600_000, true},
		{"no wallMs", 0, true},
		{"from a clock ahead of ours", t0 + 60_000, false},
	}
	for _, tc := range tests {
		if got := Stale(Document{WallMs: tc.wall}, now); got != tc.stale {
			t.Errorf("%s: Stale = %v, want %v", tc.name, got, tc.stale)
		}
	}
}
