package host

import "github.com/notch-web/notch-web/state"

// A short history per live row: its last HistoryLen events, in memory
// only, for the board's unfolded row. It starts empty when the host does
// (a restored row's history begins at the restart), goes with the row, and
// is not a history product: no search, no replay, nothing written.

// HistoryLen is how many events a row's history keeps.
const HistoryLen = 50

// maxHistoryText bounds each string of an entry.
const maxHistoryText = 120

// HistoryEntry is one event of a row, as the unfolded row shows it.
type HistoryEntry struct {
	AtMs    int64
	What    string // what happened, in words (historyWhat)
	Tool    string // the tool, when the event names one
	Outcome string // ok, error, completed, allowed-once, rejected …
}

// historyRing is a row's last HistoryLen entries.
type historyRing struct {
	e    [HistoryLen]HistoryEntry
	n    int // entries held, up to HistoryLen
	next int // where the next one goes
}

func (r *historyRing) add(e HistoryEntry) {
	r.e[r.next] = e
	r.next = (r.next + 1) % HistoryLen
	r.n = min(r.n+1, HistoryLen)
}

// relabelLast says in other words what the newest entry was.
func (r *historyRing) relabelLast(what string) {
	if r.n > 0 {
		r.e[(r.next-1+HistoryLen)%HistoryLen].What = what
	}
}

// list is the entries, newest first.
func (r *historyRing) list() []HistoryEntry {
	out := make([]HistoryEntry, 0, r.n)
	for i := 1; i <= r.n; i++ {
		out = append(out, r.e[(r.next-i+HistoryLen)%HistoryLen])
	}
	return out
}

// historyWhat is what an event type reads as in a history; "" is an event
// a history leaves out (context.tokens: a count, not a happening).
var historyWhat = map[string]string{
	state.TypeSessionOpened:     "session opened",
	state.TypeSessionTitled:     "titled",
	state.TypeTurnStarted:       "turn started",
	state.TypeToolStarted:       "tool started",
	state.TypeToolEnded:         "tool ended",
	state.TypeApprovalRequested: "asked for approval",
	state.TypeApprovalResolved:  "approval answered",
	state.TypeTurnEnded:         "turn ended",
	state.TypeSessionEnded:      "process ended",
	WhyEvent:                    "stopped",
}

// HistoryWhat is what an event of type typ reads as in a row's history,
// "" for one a history leaves out; the lasting history's entries
// (host/store) read the same.
func HistoryWhat(typ string) string { return historyWhat[typ] }

// recordLocked adds applied events to their rows' histories; the caller
// holds b.mu, after the fold took them. A row the fold does not hold
// (finished) has none.
func (b *Board) recordLocked(evs []state.Event) {
	for _, ev := range evs {
		if ev.Type == state.TypeSessionFinished {
			b.forgetLocked(ev.Session) // a row reopened under its id starts afresh
			continue
		}
		what := historyWhat[ev.Type]
		if what == "" || !b.fold.Has(ev.Session) {
			continue
		}
		if b.hist == nil {
			b.hist = map[string]*historyRing{}
		}
		r := b.hist[ev.Session]
		if r == nil {
			r = &historyRing{}
			b.hist[ev.Session] = r
		}
		r.add(HistoryEntry{
			AtMs:    ev.At,
			What:    what,
			Tool:    state.Cut(state.CleanText(ev.Tool), maxHistoryText),
			Outcome: state.Cut(state.CleanText(ev.Outcome), maxHistoryText),
		})
	}
}

// History is a row's last events, newest first, and whether the board's
// own fold holds the row (another machine's row, or a follower's, has no
// history here).
func (b *Board) History(id string) ([]HistoryEntry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.fold.Has(id) {
		return nil, false
	}
	if r := b.hist[id]; r != nil {
		return r.list(), true
	}
	return nil, true
}
