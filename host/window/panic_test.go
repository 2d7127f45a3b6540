package window

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/logx"
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
	if c := <-codes; c != 2 {
		t.Fatalf("exit %d, want 2", c)
	}
	for _, want := range []string{`"level":"ERROR"`, `"fatal":true`, `"name":"Panic"`, "a defect on the window's output"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("record lacks %s: %s", want, buf.String())
		}
	}
}
