//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fsx

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes flock(LOCK_EX) without blocking, so Lock can give up
// after LockTimeout. flock locks belong to the open file, so two
// goroutines of one process exclude each other too.
func tryLock(f *os.File) (busy bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) || errors.Is(err, unix.EINTR) {
		return true, nil
	}
	return false, err
}

func unlockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
