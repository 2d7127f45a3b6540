//go:build !unix && !windows

package fsx

import "os"

func replaceFile(from, to string) error { return os.Rename(from, to) }
