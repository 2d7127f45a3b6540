// Package tail reads the end of an agent's transcript, the one way every
// adapter does: bounded, whole lines, never blocking on a FIFO or device.
package tail

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Read reads the whole lines among the last maxTail bytes of the
// transcript at path: the one rule every transcript read of the adapters follows. It
// never fails loudly and never blocks: a path that is not an absolute
// .jsonl, a file that is not regular (a FIFO, a device: refused before and
// after opening it non-blocking), a read error, or one line longer than
// the tail is ok=false. A line cut by the tail's start is dropped.
func Read(path string, maxTail int64) ([]byte, bool) {
	if maxTail <= 0 || !filepath.IsAbs(path) || !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return nil, false
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	f, err := OpenNonBlocking(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	size := fi.Size()
	start := max(0, size-maxTail)
	// One byte before the tail tells whether its first line is whole.
	from := max(0, start-1)
	buf := make([]byte, size-from)
	n, err := f.ReadAt(buf, from)
	if err != nil && err != io.EOF {
		return nil, false
	}
	buf = buf[:n]
	if from < start {
		if len(buf) == 0 {
			return nil, false
		}
		whole := buf[0] == '\n'
		buf = buf[1:]
		if !whole {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				return nil, false // one line longer than the tail
			}
			buf = buf[i+1:]
		}
	}
	return buf, true
}
