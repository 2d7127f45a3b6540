//go:build unix

package store

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// A FIFO where the history's file goes is refused at once, in one line
// naming it, never waited on.
func TestOpenRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		s, err := Open(path, Options{})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, fsx.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "a FIFO") {
			t.Errorf("Open at a FIFO: %v, want one line naming it and saying it is a FIFO", err)
		}
	case <-time.After(30 * time.Second): // a guard, not the assertion
		t.Fatal("Open still waits on the FIFO")
	}
}
