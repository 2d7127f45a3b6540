//go:build unix

package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// A settings.json that is a FIFO (or a device) is refused at once with its
// reason, never read nor waited on, and nothing is kept aside: a write
// that would keep its bytes first (keepCopy) refuses it too, should one
// take the file's place between the look and the copy.
func TestStoreRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	s := NewStore(path)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			_, err := s.Apply(Change{Set: Partial{"scale": 1.5}})
			if err == nil || !strings.Contains(err.Error(), "a FIFO") || !errors.Is(err, fsx.ErrNotRegular) {
				t.Errorf("Apply into a FIFO: %v, want an error saying it is a FIFO", err)
			}
		}
		if _, warns := s.Load(); len(warns) != 1 || !strings.Contains(warns[0].Message, "a FIFO") {
			t.Errorf("Load warnings %v, want one saying it is a FIFO", warns)
		}
		if err := keepCopy(path, path+".bad-1", nil); !errors.Is(err, fsx.ErrNotRegular) {
			t.Errorf("keepCopy of a FIFO: %v, want ErrNotRegular", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a guard, not the assertion
		t.Fatal("the store still waits on the FIFO")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "settings.json" && e.Name() != "settings.json.lock" {
			t.Errorf("left %s behind", e.Name())
		}
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}
