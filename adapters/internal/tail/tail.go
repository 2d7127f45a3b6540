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

// Limits bound a Lines walk: by entries, not by a byte window that one
// long line could fill.
type Limits struct {
	MaxLines int   // lines looked at, passed-over ones included
	MaxBytes int64 // bytes read in all
	MaxLine  int   // a longer line is passed over unread
}

// DefaultLimits: 256 lines, 8 MiB, lines up to 1 MiB. A transcript's
// latest entries are small; a line of a megabyte (a snapshot of the
// prompt, a tool's big output) is passed over, not allowed to hide them.
var DefaultLimits = Limits{MaxLines: 256, MaxBytes: 8 << 20, MaxLine: 1 << 20}

// chunk is how much Lines reads at a time, from the end back.
const chunk = 64 << 10

// Lines calls fn with the transcript's lines from the last back to the
// first, until fn returns false or a limit is reached; a line longer than
// MaxLine counts but is not read into memory whole, and fn does not see
// it. The slice fn gets is valid only during the call. The checks are
// Read's (an absolute .jsonl, a regular file, never blocking); it reports
// false when the file could not be read at all.
func Lines(path string, lim Limits, fn func(line []byte) bool) bool {
	if lim.MaxLines <= 0 || lim.MaxBytes <= 0 || lim.MaxLine <= 0 ||
		!filepath.IsAbs(path) || !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := OpenNonBlocking(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	var (
		pos   = fi.Size()
		read  int64
		lines int
		part  []byte // the end of the line being gathered (its start is further back)
		long  bool   // the line being gathered is longer than MaxLine
		buf   = make([]byte, chunk)
	)
	emit := func(line []byte) bool {
		lines++
		if long {
			return lines < lim.MaxLines
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > 0 && !fn(line) {
			return false
		}
		return lines < lim.MaxLines
	}
	for pos > 0 && read < lim.MaxBytes {
		n := min(int64(chunk), pos, lim.MaxBytes-read)
		pos -= n
		b := buf[:n]
		if _, err := f.ReadAt(b, pos); err != nil && err != io.EOF {
			return false
		}
		read += n
		for {
			i := bytes.LastIndexByte(b, '\n')
			if i < 0 {
				break
			}
			if len(b[i+1:])+len(part) > lim.MaxLine {
				long = true
			}
			var line []byte
			if !long {
				line = append(append([]byte(nil), b[i+1:]...), part...)
			}
			if len(b[i+1:])+len(part) > 0 || long {
				if !emit(line) {
					return true
				}
			}
			part, long, b = nil, false, b[:i]
		}
		if !long {
			part = append(append([]byte(nil), b...), part...)
			if len(part) > lim.MaxLine {
				part, long = nil, true
			}
		}
	}
	// The line the walk stopped in is whole if it starts the file or
	// follows a newline.
	if pos > 0 && len(part) > 0 {
		var before [1]byte
		if _, err := f.ReadAt(before[:], pos-1); err == nil && before[0] == '\n' {
			emit(part)
		}
	} else if pos == 0 && (len(part) > 0 || long) {
		emit(part)
	}
	return true
}
