package ledger

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Ledger is the host's ledger: a Book of plan figures and a Tally of cost
// and tokens behind one lock. Every change bumps its Version and calls
// OnChange; every threshold crossed or usage limit ended goes to OnEvent.
// It runs no timer: the board's pages ask NextChange and wake then (as for
// the board's own NextChange), and call Step.
type Ledger struct {
	mu      sync.Mutex
	book    *Book
	tally   *Tally
	machine string
	version uint64
	// onChange and onEvent are called without the lock held.
	onChange func()
	onEvent  func(Event)
	onCount  func(Usage)
	// remote is each other machine's latest own lines (SetLines): a
	// snapshot that replaces the last, so a message taken twice, or
	// again on reconnect, counts nothing twice.
	remote map[string][]Line
}

// Options are a Ledger's dependencies.
type Options struct {
	// Machine names this machine: readings and usage with none are its.
	Machine string
	// Cadence and Levels are the Book's (per agent).
	Cadence func(agent string) time.Duration
	Levels  func(agent string) []float64
	// Loc is the time zone of the tally's days (nil: local).
	Loc *time.Location
	// OnChange is called after every change (the board's pages render).
	OnChange func()
	// OnEvent is called with every level crossed and limit ended (pushes).
	OnEvent func(Event)
	// OnCount is called, without the lock, with what each AddUsage or
	// AddTotal counted: the increment, or a running total's growth — so
	// a session told two ways is passed on one way only, as it is counted
	// (the history keeps it: host/store RecordTokens).
	OnCount func(Usage)
}

// New returns an empty ledger.
func New(o Options) *Ledger {
	b := NewBook()
	b.Cadence, b.Levels = o.Cadence, o.Levels
	return &Ledger{book: b, tally: NewTally(o.Loc), machine: o.Machine, onChange: o.OnChange, onEvent: o.OnEvent, onCount: o.OnCount}
}

// SetLevels replaces the push levels (a settings change).
func (l *Ledger) SetLevels(levels func(agent string) []float64) {
	l.mu.Lock()
	l.book.Levels = levels
	l.mu.Unlock()
}

func (l *Ledger) after(changed bool, evs []Event) {
	if changed && l.onChange != nil {
		l.onChange()
	}
	if l.onEvent != nil {
		for _, e := range evs {
			l.onEvent(e)
		}
	}
}

// Add takes a reading received at now (see Book.Add); a reading that
// names no machine is this machine's.
func (l *Ledger) Add(r Reading, now time.Time) bool {
	if r.Machine == "" {
		r.Machine = l.machine
	}
	l.mu.Lock()
	changed, evs := l.book.Add(r, now)
	if changed {
		l.version++
	}
	l.mu.Unlock()
	l.after(changed, evs)
	return changed
}

// AddUsage counts the tokens and cost of one request or an increment (the
// OpenTelemetry receiver's). It is not idempotent: the caller sends each
// increment once (OTLP delta temporality, or one log record per request);
// a source of running totals uses AddTotal. Usage naming no machine is
// this machine's; with no time, it is now.
func (l *Ledger) AddUsage(u Usage) {
	l.addUsage(u, false)
}

// AddUsages is AddUsage for each of us, under one lock: one change for
// the lot, and what was counted passed on once per session (an export
// of a hundred calls is one note to the history, not a hundred).
func (l *Ledger) AddUsages(us []Usage) {
	now := time.Now()
	type key struct{ agent, machine, session string }
	var (
		sums  map[key]*Usage
		order []key
	)
	changed := false
	l.mu.Lock()
	for _, u := range us {
		if u.Machine == "" {
			u.Machine = l.machine
		}
		if u.At.IsZero() {
			u.At = now
		}
		d, ok := l.tally.count(u)
		if !ok {
			continue
		}
		changed = true
		if l.onCount == nil {
			continue
		}
		k := key{d.Agent, d.Machine, d.Session}
		if sums == nil {
			sums = map[key]*Usage{}
		}
		s := sums[k]
		if s == nil {
			c := d
			sums[k] = &c
			order = append(order, k)
			continue
		}
		s.InputTokens += d.InputTokens
		s.OutputTokens += d.OutputTokens
		s.CacheReadTokens += d.CacheReadTokens
		s.CacheWriteTokens += d.CacheWriteTokens
		if d.HasCost {
			s.CostUSD += d.CostUSD
			s.HasCost = true
		}
		if d.At.After(s.At) {
			s.At = d.At
		}
	}
	if changed {
		l.version++
	}
	l.mu.Unlock()
	for _, k := range order {
		l.onCount(*sums[k])
	}
	l.after(changed, nil)
}

// AddTotal counts a session's running totals from one source (Tally's
// AddTotal): idempotent, the same total twice adds nothing.
func (l *Ledger) AddTotal(u Usage) {
	l.addUsage(u, true)
}

func (l *Ledger) addUsage(u Usage, total bool) {
	if u.Machine == "" {
		u.Machine = l.machine
	}
	if u.At.IsZero() {
		u.At = time.Now()
	}
	l.mu.Lock()
	var (
		d       Usage
		changed bool
	)
	if total {
		d, changed = l.tally.countTotal(u)
	} else {
		d, changed = l.tally.count(u)
	}
	if changed {
		l.version++
	}
	l.mu.Unlock()
	if changed && l.onCount != nil {
		l.onCount(d)
	}
	l.after(changed, nil)
}

// Step sends the events the clock alone brought by now (a limit ended) and
// reports whether the figures' phase moved since the last view.
func (l *Ledger) Step(now time.Time) {
	l.mu.Lock()
	evs := l.book.Step(now)
	l.mu.Unlock()
	l.after(false, evs)
}

// Stopped takes a usage limit a session of agent on machine ("": this
// one) stopped on, resetting at resets (see Book.Stopped): a Step at or
// after resets tells the agent can run again. It reports whether the
// ledger took it (a limit it holds already is not taken again).
func (l *Ledger) Stopped(agent, machine string, resets, now time.Time) bool {
	if machine == "" {
		machine = l.machine
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.book.Stopped(agent, machine, resets, now)
}

// Forget drops the figures of a machine gone from the hub.
func (l *Ledger) Forget(machine string) {
	l.mu.Lock()
	changed := l.book.Forget(machine)
	if _, had := l.remote[machine]; had {
		delete(l.remote, machine)
		changed = true
	}
	if changed {
		l.version++
	}
	l.mu.Unlock()
	l.after(changed, nil)
}

// Snapshot is the ledger at an instant.
type Snapshot struct {
	Figures []Figure
	Lines   []Line
	// Next is when the clock alone next changes the figures (zero: never).
	Next time.Time
	// Phase digests the figures' states at the instant (Book.Phase).
	Phase uint64
}

// Snapshot returns the ledger as of now.
func (l *Ledger) Snapshot(now time.Time) Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Snapshot{Figures: l.book.Figures(now), Lines: l.lines(), Next: l.book.NextChange(now), Phase: l.book.Phase(now)}
}

// Readings are this machine's own readings (what it publishes to a hub).
func (l *Ledger) Readings() []Reading {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Reading
	for _, r := range l.book.figs {
		if r.Machine == l.machine {
			out = append(out, r)
		}
	}
	return out
}

// NextChange is when the clock alone next changes the ledger (zero: never).
func (l *Ledger) NextChange(now time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.book.NextChange(now)
}

// Phase is the book's Phase at now.
func (l *Ledger) Phase(now time.Time) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.book.Phase(now)
}

// Version counts the ledger's changes.
func (l *Ledger) Version() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}

// MaxRemoteMachines bounds the machines whose lines a ledger keeps.
const MaxRemoteMachines = 256

// lines are this machine's tally and the other machines' latest lines, in
// Lines order. l.mu is held.
func (l *Ledger) lines() []Line {
	out := l.tally.Lines()
	if len(l.remote) == 0 {
		return out
	}
	for _, ls := range l.remote {
		out = append(out, ls...)
	}
	slices.SortFunc(out, func(x, y Line) int {
		return cmp.Or(cmp.Compare(x.Day, y.Day), cmp.Compare(x.Agent, y.Agent), cmp.Compare(x.Machine, y.Machine), cmp.Compare(x.Session, y.Session))
	})
	return out
}

// OwnLines are this machine's own session-days, the newest days first, at
// most n (what it publishes to a hub: totals only, no prompt).
func (l *Ledger) OwnLines(n int) []Line {
	l.mu.Lock()
	ls := l.tally.Lines()
	l.mu.Unlock()
	own := ls[:0]
	for _, x := range ls {
		if x.Machine == l.machine {
			own = append(own, x)
		}
	}
	slices.Reverse(own) // newest day first
	if len(own) > n {
		own = own[:n]
	}
	return own
}

// SetLines takes another machine's own lines (its latest message): they
// replace what it sent before, each named by it. A machine's message
// about this machine is not taken.
func (l *Ledger) SetLines(machine string, lines []Line) {
	if machine == "" || machine == l.machine {
		return
	}
	ls := make([]Line, 0, len(lines))
	for _, x := range lines {
		x.Machine = machine
		ls = append(ls, x)
	}
	l.mu.Lock()
	old, had := l.remote[machine]
	changed := !(had && slices.Equal(old, ls) || !had && len(ls) == 0)
	if changed {
		if l.remote == nil {
			l.remote = map[string][]Line{}
		}
		if !had && len(l.remote) >= MaxRemoteMachines {
			changed = false
		} else {
			l.remote[machine] = ls
			l.version++
		}
	}
	l.mu.Unlock()
	l.after(changed, nil)
}
