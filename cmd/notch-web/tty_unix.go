//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// hasTermios asks f's descriptor for its terminal settings (req is the
// platform's get-termios ioctl): only a terminal has them. The descriptor
// is borrowed through SyscallConn, so f stays as it was.
func hasTermios(f *os.File, req uint) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), req)
		ok = err == nil
	})
	return ok
}
