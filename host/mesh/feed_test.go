//go:build notch_hub

package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// link is a loopback TCP relay between a machine and its hub: cut closes
// every connection through it and refuses new ones (a cable pulled, a
// laptop's Wi-Fi gone) until restore; retarget points it at a restarted
// hub. The machine's TLS is pinned to the hub's certificate, not to an
// address, so the relay is invisible to it.
type link struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
	cut    bool
	conns  map[net.Conn]bool
}

func newLink(t *testing.T, target string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &link{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); l.drop() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.relay(c)
		}
	}()
	return l
}

func (l *link) addr() string { return l.ln.Addr().String() }

func (l *link) relay(c net.Conn) {
	l.mu.Lock()
	cut, target := l.cut, l.target
	l.mu.Unlock()
	if cut {
		c.Close()
		return
	}
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	l.mu.Lock()
	l.conns[c], l.conns[up] = true, true
	l.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close(); c.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
	up.Close()
}

// drop closes every connection through the link.
func (l *link) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
}

func (l *link) setCut(cut bool) {
	l.mu.Lock()
	l.cut = cut
	l.mu.Unlock()
	if cut {
		l.drop()
	}
}

func (l *link) retarget(target string) {
	l.mu.Lock()
	l.target = target
	l.mu.Unlock()
	l.drop()
}

// openStore opens a history in dir with its writer running until stop.
func openStore(t *testing.T, dir string) (*store.Store, func()) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, store.File), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = st.Run(ctx); close(done) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
			st.Close()
		}
	}
	t.Cleanup(stop)
	return st, stop
}

// feedHub is a hub with a history, taking the machines'.
type feedHub struct {
	node  *Node
	hist  *store.Store
	stop  func() // the node, then the history
	home  string
	batch int
}

func startFeedHub(t *testing.T, home string, batch int, taken func(ctx context.Context, machine string)) *feedHub {
	t.Helper()
	n, err := Open(context.Background(), Config{DSHHome: home, Name: "hub", Hub: true, HubAddr: "127.0.0.1:0", FeedBatch: batch})
	if err != nil {
		t.Fatal(err)
	}
	st, stopStore := openStore(t, home)
	if err := n.SetHistory(st); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if taken != nil {
		n.feed.taken = func(m string) { taken(ctx, m) }
	}
	done := make(chan struct{})
	go func() { _ = n.Run(ctx, nil); close(done) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
			stopStore()
		}
	}
	t.Cleanup(stop)
	return &feedHub{node: n, hist: st, stop: stop, home: home, batch: batch}
}

// feedMachine is a joined machine recording its own history, dialling
// the hub at addr (a link, or the hub itself).
type feedMachine struct {
	name  string
	node  *Node
	board *host.Board
	hist  *store.Store
}

func startFeedMachine(t *testing.T, hub *Node, name, addr string) *feedMachine {
	t.Helper()
	cr, _ := pairRaw(t, hub, name)
	cr.Hub = addr
	home := t.TempDir()
	if err := writeJSON(filepath.Join(Dir(home), joinFile), cr); err != nil {
		t.Fatal(err)
	}
	svc := settings.NewService(settings.Options{PanePath: filepath.Join(home, "settings.json")})
	b := host.NewBoard(host.BoardConfig{HostPid: 1}, false, svc)
	st, _ := openStore(t, home)
	b.SetRecorder(st)
	n, err := Open(context.Background(), Config{DSHHome: home, Join: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.SetHistory(st); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = n.Run(ctx, b); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &feedMachine{name: name, node: n, board: b, hist: st}
}

// feedDay0 is the synthetic day's morning.
var feedDay0 = time.Date(2026, 12, 2, 8, 0, 0, 0, time.Local)

// session records the machine's i-th session of the day, every 15 minutes
// from 08:00: opened, titled, three turns of tools (an error in some, an
// approval in the last, answered on the board (from a paired phone or
// this computer) or in the terminal, a
// context count and a cost reported after each), ended.
func (m *feedMachine) session(t *testing.T, i int) {
	t.Helper()
	id := fmt.Sprintf("%s-s%d", m.name, i)
	at := feedDay0.Add(time.Duration(i) * 15 * time.Minute)
	var evs []state.Event
	var asked time.Time
	add := func(e state.Event) {
		at = at.Add(20 * time.Second)
		e.Session, e.At = id, at.UnixMilli()
		evs = append(evs, e)
		if e.Type == state.TypeApprovalRequested {
			asked = at
		}
	}
	type cost struct {
		usd float64
		at  time.Time
	}
	var costs []cost
	add(state.Event{Type: state.TypeSessionOpened, Cwd: fmt.Sprintf("/src/proj-%d", i%3)})
	add(state.Event{Type: state.TypeSessionTitled, Title: fmt.Sprintf("%s task %d", m.name, i)})
	for turn := range 3 {
		add(state.Event{Type: state.TypeTurnStarted})
		add(state.Event{Type: state.TypeToolStarted, Tool: "Bash"})
		outcome := state.OutcomeOK
		if i%4 == 0 && turn == 1 {
			outcome = state.OutcomeError
		}
		add(state.Event{Type: state.TypeToolEnded, Tool: "Bash", Outcome: outcome})
		if turn == 2 {
			add(state.Event{Type: state.TypeApprovalRequested, Tool: "Write"})
			add(state.Event{Type: state.TypeApprovalResolved, Outcome: state.OutcomeAllowedOnce})
			// On the board from a paired phone, or from this computer
			// (no device); in the terminal (none).
			by, device := host.ByBoard, "phone"
			switch i % 4 {
			case 1, 3:
				by, device = host.ByTerminal, ""
			case 2:
				device = ""
			}
			defer m.hist.RecordAnswer(host.RecordedAnswer{Session: id, Call: fmt.Sprintf("toolu_%d", i), Agent: "claude-code", Tool: "Write",
				By: by, Device: device, Outcome: host.OutcomeAllowed, Asked: asked, Answered: at})
			add(state.Event{Type: state.TypeToolStarted, Tool: "Write"})
			add(state.Event{Type: state.TypeToolEnded, Tool: "Write", Outcome: state.OutcomeOK})
		}
		tokens := int64(1000 * (turn + 1))
		add(state.Event{Type: state.TypeContextTokens, Tokens: &tokens})
		add(state.Event{Type: state.TypeTurnEnded, Outcome: state.OutcomeCompleted})
		costs = append(costs, cost{float64(turn+1)*0.125 + float64(i)/64, at})
	}
	add(state.Event{Type: state.TypeSessionEnded, Outcome: state.OutcomeCompleted})
	if _, err := m.board.Ingest(evs, at); err != nil {
		t.Fatal(err)
	}
	// After the events, as a card's end and a statusline report come.
	for k, c := range costs {
		m.hist.RecordCost(id, c.usd, c.at)
		// And the tokens each turn used, as the ledger counts them.
		m.hist.RecordTokens(id, int64(1000*(k+1)+i), c.at)
	}
}

func flushStore(t *testing.T, st *store.Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// newest is how far a machine's own history goes, all of it written.
func (m *feedMachine) newest(t *testing.T) int64 {
	t.Helper()
	flushStore(t, m.hist)
	n, err := m.hist.Last(context.Background(), store.Local)
	if err != nil || n == 0 {
		t.Fatalf("the machine's history: %d, %v", n, err)
	}
	return n
}

// sessionsOf are a store's sessions of machine with their turns and
// answers, as comparable values (the machine left out: Local on its own
// store).
func sessionsOf(t *testing.T, st *store.Store, machine string) map[string]fedSession {
	t.Helper()
	ctx := context.Background()
	rows, _, err := st.Sessions(ctx, store.Query{Machine: machine, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fedSession{}
	for _, r := range rows {
		turns, err := st.Turns(ctx, machine, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		answers, err := st.Answers(ctx, machine, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		r.Machine = ""
		out[r.ID] = fedSession{r, turns, answers}
	}
	return out
}

// fedSession is a session as sessionsOf compares it.
type fedSession struct {
	S store.Session
	T []store.Turn
	A []store.Answer
}

// waitFed waits until the hub holds everything each machine's history
// holds now, then checks that it holds each of their sessions, turns and
// answers exactly as the machine does, with the same costs: once.
func waitFed(t *testing.T, hub *feedHub, ms ...*feedMachine) {
	t.Helper()
	ctx := context.Background()
	for _, m := range ms {
		want := m.newest(t)
		waitfor.Until(t, m.name+"'s history on the hub", func() bool {
			n, err := hub.hist.Last(ctx, m.name)
			return err == nil && n >= want
		})
		mine, theirs := sessionsOf(t, m.hist, store.Local), sessionsOf(t, hub.hist, m.name)
		if len(mine) == 0 || !reflect.DeepEqual(mine, theirs) {
			t.Fatalf("%s: the hub holds %d sessions, the machine %d; want the same, once each:\nhub     %+v\nmachine %+v", m.name, len(theirs), len(mine), theirs, mine)
		}
	}
}

// dayTotals are the synthetic day's sessions, turns and cost in a store.
func dayTotals(t *testing.T, st *store.Store) (sessions, turns int, usd float64) {
	t.Helper()
	flushStore(t, st)
	bars, err := st.Days(context.Background(), feedDay0, 1)
	if err != nil || len(bars) != 1 {
		t.Fatal(bars, err)
	}
	if bars[0].CostUSD != nil {
		usd = *bars[0].CostUSD
	}
	return bars[0].Sessions, bars[0].Turns, usd
}

// dayTokens are the synthetic day's tokens in a store, every agent's, as
// the History page's chart of tokens by agent adds them up.
func dayTokens(t *testing.T, st *store.Store) int64 {
	t.Helper()
	flushStore(t, st)
	days, err := st.AgentDays(context.Background(), feedDay0, 1)
	if err != nil || len(days) != 1 {
		t.Fatal(days, err)
	}
	var n int64
	for _, u := range days[0].Agents {
		if u.Tokens != nil {
			n += *u.Tokens
		}
	}
	return n
}

// answersOf counts a store's answers of machine, each session's.
func answersOf(t *testing.T, st *store.Store, machine string) int {
	t.Helper()
	n := 0
	for _, v := range sessionsOf(t, st, machine) {
		n += len(v.A)
	}
	return n
}

// TestHistoryFeed is issue 32's many machines: a hub and two machines on
// loopback, a day of sessions on each, one machine's link cut mid-day
// while it goes on recording, then restored — and the hub holds every
// session, turn, answer and cost of both, each once, as each machine's
// own history does. The outage here is as long as the sessions it spans take to
// record (the real minute is docs/history.md's run by hand).
func TestHistoryFeed(t *testing.T) {
	hub := startFeedHub(t, t.TempDir(), 50, nil)
	cable := newLink(t, hubAddr(hub.node))
	alpha := startFeedMachine(t, hub.node, "alpha", cable.addr())
	beta := startFeedMachine(t, hub.node, "beta", hubAddr(hub.node))
	const day = 32
	for i := range day / 3 { // the morning
		alpha.session(t, i)
		beta.session(t, i)
	}
	waitFed(t, hub, alpha, beta)
	morning := len(sessionsOf(t, hub.hist, "alpha"))

	cable.setCut(true) // mid-day: alpha's link goes
	waitfor.Until(t, "alpha to lose its hub", func() bool { return alpha.node.HubLink() != "" })
	for i := day / 3; i < 2*day/3; i++ {
		alpha.session(t, i) // alpha records on, on its own
		beta.session(t, i)
	}
	waitFed(t, hub, beta)
	alpha.newest(t)
	if n := len(sessionsOf(t, hub.hist, "alpha")); n != morning {
		t.Fatalf("the hub took %d of alpha's sessions over a cut link (it had %d)", n, morning)
	}

	cable.setCut(false)
	for i := 2 * day / 3; i < day; i++ {
		alpha.session(t, i)
		beta.session(t, i)
	}
	waitFed(t, hub, alpha, beta)
	hs, ht, hc := dayTotals(t, hub.hist)
	as, at, ac := dayTotals(t, alpha.hist)
	bs, bt, bc := dayTotals(t, beta.hist)
	if as != day || bs != day || at != 3*day || hs != as+bs || ht != at+bt || ac == 0 || hc != ac+bc {
		t.Errorf("the day on the hub: %d sessions, %d turns, $%v; alpha %d, %d, $%v; beta %d, %d, $%v: want the machines' sums",
			hs, ht, hc, as, at, ac, bs, bt, bc)
	}
	hk, ak, bk := dayTokens(t, hub.hist), dayTokens(t, alpha.hist), dayTokens(t, beta.hist)
	if ak == 0 || hk != ak+bk {
		t.Errorf("the day's tokens on the hub: %d; alpha %d, beta %d: want the machines' sum", hk, ak, bk)
	}
	ha, aa, ba := answersOf(t, hub.hist, "alpha")+answersOf(t, hub.hist, "beta"), answersOf(t, alpha.hist, store.Local), answersOf(t, beta.hist, store.Local)
	if aa != day || ba != day || ha != aa+ba {
		t.Errorf("answers: %d on the hub, alpha %d, beta %d: want one a session, each on the hub once", ha, aa, ba)
	}
	// waitFed compared every answer's fields; this one says the device is
	// among them: the phone that answered alpha's first card on the board.
	if got, err := hub.hist.Answers(context.Background(), "alpha", "alpha-s0"); err != nil || len(got) != 1 || got[0].By != host.ByBoard || got[0].Device != "phone" {
		t.Errorf("alpha's first answer on the hub: %+v %v, want on the board from phone", got, err)
	}

	// Every batch sent again (the hub forgets how far it got): nothing
	// counts twice.
	f := hub.node.feed
	f.mu.Lock()
	f.marks["alpha"] = 0
	f.mu.Unlock()
	want := alpha.newest(t)
	batches := 0
	f.mu.Lock()
	f.taken = func(string) { batches++ }
	f.mu.Unlock()
	hub.node.onHistSays("alpha", fmt.Appendf(nil, `{"newest":%d}`, want))
	waitfor.Until(t, "alpha's history taken again", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.marks["alpha"] >= want
	})
	f.mu.Lock()
	again := batches
	f.mu.Unlock()
	if again < 2 {
		t.Errorf("%d batches sent again, want every one", again)
	}
	waitFed(t, hub, alpha, beta)
	if hs2, ht2, hc2 := dayTotals(t, hub.hist); hs2 != hs || ht2 != ht || hc2 != hc {
		t.Errorf("after every batch again: %d sessions, %d turns, $%v; want %d, %d, $%v", hs2, ht2, hc2, hs, ht, hc)
	}
	if hk2 := dayTokens(t, hub.hist); hk2 != hk {
		t.Errorf("after every batch again: %d tokens, want %d", hk2, hk)
	}
	if ha2 := answersOf(t, hub.hist, "alpha") + answersOf(t, hub.hist, "beta"); ha2 != ha {
		t.Errorf("after every batch again: %d answers, want %d", ha2, ha)
	}
}

// TestHistoryFeedHubRestart: the hub stops after the first batch of a
// machine's history and starts again; the machine's reconnect brings the
// rest, from where the hub's file ends.
func TestHistoryFeedHubRestart(t *testing.T) {
	home := t.TempDir()
	first := make(chan struct{})
	var once sync.Once
	hub := startFeedHub(t, home, 20, func(ctx context.Context, _ string) {
		once.Do(func() { close(first) })
		<-ctx.Done() // the hub stops here, one batch in
	})
	cable := newLink(t, hubAddr(hub.node))
	alpha := startFeedMachine(t, hub.node, "alpha", cable.addr())
	for i := range 6 {
		alpha.session(t, i)
	}
	newest := alpha.newest(t)
	<-first
	took, _ := hub.hist.Last(context.Background(), "alpha")
	hub.stop()
	if took == 0 || took >= newest {
		t.Fatalf("the first hub took up to %d of %d: want one batch", took, newest)
	}

	again := startFeedHub(t, home, 20, nil)
	cable.retarget(hubAddr(again.node))
	alpha.session(t, 6)
	waitFed(t, again, alpha)
}

// TestHistoryFeedRefusesForgery: a machine cannot say, ask or answer for
// another's history (the hub's permissions), a batch that names a machine
// is refused whole, and what a machine sends lands under its own name
// whatever its sessions are called. A revoked machine's word is not heard.
func TestHistoryFeedRefusesForgery(t *testing.T) {
	hub := startFeedHub(t, t.TempDir(), 50, nil)
	alpha := startFeedMachine(t, hub.node, "alpha", hubAddr(hub.node))
	alpha.session(t, 0)
	waitFed(t, hub, alpha)

	eve := joinHostile(t, hub.node, "eve")
	_ = eve.nc.Publish(histSaysSubject("alpha"), []byte(`{"newest":99}`))
	eve.refused(t, "saying alpha's history", histSaysSubject("alpha"))
	_, _ = eve.nc.Subscribe(histSubject("alpha"), func(*nats.Msg) {})
	eve.refused(t, "hearing the hub ask alpha", histSubject("alpha"))
	_ = eve.nc.Publish(histSubject("eve"), []byte(`{"after":0,"max":10}`))
	eve.refused(t, "asking as the hub", histSubject("eve"))

	// eve answers the hub's ask for her own history with alpha's session
	// id, and a batch that names alpha.
	forged := fmt.Appendf(nil, `{"events":[{"seq":1,"session":"alpha-s0","at":%d,"type":"session.opened","machine":"alpha"}],"last":1,"newest":1}`, feedDay0.UnixMilli())
	honest := fmt.Appendf(nil, `{"events":[{"seq":1,"session":"alpha-s0","at":%d,"type":"session.opened","title":"eve's"}],"last":1,"newest":1}`, feedDay0.UnixMilli())
	var answers sync.Mutex
	reply := forged
	if _, err := eve.nc.Subscribe(histSubject("eve"), func(m *nats.Msg) {
		answers.Lock()
		defer answers.Unlock()
		_ = m.Respond(reply)
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := decodeBatch(forged, 0, 10); !errors.Is(err, ErrBatch) {
		t.Fatalf("a batch naming a machine: %v, want ErrBatch", err)
	}
	_ = eve.nc.Publish(histSaysSubject("eve"), []byte(`{"newest":1}`))
	_ = eve.nc.Flush()
	answers.Lock()
	reply = honest
	answers.Unlock()
	// The forged batch moved nothing: the hub asks again at eve's next
	// word, and takes the honest one.
	waitfor.Until(t, "eve's honest batch", func() bool {
		_ = eve.nc.Publish(histSaysSubject("eve"), []byte(`{"newest":1}`))
		n, _ := hub.hist.Last(context.Background(), "eve")
		return n == 1
	})
	rows, _, _ := hub.hist.Sessions(context.Background(), store.Query{Machine: "eve"})
	if len(rows) != 1 || rows[0].ID != "alpha-s0" || rows[0].Title != "eve's" {
		t.Errorf("eve's sessions on the hub: %+v", rows)
	}
	waitFed(t, hub, alpha) // alpha's own untouched

	// Revoked: the hub hears no more of eve's history.
	if err := hub.node.Revoke("eve"); err != nil {
		t.Fatal(err)
	}
	hub.node.onHistSays("eve", []byte(`{"newest":50}`))
	f := hub.node.feed
	f.mu.Lock()
	_, wanted := f.want["eve"]
	f.mu.Unlock()
	if wanted {
		t.Error("the hub would ask a revoked machine for its history")
	}
}

// fakeHistory is a machine's history for readBatch; stale, its Last says
// one event less than Since finds (one written between the two reads).
type fakeHistory struct {
	evs   []store.Item
	stale bool
}

// event is e as an item of a machine's outbox at seq.
func event(seq int64, e state.Event) store.Item {
	return store.Item{Seq: seq, Event: &store.Event{Seq: seq, Event: e}}
}

func (h fakeHistory) Since(_ context.Context, after int64, n int) ([]store.Item, error) {
	var out []store.Item
	for _, e := range h.evs {
		if e.Seq > after && len(out) < n {
			out = append(out, e)
		}
	}
	return out, nil
}

func (h fakeHistory) Last(context.Context, string) (int64, error) {
	if len(h.evs) == 0 || h.stale && len(h.evs) == 1 {
		return 0, nil
	}
	if h.stale {
		return h.evs[len(h.evs)-2].Seq, nil
	}
	return h.evs[len(h.evs)-1].Seq, nil
}

func (fakeHistory) Take(context.Context, string, []store.Item, int64) error { return nil }
func (fakeHistory) Changes() (<-chan struct{}, func())                      { return nil, func() {} }

// TestReadBatch: a machine's batches stay under NATS's max_payload however
// large its events, reach their end, and say where they stop.
func TestReadBatch(t *testing.T) {
	big := strings.Repeat("<é>", state.MaxTitle/3)
	var h fakeHistory
	for i := range 400 {
		h.evs = append(h.evs, event(int64(1000+2*i), state.Event{Type: state.TypeSessionOpened, Session: fmt.Sprint("s", i),
			At: feedDay0.UnixMilli(), Title: big, Project: big, Cwd: "/" + strings.Repeat("<dir>", 800)}))
	}
	h.evs = append(h.evs, event(2000, state.Event{Type: state.TypeContextTokens, Session: "s1", At: feedDay0.UnixMilli()})) // no turn: no count
	after, batches := int64(0), 0
	for after < 2000 {
		data := readBatch(context.Background(), h, histAsk{After: after, Max: 500})
		if len(data) > maxFeedBytes {
			t.Fatalf("a batch of %d bytes, want at most %d", len(data), maxFeedBytes)
		}
		evs, last, newest, skipped, err := decodeBatch(data, after, 500)
		if err != nil || skipped != 0 || newest != 2000 || last <= after {
			t.Fatalf("batch after %d: %d events to %d of %d, %d skipped, %v", after, len(evs), last, newest, skipped, err)
		}
		after = last
		batches++
	}
	if batches < 2 {
		t.Errorf("%d batches: want the bytes to split them", batches)
	}
	// The end: the count with no turn is passed over, and the last batch
	// says it reaches the newest.
	data := readBatch(context.Background(), h, histAsk{After: 2000, Max: 500})
	if evs, last, _, _, err := decodeBatch(data, 2000, 500); err != nil || len(evs) != 0 || last != 2000 {
		t.Errorf("caught up: %d events to %d, %v", len(evs), last, err)
	}
	// An event written between the machine's two reads: the batch says its
	// history goes as far as the batch does.
	w := fakeHistory{stale: true, evs: []store.Item{
		event(1, state.Event{Type: state.TypeSessionOpened, Session: "a", At: feedDay0.UnixMilli()}),
		event(2, state.Event{Type: state.TypeTurnStarted, Session: "a", At: feedDay0.UnixMilli()}),
	}}
	if evs, last, newest, _, err := decodeBatch(readBatch(context.Background(), w, histAsk{Max: 500}), 0, 500); err != nil || len(evs) != 2 || last != 2 || newest != 2 {
		t.Errorf("a write between the reads: %d events to %d of %d, %v; want 2 to 2 of 2", len(evs), last, newest, err)
	}
}

// TestFeedTakesTurns: a machine still behind after its batches waits for
// the others' turns.
func TestFeedTakesTurns(t *testing.T) {
	f := newFeed(0)
	var got []string
	for range 6 {
		for _, m := range []string{"alpha", "beta", "gamma"} {
			f.want[m] = 100 // each still behind after its turn
		}
		name, _, ok := f.next()
		if !ok {
			t.Fatal("nothing to pull")
		}
		got = append(got, name)
	}
	if want := "alpha beta gamma alpha beta gamma"; strings.Join(got, " ") != want {
		t.Errorf("turns %q, want %q", strings.Join(got, " "), want)
	}
}

// feedSeeds are batches for TestDecodeBatch and FuzzDecodeBatch.
var feedSeeds = []struct {
	name, data string
	ok         bool
	events     int
	skipped    int
}{
	{"empty, caught up", `{"events":[],"last":10,"newest":10}`, true, 0, 0},
	{"two events", `{"events":[{"seq":11,"session":"a","at":5,"type":"session.opened","cwd":"/src/x","agent":"codex"},{"seq":13,"session":"a","at":6,"type":"turn.started"}],"last":14,"newest":20}`, true, 2, 0},
	{"a count", `{"events":[{"seq":11,"session":"a","at":5,"type":"context.tokens","tokens":4200}],"last":11,"newest":11}`, true, 1, 0},
	{"a count without its tokens left out", `{"events":[{"seq":11,"session":"a","at":5,"type":"context.tokens"}],"last":11,"newest":11}`, true, 0, 1},
	{"tokens on a turn left out", `{"events":[{"seq":11,"session":"a","at":5,"type":"turn.started","tokens":5}],"last":11,"newest":11}`, true, 0, 1},
	{"an unknown type left out", `{"events":[{"seq":11,"session":"a","at":5,"type":"rm -rf"}],"last":11,"newest":11}`, true, 0, 1},
	{"a bidi session id left out", `{"events":[{"seq":11,"session":"a\u202eb","at":5,"type":"turn.started"}],"last":11,"newest":11}`, true, 0, 1},
	{"a control character in a title left out", `{"events":[{"seq":11,"session":"a","at":5,"type":"session.titled","title":"x\u001b[2J"}],"last":11,"newest":11}`, true, 0, 1},
	{"no time left out", `{"events":[{"seq":11,"session":"a","at":0,"type":"turn.started"}],"last":11,"newest":11}`, true, 0, 1},
	{"a hostile agent left out", `{"events":[{"seq":11,"session":"a","at":5,"type":"turn.started","agent":"x\u200by"}],"last":11,"newest":11}`, true, 0, 1},
	// Answers and costs: an item with no event field and one of them.
	{"an answer", `{"events":[{"seq":11,"answer":{"session":"a","call":"toolu_1","agent":"claude-code","tool":"Bash","by":"board","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 1, 0},
	{"a cost", `{"events":[{"seq":12,"cost":{"session":"a","at":5,"usd":0.25}}],"last":12,"newest":12}`, true, 1, 0},
	// Tokens: a session's running total at a time.
	{"tokens", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":4200}}],"last":12,"newest":12}`, true, 1, 0},
	{"no tokens yet", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":0}}],"last":12,"newest":12}`, true, 1, 0},
	{"negative tokens left out", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":-1}}],"last":12,"newest":12}`, true, 0, 1},
	{"tokens past their bound left out", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":1125899906842625}}],"last":12,"newest":12}`, true, 0, 1},
	{"tokens at no time left out", `{"events":[{"seq":12,"used":{"session":"a","at":0,"total":1}}],"last":12,"newest":12}`, true, 0, 1},
	{"tokens of a bidi session left out", `{"events":[{"seq":12,"used":{"session":"a\u202eb","at":5,"total":1}}],"last":12,"newest":12}`, true, 0, 1},
	{"tokens and a cost in one left out", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":1},"cost":{"session":"a","at":5,"usd":1}}],"last":12,"newest":12}`, true, 0, 1},
	{"tokens with an event's fields left out", `{"events":[{"seq":12,"session":"a","at":5,"type":"turn.started","used":{"session":"a","at":5,"total":1}}],"last":12,"newest":12}`, true, 0, 1},
	{"tokens as text", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":"many"}}],"last":12,"newest":12}`, false, 0, 0},
	{"tokens with a machine", `{"events":[{"seq":12,"used":{"session":"a","at":5,"total":1,"machine":"beta"}}],"last":12,"newest":12}`, false, 0, 0},
	// An answer's device is text a person gave (a paired device's name, a
	// push channel's), shown on the hub's page: one line, bounded.
	{"an answer on a device", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":"Pixel 9 · <b>me</b>","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 1, 0},
	{"an answer through ntfy", `{"events":[{"seq":11,"answer":{"session":"a","by":"push","device":"ntfy phone","outcome":"denied","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 1, 0},
	{"an answer on a device named as a machine is only text", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":"alpha","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 1, 0},
	{"an answer on a bidi device left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":"ph\u202eone","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer on a two-line device left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":"phone\nalpha","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer on a padded device left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":" phone","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer on a device past its bound left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer on a device with a lone surrogate (JSON reads U+FFFD): text", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":"ph\udc00one","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 1, 0},
	{"an answer's device as a number", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","device":7,"outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, false, 0, 0},
	{"an event, an answer, a cost", `{"events":[{"seq":11,"session":"a","at":5,"type":"turn.started"},{"seq":12,"answer":{"session":"a","by":"terminal","outcome":"denied","asked":5,"answered":6}},{"seq":13,"cost":{"session":"a","at":6,"usd":0}}],"last":13,"newest":13}`, true, 3, 0},
	{"an answer with an event's fields left out", `{"events":[{"seq":11,"session":"a","at":5,"type":"turn.started","answer":{"session":"a","by":"board","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer and a cost in one left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","outcome":"allowed","asked":5,"answered":7},"cost":{"session":"a","at":5,"usd":1}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer without its by left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer by a hostile word left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board\u202e","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer with a control character in its tool left out", `{"events":[{"seq":11,"answer":{"session":"a","tool":"x\u001b[2J","by":"board","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer of a bidi session left out", `{"events":[{"seq":11,"answer":{"session":"a\u202eb","by":"board","outcome":"allowed","asked":5,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer never asked left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","outcome":"allowed","asked":0,"answered":7}}],"last":11,"newest":11}`, true, 0, 1},
	{"an answer past the year 9999 left out", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","outcome":"allowed","asked":5,"answered":253402300800000}}],"last":11,"newest":11}`, true, 0, 1},
	{"a negative cost left out", `{"events":[{"seq":11,"cost":{"session":"a","at":5,"usd":-1}}],"last":11,"newest":11}`, true, 0, 1},
	{"a cost at no time left out", `{"events":[{"seq":11,"cost":{"session":"a","at":0,"usd":1}}],"last":11,"newest":11}`, true, 0, 1},
	{"a cost with no session left out", `{"events":[{"seq":11,"cost":{"session":"","at":5,"usd":1}}],"last":11,"newest":11}`, true, 0, 1},
	{"a cost beyond a float", `{"events":[{"seq":11,"cost":{"session":"a","at":5,"usd":1e400}}],"last":11,"newest":11}`, false, 0, 0},
	{"a cost as text", `{"events":[{"seq":11,"cost":{"session":"a","at":5,"usd":"1"}}],"last":11,"newest":11}`, false, 0, 0},
	{"an answer naming a machine", `{"events":[{"seq":11,"answer":{"session":"a","by":"board","outcome":"allowed","asked":5,"answered":7,"machine":"alpha"}}],"last":11,"newest":11}`, false, 0, 0},
	{"an answer out of order", `{"events":[{"seq":12,"cost":{"session":"a","at":5,"usd":1}},{"seq":11,"answer":{"session":"a","by":"board","outcome":"allowed","asked":5,"answered":7}}],"last":12,"newest":12}`, false, 0, 0},
	{"the machine's error", `{"events":[],"last":0,"newest":0,"error":"unavailable"}`, false, 0, 0},
	{"a machine named", `{"events":[{"seq":11,"session":"a","at":5,"type":"turn.started","machine":"alpha"}],"last":11,"newest":11}`, false, 0, 0},
	{"an unknown field", `{"events":[],"last":10,"newest":10,"machine":"alpha"}`, false, 0, 0},
	{"out of order", `{"events":[{"seq":12,"session":"a","at":5,"type":"turn.started"},{"seq":11,"session":"a","at":5,"type":"turn.started"}],"last":12,"newest":12}`, false, 0, 0},
	{"a sequence not past the ask", `{"events":[{"seq":10,"session":"a","at":5,"type":"turn.started"}],"last":10,"newest":10}`, false, 0, 0},
	{"an event past its last", `{"events":[{"seq":15,"session":"a","at":5,"type":"turn.started"}],"last":12,"newest":20}`, false, 0, 0},
	{"last behind the ask", `{"events":[],"last":3,"newest":10}`, false, 0, 0},
	{"newest behind last", `{"events":[],"last":12,"newest":11}`, false, 0, 0},
	{"a sequence past 2^53", `{"events":[],"last":9007199254740993,"newest":9007199254740993}`, false, 0, 0},
	{"trailing data", `{"events":[],"last":10,"newest":10} {}`, false, 0, 0},
	{"not JSON", `events`, false, 0, 0},
}

func TestDecodeBatch(t *testing.T) {
	for _, c := range feedSeeds {
		evs, _, _, skipped, err := decodeBatch([]byte(c.data), 10, 5)
		if (err == nil) != c.ok || len(evs) != c.events || skipped != c.skipped {
			t.Errorf("%s: %d events, %d skipped, %v; want ok %v, %d events, %d skipped", c.name, len(evs), skipped, err, c.ok, c.events, c.skipped)
		}
	}
	var many strings.Builder
	many.WriteString(`{"events":[`)
	for i := range 6 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"seq":%d,"session":"a","at":5,"type":"turn.started"}`, 11+i)
	}
	many.WriteString(`],"last":16,"newest":16}`)
	if _, _, _, _, err := decodeBatch([]byte(many.String()), 10, 5); !errors.Is(err, ErrBatch) {
		t.Errorf("six events asked for five: %v", err)
	}
	if _, _, _, _, err := decodeBatch(make([]byte, maxFeedReply+1), 10, 5); !errors.Is(err, ErrBatch) {
		t.Errorf("a reply beyond max_payload: %v", err)
	}
}

// FuzzDecodeBatch: whatever a machine answers, the hub either refuses it
// whole or takes items in order past the ask, within the batch, each one
// event of the vocabulary's, one answer, one cost or one total of tokens
// within their bounds.
func FuzzDecodeBatch(f *testing.F) {
	for _, c := range feedSeeds { // the table's batches: good, hostile, malformed
		f.Add([]byte(c.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, last, newest, _, err := decodeBatch(data, 10, 5)
		if err != nil {
			return
		}
		if len(evs) > 5 || last < 10 || newest < last || newest > maxSeq {
			t.Fatalf("%d events to %d of %d", len(evs), last, newest)
		}
		prev := int64(10)
		for _, it := range evs {
			if it.Seq <= prev || it.Seq > last {
				t.Fatalf("item %d after %d, the batch reaching %d", it.Seq, prev, last)
			}
			prev = it.Seq
			switch {
			case it.Event != nil && it.Answer == nil && it.Cost == nil && it.Tokens == nil:
				if e := it.Event; e.Machine != "" || e.Seq != it.Seq || e.Event.Validate() != nil {
					t.Fatalf("event %+v at %d", e, it.Seq)
				}
			case it.Answer != nil && it.Event == nil && it.Cost == nil && it.Tokens == nil:
				a := it.Answer
				if !state.ValidSessionID(a.Session) || a.By == "" || a.Outcome == "" || textrule.Has(a.By+a.Outcome+a.Tool+a.Agent+a.Call+a.Device) ||
					len(a.Device) > host.MaxAnswerDevice || strings.TrimSpace(a.Device) != a.Device ||
					a.Asked.UnixMilli() <= 0 || a.Answered.UnixMilli() > state.MaxAt {
					t.Fatalf("answer %+v at %d", a, it.Seq)
				}
			case it.Cost != nil && it.Event == nil && it.Answer == nil && it.Tokens == nil:
				if c := it.Cost; !state.ValidSessionID(c.Session) || !(c.USD >= 0) || c.At <= 0 || c.At > state.MaxAt {
					t.Fatalf("cost %+v at %d", c, it.Seq)
				}
			case it.Tokens != nil && it.Event == nil && it.Answer == nil && it.Cost == nil:
				if u := it.Tokens; !state.ValidSessionID(u.Session) || u.Total < 0 || u.Total > store.MaxTokens || u.At <= 0 || u.At > state.MaxAt {
					t.Fatalf("tokens %+v at %d", u, it.Seq)
				}
			default:
				t.Fatalf("item %d is not one of an event, an answer, a cost and tokens: %+v", it.Seq, it)
			}
		}
		_, _ = json.Marshal(evs)
	})
}

// TestHistoryFeedOff: a machine with no history (--history off) answers
// no ask — nothing listens on its subject — and a hub with none takes no
// machine's word.
func TestHistoryFeedOff(t *testing.T) {
	hub := testHub(t)
	testMachine(t, hub, "alpha") // no SetHistory
	waitfor.Until(t, "alpha on the hub", func() bool { return len(hub.Machines()) == 1 && hub.Machines()[0].Present })
	if _, err := hub.nc.Request(histSubject("alpha"), []byte(`{"after":0,"max":10}`), feedWait); !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("asking a machine with no history: %v, want no responders", err)
	}
	hub.onHistSays("alpha", []byte(`{"newest":5}`))
	hub.feed.mu.Lock()
	defer hub.feed.mu.Unlock()
	if len(hub.feed.want) != 0 {
		t.Errorf("a hub with no history would ask %v", hub.feed.want)
	}
}
