//go:build unix

package fdlimit

import "syscall"

// openFiles is the soft RLIMIT_NOFILE (Go raises it to the hard limit at
// start on Linux and macOS), or 0 when it cannot be read.
func openFiles() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return uint64(r.Cur)
}
