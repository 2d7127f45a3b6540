package tlsmux

import (
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// panicListener is a listener with a defect: its Accept panics.
type panicListener struct{ net.Listener }

func (panicListener) Accept() (net.Conn, error) { panic("a defect in the accept loop") }

// onceListener hands out one connection, then blocks until closed.
type onceListener struct {
	net.Listener
	c    chan net.Conn
	done chan struct{}
}

func (l *onceListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.c:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *onceListener) Close() error { close(l.done); return nil }

// deadlinePanics is a connection with a defect: setting its read deadline
// (the sniff's first act) panics.
type deadlinePanics struct{ net.Conn }

func (deadlinePanics) SetReadDeadline(time.Time) error { panic("a defect in a connection's sniff") }

// A panic on the accept loop (the listener's own goroutine) is the standard
// fatal ERROR record and exit 2, never a raw trace.
func TestAcceptLoopsPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	l := New(panicListener{}, testConfig(t), logx.New(&buf, slog.LevelInfo))
	defer l.once.Do(func() { close(l.done) })
	fataltest.Wait(t, codes, buf.String, "a defect in the accept loop")
}

// A panic while a connection's first byte is sniffed (a goroutine per
// connection) is the standard fatal ERROR record and exit 2.
func TestSniffsPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ol := &onceListener{c: make(chan net.Conn, 1), done: make(chan struct{})}
	ol.c <- deadlinePanics{a}
	l := New(ol, testConfig(t), logx.New(&buf, slog.LevelInfo))
	defer l.Close()
	fataltest.Wait(t, codes, buf.String, "a defect in a connection's sniff")
}
