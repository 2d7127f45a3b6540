package claudecode

import "github.com/notch-web/notch-web/adapters/internal/tail"

// openNonBlocking is tail.OpenNonBlocking: a FIFO with no writer would
// block a plain open forever.
var openNonBlocking = tail.OpenNonBlocking
