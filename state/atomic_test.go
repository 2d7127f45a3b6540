package state

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWriteFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "dir", "state.json")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
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
		t.Errorf("mode = %v, want 0644 (the window may be another user)", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("leftovers beside the file: %v", entries)
	}
}

func TestWriteFileAtomicFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.Mkdir(path, 0o755); err != nil { // a directory where the file should go
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("x")); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want a failure naming %s", err, path)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a failed write left files behind: %v", entries)
	}
}

// docOfSize builds documents of very different sizes, so that a torn read
// would be caught by the decoder (a short document read against a long
// one's tail is not JSON).
func docOfSize(n int, wall int64) Document {
	f := NewFold()
	for i := range n {
		id := fmt.Sprintf("session-%04d-%s", i, strings.Repeat("x", i))
		if _, err := f.Apply(Event{Type: TypeSessionOpened, Session: id, At: t0, Title: strings.Repeat("title ", i%7), Cwd: "/src/p"},
			Event{Type: TypeContextTokens, Session: id, At: t0, Tokens: ptr(int64(i) * 1000)}); err != nil {
			panic(err)
		}
	}
	in := input(0)
	in.Now = time.UnixMilli(wall)
	return f.Snapshot(in)
}

// TestReadersNeverSeeAPartialFile reads state.json in a tight loop while
// it is rewritten, alternating a short and a long document: every read
// must decode.
func TestReadersNeverSeeAPartialFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	short, _ := Encode(docOfSize(0, 1))
	long, _ := Encode(docOfSize(12, 2))
	if err := WriteFileAtomic(path, short); err != nil {
		t.Fatal(err)
	}
	var writes atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			data := short
			if i%2 == 1 {
				data = long
			}
			if err := WriteFileAtomic(path, data); err != nil {
				t.Error(err)
				return
			}
			writes.Add(1)
		}
	})
	const reads = 10_000
	seen := map[int64]int{}
	for i := range reads {
		d, err := ReadFile(path)
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("read %d of %d while writing: %v", i, reads, err)
		}
		seen[d.WallMs]++
	}
	close(stop)
	wg.Wait()
	if len(seen) != 2 || writes.Load() < 10 {
		t.Fatalf("the test did not race: %d writes, versions seen %v", writes.Load(), seen)
	}
	t.Logf("%d reads, %d writes, versions seen %v", reads, writes.Load(), seen)
}

const childWriterEnv = "STATE_TEST_CHILD_WRITER"

// TestWriterProcessKilled starts a writer in another process (this test
// binary, re-executed), lets it rewrite state.json flat out, and SIGKILLs
// it mid-run, several times: after each kill the file must decode.
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
		// file and its write counter (wallMs) has moved on.
		deadline := time.Now().Add(20 * time.Second)
		for {
			d, err := ReadFile(path)
			if err == nil && d.HostPid == cmd.Process.Pid && d.WallMs > int64(50+round*7) {
				break
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
		d, err := ReadFile(path)
		if err != nil {
			t.Fatalf("round %d: after the writer was killed: %v", round, err)
		}
		if d.HostPid != cmd.Process.Pid || len(d.Sessions) != MaxSessions {
			t.Fatalf("round %d: unexpected document: pid %d, %d sessions", round, d.HostPid, len(d.Sessions))
		}
	}
}

// childWriter is the process TestWriterProcessKilled kills: a Writer
// notified flat out, so that it is almost always mid-write. It gives up on
// its own after a while, so an orphan cannot outlive a crashed parent long.
func childWriter(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := docOfSize(MaxSessions, 0)
	base.HostPid = os.Getpid()
	var n atomic.Int64
	notify := make(chan struct{})
	go func() {
		for ctx.Err() == nil {
			select {
			case notify <- struct{}{}:
			case <-ctx.Done():
			}
		}
	}()
	w := &Writer{Path: path, Snapshot: func(time.Time) Document {
		d := base
		d.WallMs = n.Add(1) // a write counter, so the parent sees progress
		return d
	}, OnError: func(err error) { fmt.Fprintln(os.Stderr, err) }}
	w.Run(ctx, notify)
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
	removeStaleTemps(path, time.Minute, now)
	for p, want := range map[string]bool{path: true, old: false, young: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
