package logx

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// MaxRecord is the standard record's bound: one line of at most 65,536
// bytes, its newline included (standard-log-record.v1).
const MaxRecord = 65536

// Cuts of a record that would pass MaxRecord: its message, its error's
// message and stack are cut to these, its data replaced by a note of its
// size. Together they fit far inside MaxRecord.
const (
	maxCutMessage = 8 << 10
	maxCutStack   = 16 << 10
)

// capWriter keeps every record within MaxRecord. slog's JSON handler writes
// one record per Write; a record too large is written again cut: the
// standard fields kept, message and error cut, data replaced by
// {"truncated": true, "bytes": N}, other attributes left out.
type capWriter struct{ w io.Writer }

func (c capWriter) Write(p []byte) (int, error) {
	if len(p) <= MaxRecord {
		return c.w.Write(p)
	}
	if _, err := c.w.Write(cutRecord(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cutRecord is a too-large record made to fit. The cuts bound bytes of
// text, and JSON may write a byte as six ("<" is \u003c, a control
// character \u0001): a record still too large once cut is cut again to
// half, until it fits (at worst its message and error are empty).
func cutRecord(p []byte) []byte {
	var rec map[string]json.RawMessage
	_ = json.Unmarshal(p, &rec) // the handler's own JSON; nil on the impossible
	for msgLim, stackLim := maxCutMessage, maxCutStack; ; msgLim, stackLim = msgLim/2, stackLim/2 {
		b := cutTo(rec, len(p), msgLim, stackLim)
		if len(b) <= MaxRecord || (msgLim == 0 && stackLim == 0) {
			return b
		}
	}
}

// cutTo is rec, a record of size bytes, with its message and error's
// message cut to msgLim bytes and its stack to stackLim.
func cutTo(rec map[string]json.RawMessage, size, msgLim, stackLim int) []byte {
	out := map[string]any{"truncated": map[string]any{"bytes": size}}
	for _, k := range []string{"timestamp", "level", typeKey, "operation_id", "event_id", "fatal"} {
		if v, ok := rec[k]; ok && len(v) <= 1024 {
			out[k] = v
		}
	}
	var msg string
	_ = json.Unmarshal(rec["message"], &msg)
	out["message"] = cut(msg, msgLim)
	if v, ok := rec["error"]; ok {
		var e map[string]any
		if json.Unmarshal(v, &e) == nil {
			small := map[string]any{}
			for k, lim := range map[string]int{"name": 256, "message": msgLim, "stack": stackLim} {
				if s, ok := e[k].(string); ok {
					small[k] = cut(s, lim)
				}
			}
			out["error"] = small
		}
	}
	if v, ok := rec["data"]; ok {
		out["data"] = map[string]any{"truncated": true, "bytes": len(v)}
	}
	for _, k := range []string{"timestamp", "level", typeKey} {
		if _, ok := out[k]; !ok {
			out[k] = "" // never: the handler writes them all
		}
	}
	b, _ := json.Marshal(out)
	return append(b, '\n')
}

// typeKey is the record's log_type key.
const typeKey = "log_type"

// cut bounds s to n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Recover, deferred as `defer logx.Recover(log, os.Exit)()` at the top of
// a goroutine or a handler, turns a panic into the standard fatal ERROR
// record — level ERROR, fatal true, error {name "Panic", message, stack} —
// and then calls exit(2): a panic is a defect, and the standard's global
// handler neither swallows it nor keeps a corrupted process alive. Without
// a panic it does nothing.
func Recover(log *slog.Logger, exit func(code int)) func() {
	return func() {
		v := recover()
		if v == nil {
			return
		}
		Fatal(log, v, debug.Stack())
		exit(2)
	}
}

// Fatal writes the standard fatal ERROR record of a panic with value v.
func Fatal(log *slog.Logger, v any, stack []byte) {
	msg := fmt.Sprint(v)
	log.Error("panic: "+cut(msg, 1000), "log_type", TypeHost, "fatal", true,
		slog.Group("error", slog.String("name", "Panic"), slog.String("message", msg), slog.String("stack", cut(string(stack), maxCutStack))))
}

// Go runs f in g as g.Go does, a panic in it the standard fatal record and
// an exit (Recover): a goroutine's panic is never a raw trace.
func Go(g *errgroup.Group, log *slog.Logger, f func() error) {
	g.Go(func() error {
		defer Guard(log)()
		return f()
	})
}

// Guard is Recover with Exit: `defer logx.Guard(log)()` at the top of a
// goroutine the host starts on its own (a channel's deliveries, the mesh's
// watchers, a NATS handler) makes its panic the standard fatal record and
// exit 2.
func Guard(log *slog.Logger) func() { return Recover(log, Exit) }

// exitFn is what Exit calls: os.Exit, or a test's stand-in (SetExit).
var exitFn atomic.Pointer[func(int)]

// Exit ends the process with code after a recovered panic: os.Exit, unless
// a test has put a stand-in (SetExit).
func Exit(code int) {
	if f := exitFn.Load(); f != nil {
		(*f)(code)
		return
	}
	os.Exit(code)
}

// SetExit makes Exit call f until the returned restore is called: a test's
// way to see a goroutine's panic become the fatal record without ending
// the test binary. After f returns, the panicking goroutine ends.
func SetExit(f func(int)) (restore func()) {
	old := exitFn.Swap(&f)
	return func() { exitFn.Store(old) }
}
