package fsx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

var (
	// ErrLockTimeout: Lock could not take the lock within LockTimeout.
	ErrLockTimeout = errors.New("lock file: timed out")
	// ErrLockUnsupported: this platform has no file lock Lock can use.
	ErrLockUnsupported = errors.New("lock file: unsupported on this platform")
)

// LockTimeout is how long Lock waits for another holder before giving up:
// the lock guards millisecond read-modify-writes, so a longer wait means a
// wedged holder, and a request should fail rather than hang.
const LockTimeout = 10 * time.Second

// lockTimeout is LockTimeout, shortened by the test of the timeout.
var lockTimeout = LockTimeout

// Lock takes an exclusive lock on path (creating it, and its directory, if
// missing) and returns the function that releases it; a second call of that
// function fails. The lock is advisory and between processes as well as
// goroutines: flock on Unix, LockFileEx on Windows, each on its own open
// file. It is meant for a sidecar like "manual.json.lock" guarding a
// read-modify-write of manual.json; the lock file itself is left in place,
// because deleting it would race with the next locker. It waits up to
// LockTimeout, then fails with ErrLockTimeout.
func Lock(path string) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	deadline := time.Now().Add(lockTimeout)
	for delay := 100 * time.Microsecond; ; delay = min(2*delay, 20*time.Millisecond) {
		busy, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !busy {
			break
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w after %v", path, ErrLockTimeout, lockTimeout)
		}
		time.Sleep(delay)
	}
	var once sync.Once
	return func() error {
		err := fmt.Errorf("unlocking %s: already unlocked", path)
		once.Do(func() {
			err = unlockFile(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		})
		return err
	}, nil
}
