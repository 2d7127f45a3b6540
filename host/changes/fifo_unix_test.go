//go:build unix

package changes

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A tracked file replaced by a FIFO is dirty at a session's start: its
// start point is recorded at once (the FIFO's size and time, never its
// content), where opening it for its hash waited for a writer for ever.
func TestRecordNeverWaitsOnAFIFO(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	r.commit("one")
	p := filepath.Join(r.dir, "a.go")
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	var s Start
	go func() {
		var err error
		s, err = Git{}.Record(context.Background(), r.dir)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second): // a guard, not the assertion
		t.Fatal("Record still waits on the FIFO")
	}
	if got, ok := s.Dirty["a.go"]; !ok || got == "absent" || len(got) > 7 && got[:7] == "sha256:" {
		t.Errorf("a.go at the start: %q (listed %v), want its stamp", got, ok)
	}
}
