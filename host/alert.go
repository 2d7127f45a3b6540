package host

import (
	"sync"
	"time"

	"github.com/notch-web/notch-web/state"
)

// AlertGap is the least time between two alerts, across sessions: a burst
// of sessions finishing is one sound, not a chord.
const AlertGap = 5 * time.Second

// Alert is the board's newest alert: a session that rose into a status the
// human is told about. The page plays it (a sound, a notification) only
// when the board does not have the focus; the host decides which rises are
// alerts, so every tab agrees.
type Alert struct {
	// Seq identifies the alert (ms since the epoch when it was raised,
	// strictly increasing); 0 is none yet.
	Seq int64
	// Status is what the session rose into: attention, error or done.
	Status string
	// Session is the session's id.
	Session string
}

// Alerter turns the board's snapshots into alerts. An alert is a rising
// edge — a session seen in another status (or not at all) before, now in
// attention or error, or in done when the alerts setting is "all" — never
// for a subagent, and at most one per AlertGap across sessions: a rise in
// the gap is dropped, not delayed (its row keeps its status, and the page
// its unseen mark). The first snapshot only primes it: what is on the board
// when the host starts is not news. It is safe for concurrent use.
type Alerter struct {
	mu     sync.Mutex
	status map[string]string // the status each session had at the last snapshot
	primed bool
	last   Alert
}

// Observe compares doc with the snapshot before it and returns the newest
// alert (the one before, when nothing rose). alerts is the setting's value:
// all, needs-you or off.
func (a *Alerter) Observe(doc state.Document, alerts string, now time.Time) Alert {
	a.mu.Lock()
	defer a.mu.Unlock()
	prev := a.status
	a.status = make(map[string]string, len(doc.Sessions))
	var pick *state.Session
	for i := range doc.Sessions {
		s := &doc.Sessions[i]
		a.status[s.ID] = s.Status
		if !a.primed || prev[s.ID] == s.Status || !alertable(s.Status, alerts) ||
			s.Origin == state.OriginSubagent || s.ParentSession != "" {
			continue
		}
		// Of several rises at once, the most urgent speaks.
		if pick == nil || state.Relevance(s.Status) < state.Relevance(pick.Status) {
			pick = s
		}
	}
	a.primed = true
	if pick == nil {
		return a.last
	}
	ms := now.UnixMilli()
	if a.last.Seq != 0 && ms-a.last.Seq < AlertGap.Milliseconds() {
		return a.last
	}
	a.last = Alert{Seq: max(ms, a.last.Seq+1), Status: pick.Status, Session: pick.ID}
	return a.last
}

// alertable reports whether a rise into status is an alert under the
// alerts setting.
func alertable(status, alerts string) bool {
	switch status {
	case state.StatusAttention, state.StatusError:
		return alerts == "all" || alerts == "needs-you"
	case state.StatusDone:
		return alerts == "all"
	}
	return false
}
