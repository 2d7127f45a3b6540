package push

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/logx"
)

// lookingLease is how long a page's "I am being looked at" holds: the page
// says it again while it is (every lookingRenew), so a tab that died does
// not silence the pushes for longer than this.
const (
	lookingLease = 45 * time.Second
	lookingRenew = 15 * time.Second
	maxTabs      = 1024
)

// LookingRenew is how often a page that is being looked at says so again.
const LookingRenew = lookingRenew

// Bounds on delivery: a channel that stalls delays only itself, and at
// most queueLen operations wait for it (beyond that the oldest sends are
// dropped and logged).
const (
	sendTimeout = 10 * time.Second
	queueLen    = 64
)

// Options configure an Engine.
type Options struct {
	// Config is the channels file's (LoadConfig). Channels are made from it.
	Config Config
	// WebPush is the Web Push channel, nil for none. Its settings are
	// Config.WebPush's.
	WebPush Channel
	// Problem is what is wrong with the channels file, "" for nothing
	// (the pane shows it).
	Problem string
	// Extra channels beyond the file's, with their settings (tests).
	Extra []Configured
	// BoardURL is where a click on a message goes (the board, absolute).
	BoardURL string
	// ActURL is where an action button posts (absolute).
	ActURL string
	// Machine is this host's name on a hub, "" on a board of one machine.
	Machine string
	// Gap is the least time between two messages to one channel (what
	// comes due inside it goes as one summary); 0 is 3 s, negative none.
	Gap time.Duration
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
	// Log receives one record per message sent or withdrawn.
	Log *slog.Logger
}

// Configured is a channel with its settings.
type Configured struct {
	Channel Channel
	Config  ChannelConfig
}

// Engine watches the board and pushes per the rules.
type Engine struct {
	host  *host.Host
	opts  Options
	chans []Configured
	caps  *Caps
	log   *slog.Logger
	now   func() time.Time
	start time.Time

	mu      sync.Mutex
	looking map[string]time.Time // tab → lease end
	wake    chan struct{}

	queues []chan op
	sent   sync.Map // tests: counts per channel name
}

// New returns an engine for h's board. It sends nothing until Run.
func New(h *host.Host, o Options) *Engine {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{host: h, opts: o, log: o.Log, now: o.Now, looking: map[string]time.Time{}, wake: make(chan struct{}, 1)}
	e.caps = newCaps(o.Now)
	e.start = o.Now()
	if o.WebPush != nil {
		c := ChannelConfig{Send: []string{KindNeedsYou}}
		if o.Config.WebPush != nil {
			c = *o.Config.WebPush
		}
		e.chans = append(e.chans, Configured{Channel: o.WebPush, Config: c})
	}
	for _, n := range o.Config.Ntfy {
		e.chans = append(e.chans, Configured{Channel: NewNtfy(n, nil), Config: n.ChannelConfig})
	}
	for _, w := range o.Config.Webhooks {
		e.chans = append(e.chans, Configured{Channel: NewWebhook(w, nil), Config: w.ChannelConfig})
	}
	e.chans = append(e.chans, o.Extra...)
	return e
}

// Channels are the engine's channels, in order.
func (e *Engine) Channels() []Configured { return e.chans }

// Problem is what is wrong with the channels file, "" for nothing.
func (e *Engine) Problem() string { return e.opts.Problem }

// Looking records whether a board tab (tab: the page's own random id) is
// visible and focused. A page says so again every LookingRenew while it is.
func (e *Engine) Looking(tab string, on bool) {
	now := e.now()
	e.mu.Lock()
	if on {
		if _, ok := e.looking[tab]; ok || len(e.looking) < maxTabs {
			e.looking[tab] = now.Add(lookingLease)
		}
	} else {
		delete(e.looking, tab)
	}
	e.mu.Unlock()
	if !on {
		e.poke() // what came due while it was looked at stays seen
	}
}

// someoneLooking reports whether any tab's lease holds at now.
func (e *Engine) someoneLooking(now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for tab, end := range e.looking {
		if now.Before(end) {
			return true
		}
		delete(e.looking, tab)
	}
	return false
}

func (e *Engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Run applies the rules on every change of the board and when a message
// comes due, until ctx ends. With no channel it returns at once.
func (e *Engine) Run(ctx context.Context) error {
	if len(e.chans) == 0 {
		return nil
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	e.queues = make([]chan op, len(e.chans))
	for i := range e.chans {
		q := make(chan op, queueLen)
		e.queues[i] = q
		wg.Add(1)
		go func() { defer wg.Done(); e.deliver(ctx, i, q) }()
	}
	board := e.host.Board()
	changes, stop := board.Subscribe()
	defer stop()
	chans := make([]ChannelConfig, len(e.chans))
	for i, c := range e.chans {
		chans[i] = c.Config
	}
	r := newRules(e.opts.Config.Delay, e.start, chans, e.message)
	switch {
	case e.opts.Gap > 0:
		r.gap = e.opts.Gap
	case e.opts.Gap < 0:
		r.gap = 0
	}
	waiting := map[[2]string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		now := e.now()
		doc, unknown := board.View(now)
		var next time.Time
		if !unknown {
			cards := board.Cards()
			waiting = e.settleCards(cards, waiting)
			rows := rowsOf(doc, cards, e.opts.Machine, board.IsRemote)
			var ops []op
			ops, next = r.step(now, rows, e.someoneLooking(now))
			for _, o := range ops {
				e.enqueue(o)
			}
		}
		if !next.IsZero() {
			timer.Reset(max(next.Sub(e.now()), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			timer.Stop()
			for _, q := range e.queues {
				close(q)
			}
			return nil
		case <-changes:
		case <-e.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// settleCards tells the capabilities which cards stopped waiting.
func (e *Engine) settleCards(cards host.CardSet, was map[[2]string]bool) map[[2]string]bool {
	now := make(map[[2]string]bool, len(was))
	for _, c := range cards.Cards {
		if c.State == host.CardWaiting && c.Nonce != "" {
			now[[2]string{c.Session, c.Call}] = true
		}
	}
	for k := range was {
		if !now[k] {
			e.caps.settled(k[0], k[1])
		}
	}
	return now
}

// message builds the message for row in its kind's state.
func (e *Engine) message(row Row, kind string, now time.Time) Message {
	m := Message{Tag: row.ID, Kind: kind, Title: row.Title, Body: row.Body, URL: e.opts.BoardURL, At: now}
	if o := row.Offer; o != nil && kind == KindNeedsYou && e.opts.ActURL != "" {
		card := host.Card{Session: o.Session, Call: o.Call, Nonce: o.Nonce, Kind: o.Kind}
		m.Mint = func(recipient, device string) []Action {
			return e.caps.mint(card, recipient, device, e.opts.ActURL)
		}
	}
	return m
}

func (e *Engine) enqueue(o op) {
	q := e.queues[o.ch]
	select {
	case q <- o:
	default:
		e.log.Warn("a push channel is behind: an operation was dropped", "log_type", logx.TypePush,
			slog.Group("data", "channel", e.chans[o.ch].Channel.Name(), "rows", len(o.rows)))
	}
}

// deliver runs one channel's operations in order.
func (e *Engine) deliver(ctx context.Context, i int, q <-chan op) {
	ch := e.chans[i].Channel
	for o := range q {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
		start := e.now()
		var err error
		what, kind := "withdrawn", ""
		if o.msg != nil {
			what, kind = "sent", o.msg.Kind
			err = ch.Send(c, *o.msg)
		} else {
			err = ch.Withdraw(c, o.withdraw)
		}
		cancel()
		n, _ := e.sent.LoadOrStore(ch.Name(), new(int64))
		if err == nil {
			*n.(*int64)++
		}
		attrs := []any{"channel", ch.Name(), "kind", kind, "rows", o.rows, "tag", o.withdraw, "ms", e.now().Sub(start).Milliseconds()}
		if err != nil {
			e.log.Warn("push not "+what, "log_type", logx.TypePush, logx.Err("push", err), slog.Group("data", attrs...))
			continue
		}
		e.log.Info("push "+what, "log_type", logx.TypePush, slog.Group("data", attrs...))
	}
}

// From is where a push's button was pressed: the paired device the
// request comes from (its ID binds the capability, its Name is what the
// history keeps; both "" for none) and whether the request is local.
type From struct {
	Device, Name string
	Local        bool
}

// Act answers a permission card from a push's button: cap is the
// capability it carried, from where the button was pressed.
//
// The history keeps the paired device that pressed it, by its name now;
// with none known, the channel the button came through ("ntfy NAME",
// "webhook NAME": the capability was minted for it, and its app posts
// with no device), else nothing (Web Push on this computer's browser).
func (e *Engine) Act(cap string, from From) (host.Card, error) {
	req, answered, err := e.caps.use(cap, from.Device, from.Local)
	if err != nil {
		return host.Card{}, err
	}
	req.By = host.ByPush
	if from.Name != "" {
		req.Device = from.Name
	}
	// The host says why a card cannot be answered (answered in the
	// terminal 409; its agent ended or its row was closed 410): a press
	// it refuses spends nothing, so the next press is told the same.
	c, err := e.host.Answer(req)
	if err != nil {
		e.caps.refused(cap)
		if answered && errors.Is(err, host.ErrNonce) {
			err = host.ErrAnswered // the host has forgotten the card; we saw it answered
		}
		if final(err) {
			e.caps.settled(req.Session, req.Call)
		}
	}
	result := "answered"
	if err != nil {
		result = "refused"
	}
	e.log.Info("push button "+result, "log_type", logx.TypePush, slog.Group("data",
		"session", req.Session, "decision", req.Decision, "device", from.Device, "local", from.Local))
	return c, err
}

// final reports whether an answer's refusal means the card can no longer be
// answered (anywhere), rather than that this press could not be taken.
func final(err error) bool {
	return errors.Is(err, host.ErrAnswered) || errors.Is(err, host.ErrNotHeld) ||
		errors.Is(err, host.ErrAgentGone) || errors.Is(err, host.ErrNonce)
}

// Test sends a test message to every channel now, whatever its kinds and
// quiet hours, and reports each channel's result.
func (e *Engine) Test(ctx context.Context) []TestResult {
	return SendTest(ctx, e.chans, e.opts.BoardURL, e.now())
}

// TestResult is one channel's answer to a test.
type TestResult struct {
	Channel string
	Err     error
}

// SendTest sends a test message to each channel, all at once: the whole
// test takes at most sendTimeout however many channels stall.
func SendTest(ctx context.Context, chans []Configured, boardURL string, now time.Time) []TestResult {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	out := make([]TestResult, len(chans))
	var wg sync.WaitGroup
	for i, c := range chans {
		wg.Go(func() {
			err := c.Channel.Send(ctx, Message{Tag: "test", Kind: KindTest, Title: "notch-web", Body: "a test from notch-web: pushes reach you here", URL: boardURL, At: now})
			out[i] = TestResult{Channel: c.Channel.Name(), Err: err}
		})
	}
	wg.Wait()
	return out
}

// View is a channel as the pane shows it: never a token, a topic or a
// webhook's path (each is a secret), only where it goes.
type View struct {
	Name   string
	Type   string // "Web Push", "ntfy", "webhook (slack)" …
	Where  string // the server's host; "" for Web Push
	Send   []string
	Quiet  string // "22:00-07:00", "" for none
	Secret bool   // a token is set
}

// Views are the engine's channels as the pane shows them.
func (e *Engine) Views() []View {
	out := make([]View, 0, len(e.chans))
	for _, c := range e.chans {
		v := View{Name: c.Channel.Name(), Type: c.Channel.Name(), Send: c.Config.Send, Quiet: c.Config.Quiet.String()}
		switch ch := c.Channel.(type) {
		case *Ntfy:
			v.Type, v.Where, v.Secret = "ntfy", hostOf(ch.cfg.URL), ch.cfg.Token != ""
		case *Webhook:
			v.Type, v.Where = "webhook ("+ch.cfg.Shape+")", hostOf(ch.cfg.URL)
		default:
			if v.Name == "webpush" {
				v.Type = "Web Push"
			}
		}
		out = append(out, v)
	}
	return out
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
