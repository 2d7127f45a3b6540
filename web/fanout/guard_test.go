package fanout

import (
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// panicConn is a stream's connection with a defect: setting its deadline
// panics.
type panicConn struct{ net.Conn }

func (panicConn) SetWriteDeadline(time.Time) error { panic("a defect in a stream's connection") }

// A panic on one of the fan-out's own goroutines (here a slow lane, which
// writes a full socket's rest) is the standard fatal ERROR record and exit
// 2, never a raw trace that ends the host without a record.
func TestASlowLanesPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	h := New(logx.New(&buf, slog.LevelInfo), 0)
	go h.slowLane(&stream{page: "board", conn: panicConn{}}, []byte("data: x\n\n"))
	fataltest.Wait(t, codes, buf.String, "a defect in a stream's connection")
}
