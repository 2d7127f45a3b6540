package fsx

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A reader in a tight loop never sees anything but a whole old file or a
// whole new one, however the writes interleave with its reads.
func TestWriteFileAtomicNoTornReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	// Different lengths and contents, so a torn or truncated read is visible.
	versions := [][]byte{
		bytes.Repeat([]byte("a"), 64<<10),
		bytes.Repeat([]byte("bc"), 96<<10),
		[]byte("{}\n"),
	}
	if err := WriteFileAtomic(path, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var reads, bad atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("read: %v", err) // the name must exist at every instant
					bad.Add(1)
					return
				}
				reads.Add(1)
				whole := false
				for _, v := range versions {
					whole = whole || bytes.Equal(b, v)
				}
				if !whole {
					bad.Add(1)
					t.Errorf("partial file: %d bytes", len(b))
					return
				}
			}
		})
	}
	for i := range 100 {
		if err := WriteFileAtomic(path, versions[i%len(versions)], 0o644); err != nil {
			t.Fatal(err)
		}
		if bad.Load() > 0 {
			break
		}
	}
	close(stop)
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("the reader never read")
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only state.json", names)
	}
}

func TestWriteFileAtomicCreatesDirAndSetsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "settings.json")
	if err := WriteFileAtomic(path, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 (CreateTemp's 0600 must not leak)", st.Mode().Perm())
	}
	// Replacing keeps working over an existing file.
	if err := WriteFileAtomic(path, []byte("yz"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "yz" {
		t.Errorf("content %q", b)
	}
}

func TestWriteFileAtomicFailureLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteFileAtomic(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory in the way of the rename: the write fails, no temp is left.
	target := filepath.Join(dir, "d")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("new"), 0o644); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("a temp file was left: %d entries", len(entries))
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("unrelated file changed: %q", b)
	}
}

// Lock excludes: never two holders at once, across goroutines, each with its
// own open file (as two processes would have).
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	var inside, maxInside, entries atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 25 {
				unlock, err := Lock(path)
				if err != nil {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				for {
					m := maxInside.Load()
					if n <= m || maxInside.CompareAndSwap(m, n) {
						break
					}
				}
				entries.Add(1)
				runtime.Gosched()
				time.Sleep(50 * time.Microsecond) // widen the window an overlap would need
				inside.Add(-1)
				if err := unlock(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if entries.Load() != 16*25 {
		t.Fatalf("%d entries, want %d", entries.Load(), 16*25)
	}
	if maxInside.Load() != 1 {
		t.Errorf("%d holders at once", maxInside.Load())
	}
}

// A second Lock blocks while the first is held and proceeds once released.
func TestLockBlocksUntilUnlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func() error)
	go func() {
		u, err := Lock(path)
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- u
	}()
	select {
	case <-got:
		t.Fatal("a second holder got the lock while it was held")
	case <-time.After(100 * time.Millisecond):
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-got:
		if u != nil {
			_ = u()
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not handed over after unlock")
	}
}

func TestLockBadPath(t *testing.T) {
	if _, err := Lock(filepath.Join(t.TempDir(), "missing-dir", "x.lock")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lock in a missing directory: %v, want ErrNotExist", err)
	}
}

// Watch hears a rename into place, and a file that appears in a directory
// created after the watch started.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "later", "cordis.patch.yml")
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, []string{path}, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}, nil)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if err := WriteFileAtomic(path, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The directory was missing: the poll finds it and reports a change.
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported for a file in a new directory")
	}
	// Now watched: keep replacing until heard (the poll may have fired
	// before the watch was added), then a single replace must be heard.
	deadline := time.Now().Add(10 * time.Second)
	for heard := false; !heard; {
		if time.Now().After(deadline) {
			t.Fatal("a rename into place was never heard")
		}
		if err := WriteFileAtomic(path, []byte("- id: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
			heard = true
		case <-time.After(500 * time.Millisecond):
		}
	}
	// Drain a possible late wake-up from the loop, then one more write.
	select {
	case <-changed:
	case <-time.After(200 * time.Millisecond):
	}
	if err := WriteFileAtomic(path, []byte("- id: y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("a single rename into place was not heard")
	}
}
