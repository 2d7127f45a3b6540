package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/state"
)

// The history feed (issue 32): each machine keeps its own lasting history
// (host/store), and the hub keeps every machine's. The machine's own file
// is its outbox: every event, answered card and reported cost in it has
// the machine's own sequence (one for the three), and the hub holds, per
// machine, the last it took (store.Last). The hub pulls: a
// machine says on its own notch.m.<name>.pub.hist how far its history goes
// (after each write, on every beat and every reconnect); a hub behind that
// asks the machine on notch.m.<name>.hist — which only that machine hears,
// and no machine may send — for what follows its mark, in bounded batches,
// and writes each batch in one transaction (store.Take), by (machine,
// sequence), before it asks for the next. So nothing is lost to a dropped
// link or a restarted hub (the next ask starts at what the hub's file
// holds), nothing counts twice (a batch taken again inserts nothing), and
// there is no JetStream state to keep. The batch's machine is the subject's,
// never a name in the batch. A machine with no history (--history off) says
// nothing and answers nothing; a hub with none asks nothing.

// Feed bounds.
const (
	// DefaultFeedBatch is how many items (events, answers, costs) the hub
	// asks for at once.
	DefaultFeedBatch = 500
	// maxFeedBatch bounds what a batch may hold, whatever is asked.
	maxFeedBatch = 2000
	// maxFeedBytes bounds a batch's bytes, under NATS's max_payload (1
	// MiB) with room for the headers: the machine stops adding items
	// before it. One is at most a few tens of KiB (state's bounds).
	maxFeedBytes = 768 << 10
	// maxFeedReply is the most the hub reads of a reply.
	maxFeedReply = 1 << 20
	// maxSeq bounds a sequence: a JSON number a reader of any language
	// takes exactly.
	maxSeq = 1<<53 - 1
	// feedWait bounds the hub's wait for a batch.
	feedWait = 5 * time.Second
	// feedRounds is how many batches one machine gets in a row before the
	// others that are waiting.
	feedRounds = 8
	// maxAgent bounds an event's or an answer's agent name.
	maxAgent = 64
	// maxWord bounds an answer's by and outcome: words of host's
	// (ByBoard, OutcomeAllowed …), a later notch-web's among them.
	maxWord = 32
)

func histSubject(machine string) string     { return machineSubject(machine, "hist") }
func histSaysSubject(machine string) string { return machineSubject(machine, pubSpace+"hist") }

// History is the lasting history's side of the feed: *store.Store.
type History interface {
	Since(ctx context.Context, after int64, n int) ([]store.Item, error)
	Last(ctx context.Context, machine string) (int64, error)
	Take(ctx context.Context, machine string, items []store.Item, last int64) error
	Changes() (<-chan struct{}, func())
}

// histSays is what a machine publishes on its pub.hist: the last sequence
// its history holds.
type histSays struct {
	Newest int64 `json:"newest"`
}

// histAsk is the hub's request: the items after After, at most Max.
type histAsk struct {
	After int64 `json:"after"`
	Max   int   `json:"max"`
}

// histBatch is a machine's answer: its items after the ask's After, in
// order (Events: the name from when there were only events); Last, the
// sequence the batch reaches (past its last item when the machine left
// some out: a count of context tokens with no turn to take it from);
// Newest, the last its history holds; Error when it could not read it.
type histBatch struct {
	Events []wireEvent `json:"events"`
	Last   int64       `json:"last"`
	Newest int64       `json:"newest"`
	Error  string      `json:"error,omitempty"`
}

// wireEvent is one item of a batch: an event, or (with every event field
// left out) an answered card or a reported cost. A hub from before answers
// and costs refuses a batch that holds one (a field it does not know), so
// its mark stays until it is upgraded, and then it takes them all.
type wireEvent struct {
	Seq     int64  `json:"seq"`
	Session string `json:"session"`
	At      int64  `json:"at"`
	Type    string `json:"type"`
	Tool    string `json:"tool,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Project string `json:"project,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	Title   string `json:"title,omitempty"`
	Parent  string `json:"parent,omitempty"`
	Tokens  *int64 `json:"tokens,omitempty"`

	Answer *histAnswer `json:"answer,omitempty"`
	Cost   *histCost   `json:"cost,omitempty"`
	Used   *histTokens `json:"used,omitempty"`
}

// histAnswer is an answered card (host.RecordedAnswer): who answered it
// (by) and how, on which device (a name, shown as text: never the machine,
// which is the subject's), when it was asked and answered (ms).
type histAnswer struct {
	Session  string `json:"session"`
	Call     string `json:"call,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Tool     string `json:"tool,omitempty"`
	By       string `json:"by"`
	Device   string `json:"device,omitempty"`
	Outcome  string `json:"outcome"`
	Asked    int64  `json:"asked"`
	Answered int64  `json:"answered"`
}

// histCost is a cost an agent reported for a session (store.Cost).
type histCost struct {
	Session string  `json:"session"`
	At      int64   `json:"at"`
	USD     float64 `json:"usd"`
}

// histTokens is a session's running total of tokens at a time
// (store.TokenTotal). Its key is not "tokens": an event's context count
// is.
type histTokens struct {
	Session string `json:"session"`
	At      int64  `json:"at"`
	Total   int64  `json:"total"`
}

// toWire is an item as a batch carries it.
func toWire(it store.Item) wireEvent {
	switch {
	case it.Answer != nil:
		a := it.Answer
		return wireEvent{Seq: it.Seq, Answer: &histAnswer{Session: a.Session, Call: a.Call, Agent: a.Agent, Tool: a.Tool, By: a.By, Device: a.Device, Outcome: a.Outcome,
			Asked: a.Asked.UnixMilli(), Answered: a.Answered.UnixMilli()}}
	case it.Cost != nil:
		return wireEvent{Seq: it.Seq, Cost: &histCost{Session: it.Cost.Session, At: it.Cost.At, USD: it.Cost.USD}}
	case it.Tokens != nil:
		return wireEvent{Seq: it.Seq, Used: &histTokens{Session: it.Tokens.Session, At: it.Tokens.At, Total: it.Tokens.Total}}
	}
	e := it.Event
	return wireEvent{Seq: it.Seq, Session: e.Session, At: e.At, Type: e.Type, Tool: e.Tool, Outcome: e.Outcome,
		Agent: e.Agent, Project: e.Project, Cwd: e.Cwd, Title: e.Title, Parent: e.Parent, Tokens: e.Tokens}
}

// fromWire is a batch's item as the hub takes it, or false when it is not
// one the hub keeps: an event the vocabulary refuses, an answer, a cost
// or tokens outside the bounds the machine's own would keep, or an item
// that is more than one of them.
func fromWire(w wireEvent) (store.Item, bool) {
	if w.Answer != nil || w.Cost != nil || w.Used != nil {
		rest := w
		rest.Seq, rest.Answer, rest.Cost, rest.Used = 0, nil, nil, nil
		n := 0
		for _, set := range []bool{w.Answer != nil, w.Cost != nil, w.Used != nil} {
			if set {
				n++
			}
		}
		if rest != (wireEvent{}) || n != 1 {
			return store.Item{}, false
		}
	}
	validAt := func(ms int64) bool { return ms > 0 && ms <= state.MaxAt }
	switch {
	case w.Answer != nil:
		a := w.Answer
		if !state.ValidSessionID(a.Session) || (a.Call != "" && !state.ValidSessionID(a.Call)) ||
			len(a.Agent) > maxAgent || textrule.Has(a.Agent) || len(a.Tool) > state.MaxTool || textrule.Has(a.Tool) ||
			!isToken(a.By, 1, maxWord) || !isToken(a.Outcome, 1, maxWord) || !validAt(a.Asked) || !validAt(a.Answered) ||
			// The device as the machine's own store keeps it: one line of
			// text, bounded (host.AnswerDevice leaves it as it is).
			len(a.Device) > host.MaxAnswerDevice || host.AnswerDevice(a.Device) != a.Device {
			return store.Item{}, false
		}
		return store.Item{Seq: w.Seq, Answer: &host.RecordedAnswer{Session: a.Session, Call: a.Call, Agent: a.Agent, Tool: a.Tool,
			By: a.By, Device: a.Device, Outcome: a.Outcome, Asked: time.UnixMilli(a.Asked), Answered: time.UnixMilli(a.Answered)}}, true
	case w.Cost != nil:
		c := w.Cost
		// host's rule for a reported cost: a finite amount, not below 0.
		if !state.ValidSessionID(c.Session) || !validAt(c.At) || !(c.USD >= 0) || math.IsInf(c.USD, 0) {
			return store.Item{}, false
		}
		return store.Item{Seq: w.Seq, Cost: &store.Cost{Session: c.Session, At: c.At, USD: c.USD}}, true
	case w.Used != nil:
		u := w.Used
		if !state.ValidSessionID(u.Session) || !validAt(u.At) || u.Total < 0 || u.Total > store.MaxTokens {
			return store.Item{}, false
		}
		return store.Item{Seq: w.Seq, Tokens: &store.TokenTotal{Session: u.Session, At: u.At, Total: u.Total}}, true
	}
	ev := state.Event{Type: w.Type, Session: w.Session, At: w.At, Tool: w.Tool, Outcome: w.Outcome,
		Project: w.Project, Cwd: w.Cwd, Title: w.Title, Parent: w.Parent, Tokens: w.Tokens}
	if w.Type == store.TypeWhy {
		// The store's own record of why a turn stopped: a kind, and its
		// words as store.WhyText made them — one line of shown text.
		if !state.ValidSessionID(w.Session) || !validAt(w.At) || !hookjson.ValidWhyKind(w.Tool) ||
			hookjson.OneLine(w.Outcome, state.MaxReason) != w.Outcome || len(w.Agent) > maxAgent || textrule.Has(w.Agent) {
			return store.Item{}, false
		}
		return store.Item{Seq: w.Seq, Event: &store.Event{Seq: w.Seq, Agent: w.Agent, Event: state.Event{Type: w.Type, Session: w.Session, At: w.At, Tool: w.Tool, Outcome: w.Outcome}}}, true
	}
	if !validAt(w.At) || ev.Validate() != nil || len(w.Agent) > maxAgent || textrule.Has(w.Agent) {
		return store.Item{}, false
	}
	return store.Item{Seq: w.Seq, Event: &store.Event{Seq: w.Seq, Agent: w.Agent, Event: ev}}, true
}

// SetHistory gives this notch-web's lasting history to the feed: a joined
// machine answers the hub's asks from it and says how far it goes; the
// hub takes every machine's into it. Without one (--history off) a
// machine says and answers nothing, and a hub asks nothing. Set it before
// Run. Under --nats there is no hub and no feed.
func (n *Node) SetHistory(h History) error {
	n.boardMu.Lock()
	n.hist = h
	n.boardMu.Unlock()
	if h != nil && n.joined {
		if _, err := n.nc.Subscribe(histSubject(n.name), guard(n.log, n.onHistAsk)); err != nil {
			return err
		}
	}
	return nil
}

func (n *Node) history() History {
	n.boardMu.Lock()
	defer n.boardMu.Unlock()
	return n.hist
}

// --- the machine's side ---

// sayHistory publishes how far this machine's history goes, when it has
// one and that changed (or always, with force: a reconnect, a beat).
func (n *Node) sayHistory(force bool) {
	h := n.history()
	if h == nil || !n.joined {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), feedWait)
	defer cancel()
	newest, err := h.Last(ctx, store.Local)
	if err != nil || newest == 0 || (!force && newest == n.histSaid) {
		return
	}
	data, _ := json.Marshal(histSays{Newest: newest})
	if n.nc.Publish(histSaysSubject(n.name), data) == nil {
		n.histSaid = newest
	}
}

// onHistAsk answers the hub's ask from this machine's own history.
func (n *Node) onHistAsk(m *nats.Msg) {
	h := n.history()
	var ask histAsk
	if h == nil || len(m.Data) > 256 || jsonx.DecodeOne(m.Data, &ask, jsonx.Options{Strict: true}) != nil || ask.After < 0 || ask.Max <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), feedWait)
	defer cancel()
	_ = m.Respond(readBatch(ctx, h, ask))
}

// readBatch is the answer to ask from h: at most ask.Max items (and
// maxFeedBatch), in at most maxFeedBytes.
func readBatch(ctx context.Context, h History, ask histAsk) []byte {
	fail := func() []byte { b, _ := json.Marshal(histBatch{Error: "the history is unavailable here"}); return b }
	// How far the history goes, read before its items: everything up to
	// it is in the file (or was never written), so a batch that reaches
	// the end may say it reaches newest.
	newest, err := h.Last(ctx, store.Local)
	if err != nil {
		return fail()
	}
	want := min(ask.Max, maxFeedBatch)
	items, err := h.Since(ctx, ask.After, want)
	if err != nil {
		return fail()
	}
	b := histBatch{Events: []wireEvent{}, Last: ask.After, Newest: newest}
	size := 256 // the envelope
	for _, it := range items {
		if passOver(it) {
			b.Last = it.Seq // a count with no turn: nothing to send
			continue
		}
		w := toWire(it)
		one, _ := json.Marshal(w)
		if size+len(one)+1 > maxFeedBytes {
			break
		}
		size += len(one) + 1
		b.Events = append(b.Events, w)
		b.Last = it.Seq
	}
	if len(items) < want && len(b.Events) == len(items)-passedOver(items) {
		b.Last = max(b.Last, newest) // the whole rest: nothing lies between
	}
	b.Newest = max(b.Newest, b.Last) // events written since newest was read
	data, _ := json.Marshal(b)
	return data
}

// passOver reports whether readBatch leaves it out: a count with no turn.
func passOver(it store.Item) bool {
	return it.Event != nil && it.Event.Type == state.TypeContextTokens && it.Event.Tokens == nil
}

// passedOver counts the items readBatch leaves out.
func passedOver(items []store.Item) int {
	n := 0
	for _, it := range items {
		if passOver(it) {
			n++
		}
	}
	return n
}

// --- the hub's side ---

// feed is the hub's pulling of every machine's history.
type feed struct {
	batch int
	wake  chan struct{}
	turn  string // runFeed's: the machine pulled last, so each gets its turn

	mu    sync.Mutex
	want  map[string]int64  // machines the hub is behind, with how far each said it goes
	marks map[string]int64  // the hub's last of each machine, as its file has it
	said  map[string]string // the last problem logged of each machine
	// taken, for tests, runs after each batch is in the file.
	taken func(machine string)
}

func newFeed(batch int) *feed {
	if batch <= 0 {
		batch = DefaultFeedBatch
	}
	return &feed{batch: min(batch, maxFeedBatch), wake: make(chan struct{}, 1), want: map[string]int64{}, marks: map[string]int64{}, said: map[string]string{}}
}

// onHistSays is the hub hearing how far a machine's history goes.
func (n *Node) onHistSays(name string, data []byte) {
	var says histSays
	if n.feed == nil || n.history() == nil || !n.hub.active(name) ||
		len(data) > 128 || jsonx.DecodeOne(data, &says, jsonx.Options{Strict: true}) != nil || says.Newest <= 0 || says.Newest > maxSeq {
		return
	}
	f := n.feed
	f.mu.Lock()
	if mark, ok := f.marks[name]; ok && says.Newest <= mark {
		f.mu.Unlock()
		return // the hub has it all
	}
	f.want[name] = max(f.want[name], says.Newest)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// runFeed pulls the machines' histories until ctx ends: one machine at a
// time, a few batches each in turn.
func (n *Node) runFeed(ctx context.Context) {
	f := n.feed
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		for ctx.Err() == nil {
			name, target, ok := f.next()
			if !ok {
				break
			}
			if behind := n.pull(ctx, name, target); behind > 0 {
				f.mu.Lock()
				f.want[name] = max(f.want[name], behind)
				f.mu.Unlock()
			}
		}
	}
}

// next is the machine to pull now and how far its history goes: the first
// in name order after the one pulled last, so a machine far behind does not
// keep the others waiting.
func (f *feed) next() (string, int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := slices.Sorted(maps.Keys(f.want))
	if len(names) == 0 {
		return "", 0, false
	}
	name := names[0]
	if i, _ := slices.BinarySearch(names, f.turn+"\x00"); f.turn != "" && i < len(names) {
		name = names[i]
	}
	f.turn = name
	target := f.want[name]
	delete(f.want, name)
	return name, target, true
}

// pull takes up to feedRounds batches of a machine's history towards
// target, and returns the target when the hub is still behind it (0: the
// hub has it all, or gives up until the machine says again).
func (n *Node) pull(ctx context.Context, name string, target int64) int64 {
	h, f := n.history(), n.feed
	f.mu.Lock()
	mark, ok := f.marks[name]
	f.mu.Unlock()
	if !ok {
		var err error
		if mark, err = h.Last(ctx, name); err != nil {
			n.feedProblem(name, "the hub's history is unavailable", err)
			return 0
		}
		f.mu.Lock()
		f.marks[name] = mark // a beat of a machine the hub is level with reads nothing
		f.mu.Unlock()
	}
	for range feedRounds {
		if mark >= target || ctx.Err() != nil {
			return 0
		}
		if !n.hub.active(name) {
			return 0 // revoked
		}
		body, _ := json.Marshal(histAsk{After: mark, Max: f.batch})
		rctx, cancel := context.WithTimeout(ctx, feedWait) // a stopping hub does not wait it out
		msg, err := n.nc.RequestWithContext(rctx, histSubject(name), body)
		cancel()
		if ctx.Err() != nil {
			return 0
		}
		if err != nil {
			n.feedProblem(name, "the machine did not answer", err)
			return 0 // its next word (a beat) tries again
		}
		items, last, newest, skipped, err := decodeBatch(msg.Data, mark, f.batch)
		if err != nil {
			n.feedProblem(name, "the machine's batch was refused", err)
			return 0
		}
		if !n.hub.active(name) {
			return 0 // revoked while the batch was on its way
		}
		if err := h.Take(ctx, name, items, last); err != nil {
			n.feedProblem(name, "the hub's history is unavailable", err)
			return 0
		}
		if skipped > 0 {
			n.log.Warn("items of a machine's history left out", "log_type", logx.TypeHistory,
				slog.Group("data", "machine", name, "skipped", skipped, "upTo", last))
		}
		f.mu.Lock()
		f.marks[name] = last
		hook := f.taken
		was := f.said[name]
		delete(f.said, name)
		f.mu.Unlock()
		if was != "" {
			n.log.Info("a machine's history is taken again", "log_type", logx.TypeHistory, slog.Group("data", "machine", name))
		}
		if hook != nil {
			hook(name)
		}
		// The machine says where its history ends now; a batch that moved
		// nothing ends the round (the machine has nothing after the mark).
		target = newest
		if last == mark {
			return 0
		}
		mark = last
	}
	if target > mark {
		return target // the others' turn first
	}
	return 0
}

// feedProblem logs why a machine's history is not taken, once per change.
func (n *Node) feedProblem(name, what string, err error) {
	f := n.feed
	msg := what + ": " + err.Error()
	f.mu.Lock()
	was := f.said[name]
	f.said[name] = what
	f.mu.Unlock()
	if was != what {
		n.log.Warn("a machine's history is not taken", "log_type", logx.TypeHistory,
			slog.Group("data", "machine", name), slog.Group("error", "name", "FeedError", "message", msg))
	}
}

// ErrBatch: a machine's batch the hub refuses whole.
var ErrBatch = errors.New("not a batch of this machine's history")

// decodeBatch reads a machine's answer to an ask for what follows after,
// at most max items, strictly: one JSON object of known fields, items in
// order of their sequence past after, Last and Newest where they must be.
// An item that is not one the hub keeps (fromWire: a field too long, a
// control character, an unknown type, an answer's word that is not one)
// is left out and counted; the batch still moves the mark to Last.
func decodeBatch(data []byte, after int64, maxItems int) (items []store.Item, last, newest int64, skipped int, err error) {
	if len(data) > maxFeedReply {
		return nil, 0, 0, 0, fmt.Errorf("%w: %d bytes", ErrBatch, len(data))
	}
	var b histBatch
	if err := jsonx.DecodeOne(data, &b, jsonx.Options{Strict: true}); err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%w: %s", ErrBatch, jsonx.Reason(err))
	}
	if b.Error != "" {
		return nil, 0, 0, 0, fmt.Errorf("the machine says: %s", state.Cut(state.CleanText(b.Error), 200))
	}
	if len(b.Events) > maxItems {
		return nil, 0, 0, 0, fmt.Errorf("%w: %d items, asked for %d", ErrBatch, len(b.Events), maxItems)
	}
	if b.Last < after || b.Last > maxSeq || b.Newest < b.Last || b.Newest > maxSeq {
		return nil, 0, 0, 0, fmt.Errorf("%w: it reaches %d of %d, asked after %d", ErrBatch, b.Last, b.Newest, after)
	}
	prev := after
	items = make([]store.Item, 0, len(b.Events))
	for _, w := range b.Events {
		if w.Seq <= prev || w.Seq > b.Last {
			return nil, 0, 0, 0, fmt.Errorf("%w: item %d out of order (after %d, the batch reaches %d)", ErrBatch, w.Seq, prev, b.Last)
		}
		prev = w.Seq
		it, ok := fromWire(w)
		if !ok {
			skipped++
			continue
		}
		items = append(items, it)
	}
	return items, b.Last, b.Newest, skipped, nil
}
