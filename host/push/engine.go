package push

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/ledger"
	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/notify"
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
	// Config is the channels (LoadConfig's) when ConfigPath is "".
	Config Config
	// WebPush is the Web Push channel, nil for none. Its settings are
	// Config.WebPush's.
	WebPush Channel
	// Problem is what is wrong with Config, "" for nothing (the pane
	// shows it), when ConfigPath is "".
	Problem string
	// ConfigPath is the channels file: New reads it and Run follows it (a
	// change applies at once; a file that does not parse keeps the last
	// good channels and Problem says why); "" is Config, unchanging.
	ConfigPath string
	// Extra channels beyond the file's, with their settings (tests).
	Extra []Configured
	// BoardURL is where a click on a message goes (the board, absolute).
	BoardURL string
	// ActURL is where an action button posts (absolute).
	ActURL string
	// MayAnswer reports whether the paired device of the id may answer
	// now (its role: security.RoleAnswer or more); nil lets every device.
	// A push to a device that may not carries no action, and a capability
	// minted for one, or pressed from one, is refused at the press
	// (ErrCapRole) — a role lowered after the push was sent counts.
	MayAnswer func(device string) bool
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
	caps  *Caps
	log   *slog.Logger
	now   func() time.Time
	start time.Time

	mu      sync.Mutex
	looking map[string]time.Time // tab → lease end
	wake    chan struct{}

	// The channels as the file last read well says, guarded by cfgMu;
	// Run picks a change up through reconf.
	cfgMu   sync.Mutex
	cfg     Config
	chans   []Configured
	keys    []string // each channel's identity (channelKey)
	problem string
	good    bool   // cfg is the file's as read now (or there is none)
	last    Config // the file's last good channels, kept while it does not parse
	hadGood bool   // last is set
	version atomic.Uint64
	changes notify.Broadcast
	reconf  chan struct{}

	sent sync.Map // tests: counts per channel name

	// limits are the ledger's events (a level crossed, a limit ended)
	// waiting for Run to send them.
	limits chan ledger.Event
}

// New returns an engine for h's board. It sends nothing until Run.
func New(h *host.Host, o Options) *Engine {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{host: h, opts: o, log: o.Log, now: o.Now, looking: map[string]time.Time{},
		wake: make(chan struct{}, 1), reconf: make(chan struct{}, 1)}
	e.caps = newCaps(o.Now)
	e.limits = make(chan ledger.Event, 32)
	h.Board().SetLedgerEvents(e.ledgerEvent)
	e.start = o.Now()
	if o.ConfigPath != "" {
		e.reload()
	} else {
		e.configure(o.Config, o.Problem, true)
	}
	return e
}

// channelKey is what makes a channel the same one across a change of the
// file: its type, name and where it sends (a change of its kinds or quiet
// hours keeps it, with what it has sent; a new URL, token or shape is a
// new channel). Web Push is one channel for the engine's life.
func channelKey(c Channel) string {
	switch ch := c.(type) {
	case *Ntfy:
		return "ntfy\x00" + ch.cfg.Name + "\x00" + ch.cfg.URL + "\x00" + ch.cfg.Token
	case *Webhook:
		return "webhook\x00" + ch.cfg.Name + "\x00" + ch.cfg.URL + "\x00" + ch.cfg.Shape
	}
	return "webpush"
}

// configure makes the channels of cfg (keeping each that is unchanged, so
// what it sent can still be withdrawn), with problem for the pane; good
// says cfg is the file's (not a fallback). Run picks it up.
func (e *Engine) configure(cfg Config, problem string, good bool) {
	e.cfgMu.Lock()
	defer e.cfgMu.Unlock()
	have := map[string]Channel{}
	for i, c := range e.chans {
		have[e.keys[i]] = c.Channel
	}
	var chans []Configured
	var keys []string
	add := func(key string, c Channel, cc ChannelConfig) {
		if old, ok := have[key]; ok {
			c = old
		}
		chans, keys = append(chans, Configured{Channel: c, Config: cc}), append(keys, key)
	}
	if e.opts.WebPush != nil {
		c := ChannelConfig{Send: slices.Clone(defaultSend)}
		if cfg.WebPush != nil {
			c = *cfg.WebPush
		}
		add("webpush", e.opts.WebPush, c)
	}
	for _, n := range cfg.Ntfy {
		c := NewNtfy(n, nil)
		add(channelKey(c), c, n.ChannelConfig)
	}
	for _, w := range cfg.Webhooks {
		c := NewWebhook(w, nil)
		add(channelKey(c), c, w.ChannelConfig)
	}
	for i, x := range e.opts.Extra {
		add(fmt.Sprintf("extra\x00%d", i), x.Channel, x.Config)
	}
	e.cfg, e.chans, e.keys, e.problem, e.good = cfg, chans, keys, problem, good
	e.host.Board().Ledger().SetLevels(cfg.LevelsFor)
	if good {
		e.last, e.hadGood = cfg, true
	}
	e.version.Add(1)
	e.changes.Notify()
	select {
	case e.reconf <- struct{}{}:
	default:
	}
}

// reload reads the channels file again: a change applies at once; a file
// removed leaves Web Push alone at its defaults; a file that does not
// parse keeps the last good channels (none, when none was ever read) and
// the pane says why.
func (e *Engine) reload() {
	cfg, warn, err := LoadConfig(e.opts.ConfigPath)
	problem, good := warn, true
	if err != nil && !errors.Is(err, ErrNoConfig) {
		good = false
		e.cfgMu.Lock()
		last, had := e.last, e.hadGood
		e.cfgMu.Unlock()
		what := "its channels are off until it does"
		if had {
			cfg, what = last, "keeping its last good channels"
		}
		problem = joinProblems(warn, err.Error()+": "+what)
	}
	e.cfgMu.Lock()
	same := e.problem == problem && e.good == good && reflect.DeepEqual(e.cfg, cfg)
	e.cfgMu.Unlock()
	if same {
		return
	}
	switch {
	case !good:
		e.log.Error("the channels file does not parse", "log_type", logx.TypePush, logx.Err("ConfigError", errors.New(problem)))
	case problem != "":
		e.log.Warn(problem, "log_type", logx.TypePush)
	default:
		e.log.Info("the channels file was read", "log_type", logx.TypePush,
			slog.Group("data", "ntfy", len(cfg.Ntfy), "webhooks", len(cfg.Webhooks)))
	}
	e.configure(cfg, problem, good)
}

func joinProblems(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Version counts the changes of the channels (and of what the pane says
// about their file) so far.
func (e *Engine) Version() uint64 { return e.version.Load() }

// Subscribe returns a channel woken after every change of the channels,
// and a function to stop.
func (e *Engine) Subscribe() (<-chan struct{}, func()) { return e.changes.Subscribe() }

// Channels are the engine's channels, in order.
func (e *Engine) Channels() []Configured {
	e.cfgMu.Lock()
	defer e.cfgMu.Unlock()
	return e.chans
}

// Problem is what is wrong with the channels file, "" for nothing.
func (e *Engine) Problem() string {
	e.cfgMu.Lock()
	defer e.cfgMu.Unlock()
	return e.problem
}

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

// lane is one channel's delivery: its operations, in order, on a
// goroutine of its own.
type lane struct {
	key string
	ch  Channel
	q   chan op
}

// Run applies the rules on every change of the board and when a message
// comes due, and follows the channels file (Options.ConfigPath), until ctx
// ends.
func (e *Engine) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	if e.opts.ConfigPath != "" {
		wg.Go(func() {
			defer logx.Guard(e.log)()
			err := fsx.Watch(ctx, []string{e.opts.ConfigPath}, e.reload, func(err error) {
				e.log.Warn("the channels file's watch", "log_type", logx.TypePush, logx.Err("WatchError", err))
			})
			if err != nil {
				e.log.Warn("the channels file is not followed: a change applies at the next start", "log_type", logx.TypePush, logx.Err("WatchError", err))
			}
		})
	}
	var lanes []lane
	defer func() {
		for _, l := range lanes {
			close(l.q)
		}
	}()
	board := e.host.Board()
	changes, stop := board.Subscribe()
	defer stop()
	r := newRules(0, e.start, nil, e.message) // relane sets the delay and the channels
	switch {
	case e.opts.Gap > 0:
		r.gap = e.opts.Gap
	case e.opts.Gap < 0:
		r.gap = 0
	}
	// relane makes the lanes and the rules' channels the file's: a channel
	// that stays keeps its lane (its order) and what it sent; one that
	// went has its lane closed once what it holds is done.
	relane := func() {
		e.cfgMu.Lock()
		chans, keys, delay := e.chans, e.keys, e.cfg.Delay
		e.cfgMu.Unlock()
		old := map[string]lane{}
		for _, l := range lanes {
			old[l.key] = l
		}
		next := make([]lane, len(chans))
		cfgs := make([]ChannelConfig, len(chans))
		for i, c := range chans {
			cfgs[i] = c.Config
			if l, ok := old[keys[i]]; ok {
				next[i] = l
				delete(old, keys[i])
				continue
			}
			l := lane{key: keys[i], ch: c.Channel, q: make(chan op, queueLen)}
			next[i] = l
			e.startLane(ctx, &wg, l)
		}
		for _, l := range old {
			close(l.q)
		}
		lanes = next
		r.reconfigure(delay, keys, cfgs)
	}
	relane()
	waiting := map[[2]string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		now := e.now()
		var next time.Time
		if len(lanes) > 0 {
			doc, unknown := board.View(now)
			if !unknown {
				cards := board.Cards()
				waiting = e.settleCards(cards, waiting)
				noteLimits(board, cards, now)
				rows := rowsOf(doc, cards, e.opts.Machine, board.IsRemote)
				var ops []op
				ops, next = r.step(now, rows, e.someoneLooking(now))
				for _, o := range ops {
					e.enqueue(lanes[o.ch], o)
				}
			}
		}
		if !next.IsZero() {
			timer.Reset(max(next.Sub(e.now()), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-changes:
		case <-e.wake:
		case <-e.reconf:
			relane()
		case ev := <-e.limits:
			e.sendLimit(lanes, ev)
		case <-timer.C:
		}
		timer.Stop()
	}
}

// ledgerEvent hands a ledger's event to Run; one that finds Run behind is
// dropped, with a word in the log.
func (e *Engine) ledgerEvent(ev ledger.Event) {
	select {
	case e.limits <- ev:
	default:
		e.log.Warn("a plan-limit push was dropped: the engine is behind", "log_type", logx.TypePush)
	}
}

// sendLimit sends a ledger's event to every channel that sends limits and
// is not in its quiet hours.
func (e *Engine) sendLimit(lanes []lane, ev ledger.Event) {
	now := e.now()
	m := limitMessage(ev, e.opts.BoardURL, now)
	e.cfgMu.Lock()
	chans := e.chans
	e.cfgMu.Unlock()
	for i, c := range chans {
		if i < len(lanes) && c.Config.sends(KindLimits) && !c.Config.Quiet.In(now) {
			e.enqueue(lanes[i], op{ch: i, msg: &m})
		}
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
			e.caps.settled(k[0], k[1], settledAs(cards, k))
		}
	}
	return now
}

// noteLimits gives the ledger every usage limit a row stopped on with its
// reset (its why: Codex's "try again at 5:46 PM", Claude Code's "resets
// 2pm"), this machine's rows and, on a hub, every machine's — the hub
// pushes them all: at the reset the ledger tells the agent can run again
// (sendLimit), once per agent and machine. A limit the ledger holds
// already is not taken again.
func noteLimits(board *host.Board, cards host.CardSet, now time.Time) {
	for id, w := range cards.Whys {
		agent := cards.Agents[id]
		if w.Kind != hookjson.WhyLimit || w.ResetsMs <= 0 || agent == "" {
			continue
		}
		machine := ""
		if board.IsRemote(id) {
			machine, _, _ = strings.Cut(id, "/") // a remote row is "machine/session"
		}
		board.Ledger().Stopped(agent, machine, time.UnixMilli(w.ResetsMs), now)
	}
}

// settledAs is how a card that stopped waiting settled, as the host
// answers a press on it while it still knows the card: its agent ended
// or its row was closed out (410), else answered (nil: 409). A card no
// longer in the set is taken as answered.
func settledAs(cards host.CardSet, k [2]string) error {
	for _, c := range cards.Cards {
		if c.Session != k[0] || c.Call != k[1] || c.State != host.CardAnswered {
			continue
		}
		switch c.By {
		case host.ByGone:
			return host.ErrAgentGone
		case host.ByClosed:
			return host.ErrRowClosed
		}
	}
	return nil
}

// message builds the message for row in its kind's state: a card's
// buttons, each a capability (caps.go); a settled row that takes a Reply
// links to the board's reply box for it (ReplyURL), a link and no
// capability: opening the box does nothing, and the reply itself is the
// board's own POST with the device's own rights.
func (e *Engine) message(row Row, kind string, now time.Time) Message {
	m := Message{Tag: row.ID, Kind: kind, Title: row.Title, Body: row.Body, URL: e.opts.BoardURL, At: now}
	switch o := row.Offer; {
	case o != nil && kind == KindNeedsYou && e.opts.ActURL != "":
		offer := *o
		m.Mint = func(recipient, device string) []Action {
			if device != "" && !e.mayAnswer(device) {
				return nil // the message still says the session needs you
			}
			return e.caps.mint(offer, recipient, device, e.opts.ActURL)
		}
	case row.Reply && (kind == KindFinished || kind == KindFailed) && e.opts.BoardURL != "":
		reply := []Action{{ID: ActionReply, Label: "Reply", URL: ReplyURL(e.opts.BoardURL, row.ID)}}
		m.Mint = func(string, string) []Action { return reply }
	}
	return m
}

// ActionReply is the id of a settled row's Reply link.
const ActionReply = "reply"

// ReplyURL is the board at boardURL opened on the reply box of row id
// (notch.js reads ?reply=).
func ReplyURL(boardURL, id string) string {
	u, err := url.Parse(boardURL)
	if err != nil {
		return boardURL
	}
	q := u.Query()
	q.Set("reply", id)
	u.RawQuery = q.Encode()
	return u.String()
}

func (e *Engine) enqueue(l lane, o op) {
	select {
	case l.q <- o:
	default:
		e.log.Warn("a push channel is behind: an operation was dropped", "log_type", logx.TypePush,
			slog.Group("data", "channel", l.ch.Name(), "rows", len(o.rows)))
	}
}

// startLane runs l's deliveries on a goroutine of wg's: a panic in its
// channel is the standard fatal record and exit 2, never a raw trace.
func (e *Engine) startLane(ctx context.Context, wg *sync.WaitGroup, l lane) {
	wg.Go(func() {
		defer logx.Guard(e.log)()
		e.deliver(ctx, l.ch, l.q)
	})
}

// deliver runs one channel's operations in order.
func (e *Engine) deliver(ctx context.Context, ch Channel, q <-chan op) {
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
	req, seen, err := e.caps.use(cap, from.Device, from.Local, e.mayAnswer)
	if errors.Is(err, ErrCapRole) {
		e.log.Warn("push button refused: the device's role does not allow answering", "log_type", logx.TypePush, slog.Group("data",
			"device", from.Device, "local", from.Local))
	}
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
		if seen != nil && errors.Is(err, host.ErrNonce) {
			err = seen // the host has forgotten the card; we saw how it settled
		}
		if final(err) {
			e.caps.settled(req.Session, req.Call, err)
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

// mayAnswer is Options.MayAnswer, nil letting every device.
func (e *Engine) mayAnswer(device string) bool {
	return e.opts.MayAnswer == nil || e.opts.MayAnswer(device)
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
	return sendTest(ctx, e.log, e.Channels(), e.opts.BoardURL, e.now())
}

// TestResult is one channel's answer to a test.
type TestResult struct {
	Channel string
	Err     error
}

// SendTest sends a test message to each channel, all at once: the whole
// test takes at most sendTimeout however many channels stall.
func SendTest(ctx context.Context, chans []Configured, boardURL string, now time.Time) []TestResult {
	return sendTest(ctx, nil, chans, boardURL, now)
}

// sendTest is SendTest; with a log, a channel's panic is the standard fatal
// record and exit 2 (the host's pane asks from a handler, whose recovery
// does not reach these goroutines). Without one (the notify test command,
// a process of its own) a panic is Go's.
func sendTest(ctx context.Context, log *slog.Logger, chans []Configured, boardURL string, now time.Time) []TestResult {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	out := make([]TestResult, len(chans))
	var wg sync.WaitGroup
	for i, c := range chans {
		wg.Go(func() {
			if log != nil {
				defer logx.Guard(log)()
			}
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
	chans := e.Channels()
	out := make([]View, 0, len(chans))
	for _, c := range chans {
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
