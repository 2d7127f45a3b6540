//go:build !unix

package claudecode

import "os"

// openNonBlocking is os.Open: ContextTokens has already refused anything
// that is not a regular file before it opens.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
