package fsx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writers are the two atomic replaces: every property but durability holds
// for both.
var writers = []struct {
	name  string
	write func(string, []byte) error
}{
	{"durable", WriteFileAtomic},
	{"nosync", WriteFileAtomicNoSync},
}

// dirNames lists dir, to show what a test found there.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing", "dir", "state.json")
			for _, content := range []string{"first\n", "second, longer\n", ""} {
				if err := w.write(path, []byte(content)); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != content {
					t.Fatalf("read %q, %v; want %q", got, err, content)
				}
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && info.Mode().Perm() != 0o644 {
				t.Errorf("mode = %v, want 0644 (the window may be another user; CreateTemp's 0600 must not leak)", info.Mode().Perm())
			}
			if names := dirNames(t, filepath.Dir(path)); len(names) != 1 {
				t.Errorf("leftovers beside the file: %v", names)
			}
		})
	}
}

// A private file is 0600 after every write, even over a wider one.
func TestWriteFilePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	path := filepath.Join(t.TempDir(), "vapid.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"first\n", "second\n"} {
		if err := WriteFilePrivate(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", info.Mode().Perm())
		}
	}
	if names := dirNames(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("leftovers beside the file: %v", names)
	}
}

// A write that fails (a non-empty directory in the way of the rename) names
// the path, leaves no temporary file and leaves what was there alone.
func TestWriteFileAtomicFailureLeavesNoTemp(t *testing.T) {
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(path, "x"), []byte("kept"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := w.write(path, []byte("x")); err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want a failure naming %s", err, path)
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("a failed write left files behind: %v", names)
			}
			if b, err := os.ReadFile(filepath.Join(path, "x")); err != nil || string(b) != "kept" {
				t.Errorf("what was in the way changed: %q, %v", b, err)
			}
		})
	}
}

// TestReadersNeverSeeAPartialFile reads a file in a tight loop (through
// ReadFileLimit, as the stores do) while it is rewritten flat out with
// versions of very different lengths: every read is one whole version.
func TestReadersNeverSeeAPartialFile(t *testing.T) {
	versions := [][]byte{
		[]byte("{}\n"),
		bytes.Repeat([]byte("a"), 64<<10),
		bytes.Repeat([]byte("bc"), 96<<10),
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			if err := w.write(path, versions[0]); err != nil {
				t.Fatal(err)
			}
			var writes atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 1; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					if err := w.write(path, versions[i%len(versions)]); err != nil {
						t.Error(err)
						return
					}
					writes.Add(1)
				}
			})
			const reads = 5_000
			seen := map[int]int{}
			for i := range reads {
				b, err := ReadFileLimit(path, 1<<20)
				which := slices.IndexFunc(versions, func(v []byte) bool { return bytes.Equal(v, b) })
				if err != nil || which < 0 {
					close(stop)
					wg.Wait()
					t.Fatalf("read %d of %d while writing: %d bytes, %v", i, reads, len(b), err)
				}
				seen[which]++
			}
			close(stop)
			wg.Wait()
			if len(seen) < 2 || writes.Load() < 10 {
				t.Fatalf("the test did not race: %d writes, versions seen %v", writes.Load(), seen)
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("directory holds %v, want only state.json", names)
			}
		})
	}
}

const childWriterEnv = "FSX_TEST_CHILD_WRITER"

// killedDoc is what the killed writer writes: a header naming the writer
// and its write count, then a body whose length and bytes depend on the
// count, so a torn or truncated file cannot pass checkKilledDoc.
func killedDoc(pid int, n int64) []byte {
	body := strings.Repeat(strconv.FormatInt(n%10, 10), 1000+int(n%7)*20_000)
	return fmt.Appendf(nil, "%d %d\n%s\nend\n", pid, n, body)
}

func checkKilledDoc(b []byte) (pid int, n int64, err error) {
	if _, err := fmt.Sscanf(string(b), "%d %d\n", &pid, &n); err != nil {
		return 0, 0, fmt.Errorf("bad header in %d bytes: %w", len(b), err)
	}
	if !bytes.Equal(b, killedDoc(pid, n)) {
		return 0, 0, fmt.Errorf("a partial file: %d bytes, not write %d of pid %d", len(b), n, pid)
	}
	return pid, n, nil
}

// TestWriterProcessKilled starts a writer in another process (this test
// binary, re-executed), lets it rewrite the file flat out, and SIGKILLs it
// mid-run, several times: after each kill the file is one whole write. The
// temporary files the kills left are then old enough for RemoveStaleTemps.
func TestWriterProcessKilled(t *testing.T) {
	if path := os.Getenv(childWriterEnv); path != "" {
		childWriter(path)
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	for round := range 5 {
		cmd := exec.Command(exe, "-test.run=^TestWriterProcessKilled$", "-test.count=1")
		cmd.Env = append(os.Environ(), childWriterEnv+"="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until this child has written a while: its pid is in the
		// file and its write counter has moved on.
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, err := ReadFileLimit(path, 1<<20)
			if err == nil {
				var pid int
				var n int64
				pid, n, err = checkKilledDoc(b)
				if err == nil && pid == cmd.Process.Pid && n > int64(50+round*7) {
					break
				}
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: the child never got going (last read: %v)", round, err)
			}
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		b, err := ReadFileLimit(path, 1<<20)
		if err != nil {
			t.Fatalf("round %d: after the writer was killed: %v", round, err)
		}
		if pid, _, err := checkKilledDoc(b); err != nil || pid != cmd.Process.Pid {
			t.Fatalf("round %d: after the writer was killed: pid %d, %v", round, pid, err)
		}
	}
	RemoveStaleTemps(path, 0, time.Now().Add(time.Minute))
	if names := dirNames(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("after removing stale temps: %v, want only state.json", names)
	}
}

// childWriter is the process TestWriterProcessKilled kills: it rewrites
// path flat out, alternating the two writers, so that it is almost always
// mid-write. It gives up on its own after a while, so an orphan cannot
// outlive a crashed parent long.
func childWriter(path string) {
	deadline := time.Now().Add(60 * time.Second)
	pid := os.Getpid()
	for n := int64(1); time.Now().Before(deadline); n++ {
		if err := writers[n%2].write(path, killedDoc(pid, n)); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	old, young := filepath.Join(dir, ".state.json.tmp-111"), filepath.Join(dir, ".state.json.tmp-222")
	other := filepath.Join(dir, ".other.json.tmp-333")
	for _, p := range []string{path, old, young, other} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	for _, p := range []string{old, other} {
		os.Chtimes(p, now.Add(-time.Hour), now.Add(-time.Hour))
	}
	RemoveStaleTemps(path, time.Minute, now)
	for p, want := range map[string]bool{path: true, old: false, young: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFileLimit(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFileLimit(path, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("a file of exactly the limit: %q, %v", b, err)
	}
	if _, err := ReadFileLimit(path, 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("a file over the limit: %v, want ErrTooLarge naming the file", err)
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

// A second Lock waits while the first is held and proceeds once released;
// Lock creates a missing directory; unlocking twice is an error.
func TestLockWaitsForRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x", "settings.json.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func() error, 1)
	go func() {
		u, err := Lock(path)
		if err != nil {
			t.Error(err)
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
	if err := unlock(); err == nil {
		t.Error("unlocking twice did not complain")
	}
}

func TestLockTimesOut(t *testing.T) {
	defer func(d time.Duration) { lockTimeout = d }(lockTimeout)
	lockTimeout = 30 * time.Millisecond
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := Lock(path); !errors.Is(err, ErrLockTimeout) {
		t.Errorf("second Lock = %v, want ErrLockTimeout", err)
	}
}

// A lock that cannot be created fails at once, naming the path, rather
// than waiting for a timeout.
func TestLockBadPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "x.lock") // its "directory" is a file
	if _, err := Lock(path); err == nil || errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), path) {
		t.Errorf("Lock under a file: %v, want an immediate error naming %s", err, path)
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
	if err := WriteFileAtomic(path, []byte("[]\n")); err != nil {
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
		if err := WriteFileAtomic(path, []byte("- id: x\n")); err != nil {
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
	if err := WriteFileAtomic(path, []byte("- id: y\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("a single rename into place was not heard")
	}
}

// A watched directory removed and made again (rm -r of the state folder)
// takes its watch with it; Watch hears that, polls until the directory is
// back, and hears a file written in it then.
func TestWatchDirectoryRemovedAndBack(t *testing.T) {
	for _, inodes := range []bool{false, true} {
		t.Run(fmt.Sprintf("inodes=%v", inodes), func(t *testing.T) { testWatchDirectoryRemovedAndBack(t, inodes) })
	}
}

func testWatchDirectoryRemovedAndBack(t *testing.T, inodes bool) {
	dir := filepath.Join(t.TempDir(), "agents-notch")
	path := filepath.Join(dir, "settings.json")
	if err := WriteFileAtomic(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- WatchWith(ctx, []string{path}, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}, WatchOptions{Inodes: inodes})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	<-changed // the read once the watch is in place
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	<-changed // settings.json removed
	deadline := time.Now().Add(10 * time.Second)
	for heard := false; !heard; {
		if time.Now().After(deadline) {
			t.Fatal("a file in the directory made again was never heard")
		}
		if err := WriteFileAtomic(path, []byte(`{"scale":2}`+"\n")); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
			heard = true
		case <-time.After(2 * time.Second):
		}
	}
	// Watched again: a single replace is heard at once.
	select {
	case <-changed:
	case <-time.After(200 * time.Millisecond):
	}
	if err := WriteFileAtomic(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("a single rename into place was not heard once the directory was back")
	}
}
