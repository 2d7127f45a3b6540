//go:build unix

package fsx

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func isChmodUnsupported(error) bool { return false }

// syncDir makes the rename itself durable. Best effort: some file systems
// refuse fsync on a directory and the data is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Lock takes an exclusive lock on path (created if missing), blocking until
// it is free. flock locks belong to the open file, so two goroutines of one
// process exclude each other just as two processes do.
func Lock(path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() error {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return f.Close()
	}, nil
}
