package host

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/logx/fataltest"
	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// brokenRemote is awayRemote whose Has panics once armed: a defect met on
// the goroutine that waits for a closed-out remote row.
type brokenRemote struct {
	awayRemote
	armed atomic.Bool
}

func (r *brokenRemote) Has(id string) bool {
	if r.armed.Load() {
		panic("a defect looking up " + id)
	}
	return r.awayRemote.Has(id)
}

// A panic on the goroutine that waits for a remote row a ✕ closed out
// (started by watchMarks, not by Run's group) is the standard fatal ERROR
// record and exit 2, never a raw trace.
func TestAMarkWaitersPanicIsTheFatalRecord(t *testing.T) {
	home := t.TempDir()
	manual := filepath.Join(home, "manual.json")
	if err := state.MergeMark(manual, "box/s1", state.Mark{State: state.MarkFinished, At: time.Now().UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	r := &brokenRemote{}
	h := New(Config{
		StatePath: filepath.Join(home, "state.json"), ManualPath: manual, Remote: r,
		Log: logx.New(&buf, slog.LevelInfo),
	}, settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitfor.Until(t, "the host to have read manual.json", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.consulted > 0 })
	r.armed.Store(true)
	r.back(state.Session{ID: "box/s2", Status: state.StatusWorking})
	if c := <-codes; c != 2 {
		t.Fatalf("exit %d, want 2", c)
	}
	for _, want := range []string{`"level":"ERROR"`, `"fatal":true`, `"name":"Panic"`, "a defect looking up box/s1"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("record lacks %s: %s", want, buf.String())
		}
	}
}

// panicsOn is a log handler that panics on the records whose message is
// msg (a defect met while the host writes that record) and writes the rest.
type panicsOn struct {
	slog.Handler
	msg string
}

func (p panicsOn) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == p.msg {
		panic("a defect writing: " + r.Message)
	}
	return p.Handler.Handle(ctx, r)
}

func (p panicsOn) WithAttrs(as []slog.Attr) slog.Handler {
	return panicsOn{p.Handler.WithAttrs(as), p.msg}
}

func (p panicsOn) WithGroup(name string) slog.Handler {
	return panicsOn{p.Handler.WithGroup(name), p.msg}
}

// A panic while a row is settled after its agent's process ended (on the
// exit grace's timer goroutine, started by the process watch) is the
// standard fatal ERROR record and exit 2, never a raw trace.
func TestAProcessEndsPanicIsTheFatalRecord(t *testing.T) {
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	const settled = "the agent's process ended without a word; its row is settled"
	e := newApEnvLog(t, ApprovalConfig{}, func(w io.Writer) slog.Handler {
		return panicsOn{slog.NewJSONHandler(w, nil), settled}
	})
	agent, id := agentChild(t)
	e.hookAs(t, id, e.hook("SessionStart", `,"source":"startup"`))
	e.send(t, e.hook("UserPromptSubmit", `,"prompt":"go"`))
	waitStatus(t, e, "s1", state.StatusWorking)
	agent.Process.Kill()
	fataltest.Wait(t, codes, e.logText, "a defect writing: "+settled)
}

// A panic while an answered card's linger ends (on its timer's goroutine)
// is the standard fatal ERROR record and exit 2. The defect here: the
// registry's clock, read when the card's nonce is remembered.
func TestALingersPanicIsTheFatalRecord(t *testing.T) {
	var buf syncbuf.Buffer
	codes := make(chan int, 1)
	defer logx.SetExit(func(c int) { codes <- c })()
	a := newApprovals(ApprovalConfig{Linger: time.Millisecond}, nil, logx.New(&buf, slog.LevelInfo))
	a.now = func() time.Time { panic("a defect reading the clock") }
	e := &entry{Card: Card{Key: "k1", Nonce: "n1", State: CardAnswered}}
	a.mu.Lock()
	a.cards[e.Key], a.byNonce[e.Nonce] = e, e
	a.linger(e)
	a.mu.Unlock()
	fataltest.Wait(t, codes, buf.String, "a defect reading the clock")
}
