//go:build unix

package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO, a device or a directory where a file of the host's is expected is
// refused at once, in one line naming the path and what is there, never
// waited on: opening a FIFO for reading blocks until a writer comes, and
// reading a device may never end.
func TestReadFileLimitRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "state.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(regular, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	linkToRegular := filepath.Join(dir, "dotfiles.json")
	if err := os.Symlink(regular, linkToRegular); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"a FIFO", fifo, "a FIFO"},
		{"a link to a FIFO", link, "a FIFO"},
		{"a device", "/dev/zero", "a device"},
		{"an empty device", "/dev/null", "a device"},
		{"a directory", dir, "a directory"},
		{"a regular file", regular, ""},
		{"a link to a regular file", linkToRegular, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.path); err != nil {
				t.Skipf("%s: %v", c.path, err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := ReadFileLimit(c.path, 1<<20)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second): // a guard, not the assertion
				t.Fatalf("ReadFileLimit(%s) still waits", c.path)
			}
			if c.want == "" {
				if err != nil {
					t.Fatalf("a regular file: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) ||
				strings.Contains(err.Error(), "\n") {
				t.Errorf("ReadFileLimit(%s) = %v; want one line naming it, %q and ErrNotRegular", c.path, err, c.want)
			}
		})
	}
}
