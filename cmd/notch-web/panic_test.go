package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// A panic on the relay of the board's status-line wake-ups (the hooks'
// word and the hub link's, started per open board) is the standard fatal
// ERROR record and exit 2, never a raw trace. The defect here: the relay's
// out channel closed under it.
func TestTheHookWatchRelaysPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	out := make(chan struct{}, 1)
	close(out)
	in := make(chan struct{}, 1)
	in <- struct{}{}
	done := make(chan struct{})
	defer close(done)
	go relayWakes(logx.New(&buf, slog.LevelInfo), out, done, in, nil)
	fataltest.Wait(t, codes, buf.String, "send on closed channel")
}

// The profiles' listener ends with its context, with no goroutine of its
// own waiting for that (context.AfterFunc closes it).
func TestPprofEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- servePprof(ctx, "127.0.0.1:0") }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("servePprof: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("servePprof still serving 30 s after its context ended")
	}
}
