//go:build !unix

package install

import "os"

// openNonBlocking is os.Open: readFile has looked first, and there is no
// FIFO in the file system to wait on.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
