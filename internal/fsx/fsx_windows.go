//go:build windows

package fsx

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

func isChmodUnsupported(error) bool { return true }

// syncDir is a no-op: Windows cannot open a directory for FlushFileBuffers
// through os.Open, and MoveFileEx with MOVEFILE_REPLACE_EXISTING (what
// os.Rename uses) is already the atomic replace.
func syncDir(string) {}

// Lock takes an exclusive lock on path (created if missing), blocking until
// it is free.
func Lock(path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	ol := new(windows.Overlapped)
	h := windows.Handle(f.Fd())
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() error {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		return f.Close()
	}, nil
}
