//go:build !windows

package fsx

import "os"

// syncDir makes a rename durable: on POSIX systems the directory entry is
// only on disk once the directory itself is synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// openShared is os.Open: POSIX renames never wait for readers.
func openShared(path string) (*os.File, error) { return os.Open(path) }
