//go:build windows

package fsx

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// replaceFile renames over to. Go's os.Rename uses MoveFileEx with
// MOVEFILE_REPLACE_EXISTING, which fails while another process holds the
// destination open without FILE_SHARE_DELETE (the window reading
// state.json, a virus scanner); such a reader lets go within milliseconds,
// so the rename is retried for a short while.
func replaceFile(from, to string) error {
	var err error
	for delay := time.Millisecond; ; delay *= 2 {
		err = os.Rename(from, to)
		if err == nil || delay > 256*time.Millisecond ||
			!(errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)) {
			return err
		}
		time.Sleep(delay)
	}
}

// syncDir does nothing: Windows has no directory fsync, and NTFS journals
// the rename itself.
func syncDir(string) {}

// openShared opens a file for reading with FILE_SHARE_DELETE, which os.Open
// does not ask for: while a reader (the Follower, every beat) holds the
// file, another process's rename over it — the other host's atomic write,
// which may not retry as replaceFile does — still succeeds.
func openShared(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
