package proc

import (
	"log/slog"
	"syscall"
	"testing"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// discard is the log of the watch tests that expect no panic.
var discard = slog.New(slog.DiscardHandler)

// panicRawConn is a connection with a defect: a wait on it panics.
type panicRawConn struct{ syscall.RawConn }

func (panicRawConn) Read(func(uintptr) bool) error { panic("a defect in the exit wait") }

// A panic in exited (the watcher's code, on the goroutine Watch gives it)
// is the standard fatal ERROR record and exit 2, never a raw trace.
func TestExitedsPanicIsTheFatalRecord(t *testing.T) {
	supported(t)
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	cmd, id := child(t)
	stop, err := Watch(id, logx.New(&buf, slog.LevelInfo), func() { panic("a defect in exited") })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cmd.Process.Kill()
	fataltest.Wait(t, codes, buf.String, "a defect in exited")
}

// A panic while waiting for a process's end in Go's poller (a goroutine
// per watched process) is the standard fatal ERROR record and exit 2.
func TestTheWaitsPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	w := &watch{log: logx.New(&buf, slog.LevelInfo), exited: func() {}}
	go w.wait(panicRawConn{}, nil)
	fataltest.Wait(t, codes, buf.String, "a defect in the exit wait")
}

// A panic on the slow check's goroutine (here a nil watch in its set) is
// the standard fatal ERROR record and exit 2. The poller is the test's
// own, not the package's.
func TestTheSlowChecksPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	p := &poller{set: map[*watch]bool{nil: true}, running: true}
	go p.run(logx.New(&buf, slog.LevelInfo))
	fataltest.Wait(t, codes, buf.String, "nil pointer dereference")
}
