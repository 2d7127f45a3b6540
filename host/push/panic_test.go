package push

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
)

// broken is a channel whose Send panics: a defect in a channel.
type broken struct{}

func (broken) Name() string                           { return "broken" }
func (broken) Send(context.Context, Message) error    { panic("a channel's defect") }
func (broken) Withdraw(context.Context, string) error { return nil }

// A panic in a channel's deliveries (its lane's goroutine) is the standard
// fatal ERROR record and exit 2, never a raw trace that takes the host down
// without a record.
func TestALanePanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	e := &Engine{log: logx.New(&buf, slog.LevelInfo), now: time.Now}
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	var wg sync.WaitGroup
	l := lane{key: "broken", ch: broken{}, q: make(chan op, 1)}
	e.startLane(context.Background(), &wg, l)
	l.q <- op{msg: &Message{Kind: KindTest}}
	fataltest.Wait(t, codes, buf.String, `a channel's defect`)
	wg.Wait()
	if !strings.Contains(buf.String(), "deliver") {
		t.Errorf("record lacks %s: %s", "deliver", buf.String())
	}
}

// The pane's test of the channels runs each channel on a goroutine of its
// own: a channel's panic there is the fatal record too.
func TestATestSendsPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	e := &Engine{log: logx.New(&buf, slog.LevelInfo), now: time.Now, chans: []Configured{{Channel: broken{}}}}
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	e.Test(context.Background())
	fataltest.Wait(t, codes, buf.String, "a channel's defect")
}
