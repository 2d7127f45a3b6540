//go:build unix

package fanout

import (
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// panicRawConn is a stream's descriptor with a defect: a write on it
// panics. (Where a write cannot skip blocking, every frame goes to the
// slow lane instead: these tests are for unix.)
type panicRawConn struct{ syscall.RawConn }

func (panicRawConn) Write(func(uintptr) bool) error { panic("a defect in a stream's descriptor") }

// A panic on one of the pool's writers (here while it writes a queued
// stream's frame) is the standard fatal ERROR record and exit 2.
func TestAWritersPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	h := New(logx.New(&buf, slog.LevelInfo), 0)
	h.pool.push(&stream{page: "board", raw: panicRawConn{}, pending: []byte("data: x\n\n"), busy: true})
	go h.writer()
	fataltest.Wait(t, codes, buf.String, "a defect in a stream's descriptor")
}

// A panic on the heartbeat (here while it beats a silent stream itself)
// is the standard fatal ERROR record and exit 2.
func TestTheHeartbeatsPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	h := New(logx.New(&buf, slog.LevelInfo), 0)
	h.mu.Lock()
	h.clients[&stream{page: "board", raw: panicRawConn{}}] = struct{}{}
	h.mu.Unlock()
	go h.heartbeat(time.Millisecond)
	fataltest.Wait(t, codes, buf.String, "a defect in a stream's descriptor")
}
