package mesh

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/internal/logx"
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
	if c := <-codes; c != 2 {
		t.Fatalf("exit %d, want 2", c)
	}
	for _, want := range []string{`"fatal":true`, `"name":"Panic"`, "a handler's defect"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("record lacks %s: %s", want, buf.String())
		}
	}
}
