package window

import (
	"bytes"
	"io"
	"os"
	"time"

	"github.com/notch-web/notch-web/internal/fsx"
)

// crashTail is how much of window-crash.log's end is read: the file is
// appended to forever, and only its last line is quoted.
const crashTail = 8 << 10

// maxCrashLine caps the quoted line, ellipses included (docs/window.md).
const maxCrashLine = 500

// fileMark is what a file looked like at one moment, so a later look can
// tell whether it was written in between. Comparing the file with itself,
// rather than its mtime with our clock, needs no agreement between the file
// system's clock and ours (or a test's fake one).
type fileMark struct {
	exists bool
	size   int64
	mtime  time.Time
}

func markFile(path string) fileMark {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return fileMark{}
	}
	return fileMark{exists: true, size: info.Size(), mtime: info.ModTime()}
}

// same reports whether two marks show the same file.
func (m fileMark) same(o fileMark) bool {
	return m.exists == o.exists && m.size == o.size && m.mtime.Equal(o.mtime)
}

// writtenSince reports whether the file at path was written after mark was
// taken.
func writtenSince(path string, mark fileMark) bool {
	now := markFile(path)
	return now.exists && !now.same(mark)
}

// crashLine returns the last line of the crash log, cleaned and capped, or
// "" when there is none. It reads only the file's tail.
func crashLine(path string) string {
	f, err := fsx.OpenRegular(path) // a FIFO there is refused, not waited on
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(info.Size()-crashTail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, off, crashTail))
	if err != nil {
		return ""
	}
	return lastLine(buf, off > 0)
}

// lastLine picks the last non-blank line of tail, the end of a file;
// truncated says the file goes on before tail, so a line that starts before
// it is marked as cut.
func lastLine(tail []byte, truncated bool) string {
	tail = bytes.TrimRight(tail, " \t\r\n")
	i := bytes.LastIndexByte(tail, '\n')
	line := tail[i+1:]
	if i < 0 && truncated {
		return ellipsis + clean(line, maxCrashLine-len(ellipsis))
	}
	return clean(line, maxCrashLine)
}
