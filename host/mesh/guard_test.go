package mesh

import (
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// A NATS handler's panic (guard) is the standard fatal ERROR record and
// exit 2, in either build (TestAHandlerPanicOverNATS plays it over a real
// server under notch_hub).
func TestGuardedHandlerPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	guard(logx.New(&buf, slog.LevelInfo), func(*nats.Msg) { panic("a handler's defect") })(&nats.Msg{Subject: "x"})
	fataltest.Wait(t, codes, buf.String, "a handler's defect")
}
