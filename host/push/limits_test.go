package push

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/ledger"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
)

// limitRec is a channel that keeps what it was sent.
type limitRec struct {
	mu   sync.Mutex
	msgs []Message
	got  chan struct{}
}

func (r *limitRec) Name() string { return "rec" }
func (r *limitRec) Send(_ context.Context, m Message) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
	r.got <- struct{}{}
	return nil
}
func (r *limitRec) Withdraw(context.Context, string) error { return nil }

// A plan window crossing a level pushes once, to the channels that send
// limits (every channel by default), with the agent and window named; its
// end, once used up, says the agent can run again, as does the reset of
// a usage limit a session stopped on.
func TestLimitPushes(t *testing.T) {
	home := t.TempDir()
	h := host.New(host.Config{}, settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")}))
	rec := &limitRec{got: make(chan struct{}, 8)}
	quiet := &limitRec{got: make(chan struct{}, 8)}
	e := New(h, Options{Config: Config{Levels: map[string][]float64{"codex": {50}}}, BoardURL: "https://b/", Extra: []Configured{
		{Channel: rec, Config: ChannelConfig{Send: defaultSend}},
		{Channel: quiet, Config: ChannelConfig{Send: []string{KindNeedsYou}}},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	now := time.Now()
	l := h.Board().Ledger()
	l.Add(ledger.Reading{Agent: "codex", Window: "primary", Minutes: 300, UsedPct: 40, AsOf: now, ResetsAt: now.Add(time.Hour)}, now)
	l.Add(ledger.Reading{Agent: "codex", Window: "primary", Minutes: 300, UsedPct: 55, AsOf: now.Add(time.Second), ResetsAt: now.Add(time.Hour)}, now.Add(time.Second))
	l.Add(ledger.Reading{Agent: "codex", Window: "primary", Minutes: 300, UsedPct: 60, AsOf: now.Add(2 * time.Second), ResetsAt: now.Add(time.Hour)}, now.Add(2*time.Second))
	<-rec.got
	l.Add(ledger.Reading{Agent: "codex", Window: "secondary", Minutes: 10080, UsedPct: 100, AsOf: now, ResetsAt: now.Add(time.Minute)}, now)
	<-rec.got
	l.Step(now.Add(2 * time.Minute))
	<-rec.got
	// A session stopped on a usage limit that resets in 3 minutes.
	if !l.Stopped("codex", "", now.Add(3*time.Minute), now.Add(2*time.Minute)) {
		t.Fatal("the ledger did not take a session's limit")
	}
	l.Step(now.Add(4 * time.Minute))
	<-rec.got
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) != 4 {
		t.Fatalf("%d messages, want 4: %+v", len(rec.msgs), rec.msgs)
	}
	if m := rec.msgs[3]; m.Title != "Codex can run again" || m.Body != "the usage limit it stopped on has reset" || m.Tag != "limits:codex:::stopped" {
		t.Errorf("a session's limit's end: %+v", m)
	}
	if m := rec.msgs[0]; m.Kind != KindLimits || m.Title != "Codex: 5-hour window at 55%" || !strings.Contains(m.Body, "50%") {
		t.Errorf("the crossing's message: %+v", m)
	}
	if m := rec.msgs[2]; m.Title != "Codex can run again" || !strings.Contains(m.Body, "7-day") {
		t.Errorf("the end's message: %+v", m)
	}
	select {
	case <-quiet.got:
		t.Error("a channel that does not send limits got one")
	default:
	}
}

// A row that stopped on a usage limit with its reset (a real Claude Code
// StopFailure's words, "resets 2pm") is pushed "Claude Code can run again"
// at that reset, once, and nothing before it: the engine gives the
// ledger the row's why, and the ledger's step at the reset tells it.
func TestAUsageLimitsEndIsPushed(t *testing.T) {
	home := t.TempDir()
	h := host.New(host.Config{}, settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")}))
	rec := &limitRec{got: make(chan struct{}, 8)}
	e := New(h, Options{BoardURL: "https://b/", Extra: []Configured{{Channel: rec, Config: ChannelConfig{Send: []string{KindLimits}}}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	tr := filepath.Join(home, "s.jsonl")
	hook := func(event, extra string, at time.Time) {
		t.Helper()
		body := `{"session_id":"s1","transcript_path":"` + tr + `","cwd":"/src/neon","hook_event_name":"` + event + `"` + extra + `}`
		if _, err := h.Hook("claude-code", []byte(body), at); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	hook("SessionStart", `,"source":"startup"`, now)
	hook("UserPromptSubmit", `,"prompt":"go"`, now)
	// The next 2pm after now, in this machine's zone, as the agent said it.
	reset := time.Date(now.Year(), now.Month(), now.Day(), 14, 0, 0, 0, time.Local)
	if !reset.After(now) {
		reset = reset.AddDate(0, 0, 1)
	}
	hook("StopFailure", `,"error":"rate_limit","last_assistant_message":"API Error: 429 You've hit your limit · resets 2pm"`, now)
	l := h.Board().Ledger()
	waitfor.Until(t, "the ledger to hold the row's limit", func() bool { return l.NextChange(now).Equal(reset) })
	l.Step(reset.Add(-time.Second))
	l.Step(reset)
	l.Step(reset.Add(time.Minute))
	<-rec.got
	// One more push after it, so anything a second end would have sent
	// was sent before this arrives.
	l.Add(ledger.Reading{Agent: "codex", Window: "primary", UsedPct: 99, AsOf: now, ResetsAt: now.Add(time.Hour)}, now)
	<-rec.got
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) != 2 || rec.msgs[0].Title != "Claude Code can run again" || rec.msgs[0].Body != "the usage limit it stopped on has reset" ||
		!strings.HasPrefix(rec.msgs[1].Title, "Codex:") {
		t.Errorf("the pushes: %+v, want one end of Claude Code's limit, then Codex's level", rec.msgs)
	}
}
