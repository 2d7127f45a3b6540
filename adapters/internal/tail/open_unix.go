//go:build unix

package tail

import (
	"os"
	"syscall"
)

// OpenNonBlocking opens path for reading without waiting on it: a FIFO with
// no writer would block a plain open forever.
func OpenNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
