//go:build unix

package fsx

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The umask narrows a new file's mode, and the write leaves out the fchmod
// once a directory's first file came out exact: under a umask of 077 every
// file is still 0644 (the window may be another user), and a private one
// 0600; under 022 as well, the second write included.
func TestWriteFileAtomicModeWhateverTheUmask(t *testing.T) {
	for _, mask := range []int{0o077, 0o022, 0o000} {
		old := syscall.Umask(mask)
		for _, w := range []struct {
			write func(string, []byte) error
			perm  os.FileMode
		}{{WriteFileAtomicNoSync, 0o644}, {WriteFileAtomic, 0o644}, {WriteFilePrivate, 0o600}} {
			path := filepath.Join(t.TempDir(), "state.json")
			for i := range 2 {
				if err := w.write(path, []byte("x")); err != nil {
					t.Fatal(err)
				}
				info, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if info.Mode().Perm() != w.perm {
					t.Errorf("umask %03o, write %d: mode %v, want %v", mask, i+1, info.Mode().Perm(), w.perm)
				}
			}
		}
		syscall.Umask(old)
	}
}

// Temporary files are named for their writer (tempPrefix, the pid, "-"),
// so RemoveStaleTemps can tell a killed writer's; one already in the way
// (an earlier process with this pid) is stepped over, not overwritten.
func TestWriteFileAtomicStepsOverATempInTheWay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	next := tempSeq.Load() + 1
	seedSeq.Do(func() {}) // the sequence is where it is: the next name is next's
	inTheWay := filepath.Join(dir, tempPrefix(path)+pid+"-"+itoa(next))
	if err := os.WriteFile(inTheWay, []byte("someone else's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomicNoSync(path, []byte("mine")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(inTheWay); err != nil || string(b) != "someone else's" {
		t.Errorf("the temp in the way = %q, %v; want it untouched", b, err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "mine" {
		t.Errorf("state.json = %q, %v", b, err)
	}
	for _, n := range dirNames(t, dir) {
		if n != "state.json" && n != filepath.Base(inTheWay) && strings.HasPrefix(n, tempPrefix(path)) {
			t.Errorf("a temp left behind: %s", n)
		}
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func inode(info os.FileInfo) uint64 { return info.Sys().(*syscall.Stat_t).Ino }
