package window

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// maxOutputLine caps one line of the window's stdout or stderr in the log.
const maxOutputLine = 1000

// clean makes bytes from outside (the window's output, its crash log, a
// quit.json value) safe for one log field: valid UTF-8, tabs as spaces,
// every character internal/textrule hides (control, bidi, zero-width)
// removed (an escape sequence loses its ESC and so does nothing), trimmed,
// and at most limit bytes in all, ending with "…" when cut.
func clean(b []byte, limit int) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		switch {
		case r == '\t':
			r = ' '
		case textrule.Hidden(r):
			continue
		}
		if sb.Len()+utf8.RuneLen(r) > limit {
			return cut(sb.String(), limit)
		}
		sb.WriteRune(r)
	}
	return strings.TrimSpace(sb.String())
}

// ellipsis marks a cut.
const ellipsis = "…"

// cut is s (at most limit bytes, whole runes) trimmed and ended with the
// ellipsis, in at most limit bytes.
func cut(s string, limit int) string {
	s = strings.TrimSpace(s)
	for len(s)+len(ellipsis) > limit && len(s) > 0 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return strings.TrimSpace(s) + ellipsis
}

// lineWriter turns one of the window's output streams into DEBUG records,
// one per line. It holds at most one capped line: the rest of an overlong
// line is dropped.
type lineWriter struct {
	log    *slog.Logger
	stream string
	pid    int           // set by started
	known  chan struct{} // closed by started

	mu       sync.Mutex
	buf      []byte
	overlong bool // the current line passed the cap; drop until its end
}

func newLineWriter(log *slog.Logger, stream string) *lineWriter {
	return &lineWriter{log: log, stream: stream, known: make(chan struct{})}
}

// started tells the writer the window's pid. exec.Cmd starts copying the
// window's output as soon as the process exists, before Start returns the
// pid to us; the copying waits here until then.
func (w *lineWriter) started(pid int) {
	w.pid = pid
	close(w.known)
}

// Write runs on os/exec's copying goroutine, which recovers nothing: a panic
// in it (the window's output is outside input) is the standard fatal
// record and exit 2 (logx.Guard), never a raw trace.
func (w *lineWriter) Write(p []byte) (int, error) {
	defer logx.Guard(w.log)()
	<-w.known
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.overlong {
			room := maxOutputLine + 1 - len(w.buf) // one byte over the cap marks the cut
			if len(chunk) > room {
				w.buf = append(w.buf, chunk[:room]...)
				w.overlong = true
			} else {
				w.buf = append(w.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		w.emit()
		p = p[i+1:]
	}
	return n, nil
}

// flush logs a last line that had no newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 || w.overlong {
		w.emit()
	}
}

func (w *lineWriter) emit() {
	line := w.buf
	w.buf, w.overlong = w.buf[:0], false
	if !w.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	text := clean(line, maxOutputLine)
	if text == "" {
		return
	}
	w.log.Debug("window-output", "log_type", LogType,
		slog.Group("data", "pid", w.pid, "stream", w.stream, "line", text))
}
