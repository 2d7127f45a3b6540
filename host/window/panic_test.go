package window

import (
	"context"
	"log/slog"
	"testing"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// panicky is a handler that panics on the window's output records (a
// defect met while logging the window's output) and writes the rest.
type panicky struct{ slog.Handler }

func (p panicky) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "window-output" {
		panic("a defect on the window's output")
	}
	return p.Handler.Handle(ctx, r)
}

// A panic while the window's output is read (on os/exec's goroutine) is
// the standard fatal ERROR record and exit 2, never a raw trace.
func TestOutputPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	w := newLineWriter(slog.New(panicky{logx.New(&buf, slog.LevelDebug).Handler()}), "stderr")
	w.started(77)
	done := make(chan struct{})
	go func() { defer close(done); _, _ = w.Write([]byte("a line\n")) }()
	<-done
	fataltest.Wait(t, codes, buf.String, "a defect on the window's output")
}
