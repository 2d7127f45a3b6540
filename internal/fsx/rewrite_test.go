package fsx

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// A Rewriter's file is always one whole version, however fast it is
// rewritten with versions of very different lengths, for a reader that
// opens it anew each time (ReadFileLimit, as the window and a follower
// do); and once closed it leaves nothing beside the file.
func TestRewriterReadersNeverSeeAPartialFile(t *testing.T) {
	versions := [][]byte{
		[]byte("{}\n"),
		bytes.Repeat([]byte("a"), 64<<10),
		bytes.Repeat([]byte("bc"), 96<<10),
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	r := &Rewriter{Path: path}
	if err := r.Write(versions[0]); err != nil {
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
			if err := r.Write(versions[i%len(versions)]); err != nil {
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
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v after Close, want only state.json", names)
	}
}

// A reader that holds the file open while it is rewritten many times reads
// what it opened, whole (the spare it became is never written while the
// reader has it); the file itself is the newest version all along.
func TestRewriterKeepsAHeldFileWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	r := &Rewriter{Path: path}
	defer r.Close()
	for _, v := range []string{"one\n", "two\n"} {
		if err := r.Write([]byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	held, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, v := range []string{"three, longer\n", "4\n", "five\n", "six\n"} {
		if err := r.Write([]byte(v)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != v {
			t.Fatalf("the file = %q, %v; want %q", b, err, v)
		}
	}
	b := make([]byte, 64)
	n, err := held.ReadAt(b, 0)
	if string(b[:n]) != "two\n" {
		t.Errorf("the reader that held the file read %q (%v), want what it opened, %q", b[:n], err, "two\n")
	}
}

// A file removed behind the Rewriter's back is written again.
func TestRewriterFileRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "state.json")
	r := &Rewriter{Path: path}
	defer r.Close()
	for i, v := range []string{"a\n", "b\n", "c\n"} {
		if i == 2 {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Write([]byte(v)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != v {
			t.Fatalf("the file = %q, %v; want %q", b, err, v)
		}
	}
}
