package main

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal's two ends (Linux's /dev/ptmx).
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	fd := int(ptm.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	pts, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptm, pts
}

// TestIsTerminal: a terminal's descriptor is one; a pipe and a file are
// not; a writer that says so is believed.
func TestIsTerminal(t *testing.T) {
	_, pts := openPTY(t)
	if !isTerminal(pts) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, file := range map[string]*os.File{"a pipe": w, "a file": f} {
		if isTerminal(file) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
	if !isTerminal(new(tty)) || isTerminal(new(bytesWriter)) {
		t.Error("a writer's own word is not taken")
	}
}

type bytesWriter struct{}

func (*bytesWriter) Write(p []byte) (int, error) { return len(p), nil }
