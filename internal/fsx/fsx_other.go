//go:build !windows

package fsx

import (
	"os"
	"syscall"
)

// syncDir makes a rename durable: on POSIX systems the directory entry is
// only on disk once the directory itself is synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// openShared opens path for reading (POSIX renames never wait for readers)
// without waiting on it: a FIFO with no writer would block a plain open
// forever (OpenRegular refuses it once open).
func openShared(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
