package web

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/notch-web/notch-web/host/ledger"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/notify"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// healthCounters reads the hub's counters from /healthz.
func healthCounters(t *testing.T, base string) (renders, views int64) {
	t.Helper()
	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var h struct{ Renders, Views int64 }
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.Renders, h.Views
}

// idleRows are rows in each status, with their "since"s showing.
func idleRows(n int) []state.Event {
	var evs []state.Event
	for i := range n {
		id := fmt.Sprintf("idle-%d", i)
		evs = append(evs, state.Event{Type: "session.opened", Session: id, Cwd: "/src/p"},
			state.Event{Type: "turn.started", Session: id},
			state.Event{Type: "tool.started", Session: id, Tool: "bash"})
		switch i % 3 {
		case 1:
			evs = append(evs, state.Event{Type: "approval.requested", Session: id, Tool: "bash"})
		case 2:
			evs = append(evs, state.Event{Type: "turn.ended", Session: id, Outcome: "completed"})
		}
	}
	return evs
}

// An idle host does no work for its pages (issue 34): with live rows and a
// tab open and nothing happening, over a few of state.json's heartbeats
// the hub neither renders nor so much as builds the view to find out.
func TestIdleHostBuildsNoView(t *testing.T) {
	t.Run("rows", func(t *testing.T) { idleHost(t, false) })
	// With a ledger (host/ledger) holding a stale window and one past its
	// reset: nothing is due until the fresh one's reset hours away, so
	// the ledger adds no wake-up (its expiry is a scheduled wake, not a
	// timer).
	t.Run("rows and a ledger", func(t *testing.T) { idleHost(t, true) })
}

func idleHost(t *testing.T, withLedger bool) {
	e := newEnv(t, envOpts{run: true})
	if _, err := e.board.Ingest(idleRows(20), time.Now()); err != nil {
		t.Fatal(err)
	}
	if withLedger {
		now := time.Now()
		l := e.board.Ledger()
		l.Add(ledger.Reading{Agent: "codex", Window: "primary", UsedPct: 40, AsOf: now.Add(-time.Hour), ResetsAt: now.Add(3 * time.Hour)}, now)
		l.Add(ledger.Reading{Agent: "claude-code", Window: "seven_day", UsedPct: 90, AsOf: now.Add(-2 * time.Hour), ResetsAt: now.Add(-time.Hour)}, now)
		l.AddUsage(ledger.Usage{Agent: "codex", Session: "idle-1", At: now, InputTokens: 5})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	s, stop := openStream(t, e.base)
	defer stop()
	go func() {
		for range s {
		}
	}()
	waitUntil(t, func() bool { r, _ := healthCounters(t, e.base); return r >= 1 && e.hub.Clients() == 1 })
	renders, views := healthCounters(t, e.base)

	// Three heartbeats: state.json rewritten three times with a new wallMs.
	path := filepath.Join(e.home, "state", "agents-notch", "state.json")
	var walls []int64
	waitfor.Until(t, "three heartbeats of state.json", func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		d, err := state.Decode(b)
		if err == nil && (len(walls) == 0 || d.WallMs > walls[len(walls)-1]) {
			walls = append(walls, d.WallMs)
		}
		return len(walls) > 3
	})
	r, v := healthCounters(t, e.base)
	if r != renders || v != views {
		t.Errorf("over %d idle heartbeats the hub rendered %d times and built the view %d times, want none", len(walls)-1, r-renders, v-views)
	}
}

// waitForPatch waits for a patch that ok accepts.
func waitForPatch(t *testing.T, ch <-chan string, what string, ok func(string) bool) {
	t.Helper()
	timeout := time.After(waitfor.Patience)
	for {
		select {
		case s, open := <-ch:
			if !open {
				t.Fatalf("stream closed before %s", what)
			}
			if ok(s) {
				return
			}
		case <-timeout:
			t.Fatalf("%s never arrived", what)
		}
	}
}

// The hub sleeps between changes, but what time alone changes still
// reaches the tabs when it is due: a followed host whose heartbeat goes
// stale shows as unknown with no new document (docs/contract.md rule 3).
func TestHubDrawsAFollowedHostGoingStale(t *testing.T) {
	e := newEnv(t, envOpts{follow: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	s, stop := openStream(t, e.base)
	defer stop()
	waitUntil(t, func() bool { return e.hub.Clients() == 1 })
	// Written now: stale StaleAfter (4 s) from now — room for a busy
	// machine to draw it known first; nothing else comes after it.
	e.board.SetFollowed(state.Document{Schema: state.Schema, WallMs: time.Now().UnixMilli(),
		Sessions: []state.Session{{ID: "far-1", Title: "far away", Status: state.StatusWorking, Identity: "teal"}}})
	waitForPatch(t, s, "the followed row, known", func(p string) bool {
		return strings.Contains(p, "far away") && !strings.Contains(p, "data-unknown")
	})
	waitForPatch(t, s, "the unknown state", func(p string) bool { return strings.Contains(p, "data-unknown") })
}

// A settled row under retire "timer" leaves the tabs RetireAfter after it
// settled, with nothing else happening (docs/contract.md rule 2).
func TestHubRetiresByTimerWithNoChange(t *testing.T) {
	e := newEnv(t, envOpts{patch: "- id: agents-notch\n  config:\n    retire: timer\n", retireAfter: 400 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	s, stop := openStream(t, e.base)
	defer stop()
	waitUntil(t, func() bool { return e.hub.Clients() == 1 })
	if _, err := e.board.Ingest([]state.Event{
		{Type: "session.opened", Session: "stays", Title: "still working"},
		{Type: "session.opened", Session: "leaves", Title: "done and leaving"},
	}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitForPatch(t, s, "both rows", func(p string) bool {
		return strings.Contains(p, "done and leaving") && strings.Contains(p, "still working")
	})
	// The one change: "leaves" is done. Nothing follows it; the row goes
	// by the retire timer alone (whether or not a busy machine drew it
	// done first).
	if _, err := e.board.Ingest([]state.Event{{Type: "turn.ended", Session: "leaves", Outcome: "completed"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitForPatch(t, s, "the board without the retired row", func(p string) bool {
		return strings.Contains(p, "still working") && !strings.Contains(p, "done and leaving")
	})
}

// signalLink is a joined machine's word on its hub that says when it
// changes, as host/mesh's Node does.
type signalLink struct {
	mu   sync.Mutex
	word string
	b    notify.Broadcast
}

func (l *signalLink) HubLink() string                          { l.mu.Lock(); defer l.mu.Unlock(); return l.word }
func (l *signalLink) SubscribeLink() (<-chan struct{}, func()) { return l.b.Subscribe() }
func (l *signalLink) set(w string)                             { l.mu.Lock(); l.word = w; l.mu.Unlock(); l.b.Notify() }

// A joined machine losing its hub changes no row, and the tabs still say
// so at once: the hub wakes for the link's signal.
func TestHubDrawsTheHubLinkChanging(t *testing.T) {
	e := newEnv(t, envOpts{})
	link := &signalLink{}
	e.hub.Link = link
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.hub.Run(ctx)
	s, stop := openStream(t, e.base)
	defer stop()
	waitUntil(t, func() bool { return e.hub.Clients() == 1 && e.hub.Renders() >= 1 })
	link.set("not connected to the hub: dialling again")
	waitFor(t, s, "dialling again")
}
