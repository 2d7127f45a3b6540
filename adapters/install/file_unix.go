//go:build unix

package install

import (
	"os"
	"syscall"
)

// openNonBlocking opens a file for reading without waiting: opening a FIFO
// for reading otherwise blocks until a writer comes.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
