package ledger

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"
)

// Reading is one plan-window figure as a source reported it.
type Reading struct {
	// Agent is the agent's registry name ("claude-code", "codex").
	Agent string `json:"agent"`
	// Account names the plan's account where the agent names it; "" when
	// it does not (then each machine's figure is its own).
	Account string `json:"account,omitempty"`
	// Window is the agent's name for the window ("five_hour", "seven_day";
	// Codex's "primary", "secondary").
	Window string `json:"window"`
	// Minutes is the window's length where told; 0 when not.
	Minutes int `json:"minutes,omitempty"`
	// UsedPct is the share of the window used, 0 … 100.
	UsedPct float64 `json:"usedPct"`
	// ResetsAt is when the window resets (the vendor's instant); zero when
	// not told.
	ResetsAt time.Time `json:"resetsAt,omitzero"`
	// AsOf is when the source saw the figure, in the reporting machine's
	// clock.
	AsOf time.Time `json:"asOf"`
	// Machine is the machine that reported it ("" is this one until the
	// ledger names it).
	Machine string `json:"machine,omitempty"`
	// Sent is the reporting machine's clock when it sent the reading to
	// this one (host/mesh); zero for a reading of this machine. The
	// difference to the time it arrived corrects AsOf for a machine whose
	// clock runs off.
	Sent time.Time `json:"sent,omitzero"`
}

// Key is which figure a reading is of: per account where the agent names
// one (two machines on one account are one figure), else per machine.
type Key struct {
	Agent, Account, Machine, Window string
}

// KeyOf is r's figure.
func KeyOf(r Reading) Key {
	if r.Account != "" {
		return Key{Agent: r.Agent, Account: r.Account, Window: r.Window}
	}
	return Key{Agent: r.Agent, Machine: r.Machine, Window: r.Window}
}

// State is what a figure can be trusted for at an instant.
type State string

const (
	// Fresh: reported within its agent's cadence.
	Fresh State = "fresh"
	// Stale: no reading for longer than the agent's cadence; shown greyed
	// with its age.
	Stale State = "stale"
	// Reset: its window's reset has passed since the reading: the old
	// percentage no longer holds and is not shown.
	Reset State = "reset"
)

// Figure is one window as the ledger shows it at an instant.
type Figure struct {
	Reading       // the freshest reading; AsOf in this machine's clock
	State   State // at the instant asked
	Age     time.Duration
}

// Limited reports whether the figure says its agent cannot run now (its
// window used up and not yet reset).
func (f Figure) Limited() bool { return f.State != Reset && f.UsedPct >= 100 }

// EventKind is what a step of the ledger tells the user.
type EventKind string

const (
	// Crossed: a window crossed one of its agent's levels (once per
	// window).
	Crossed EventKind = "crossed"
	// Ended: a window that was used up has reset: the agent can run again.
	Ended EventKind = "ended"
)

// Event is a threshold crossed or a usage limit ended.
type Event struct {
	Kind   EventKind
	Figure Figure
	Level  float64 // the level crossed (Crossed)
}

// DefaultCadence is how long a reading stays fresh for an agent whose
// cadence is not told.
const DefaultCadence = 10 * time.Minute

// DefaultLevels are the usage levels a push is sent at, in percent.
var DefaultLevels = []float64{80, 95}

// maxFigures bounds the figures a book keeps (a hub hears many machines).
const maxFigures = 512

// Book is the ledger's plan figures and the pushes already sent, stepped
// by a clock its caller passes. The zero value is not usable; use NewBook.
type Book struct {
	figs map[Key]Reading
	// fired is, per figure, the window (its reset) a level push went out
	// for and the highest level sent.
	fired map[Key]fired
	// limited are the figures used up, until their reset's Ended event.
	limited map[Key]time.Time
	// stopped are the usage limits sessions stopped on (Stopped), per
	// agent and machine (Window StoppedWindow), until their reset.
	stopped map[Key]time.Time
	// Cadence is how long an agent's reading stays fresh (nil: DefaultCadence).
	Cadence func(agent string) time.Duration
	// Levels are an agent's push levels in percent, ascending (nil:
	// DefaultLevels).
	Levels func(agent string) []float64
}

type fired struct {
	resets time.Time
	level  float64
}

// NewBook returns an empty book.
func NewBook() *Book {
	return &Book{figs: map[Key]Reading{}, fired: map[Key]fired{}, limited: map[Key]time.Time{}, stopped: map[Key]time.Time{}}
}

func (b *Book) cadence(agent string) time.Duration {
	if b.Cadence != nil {
		if c := b.Cadence(agent); c > 0 {
			return c
		}
	}
	return DefaultCadence
}

func (b *Book) levels(agent string) []float64 {
	if b.Levels != nil {
		return b.Levels(agent)
	}
	return DefaultLevels
}

// Normalize is r as the book keeps it, received at now: its AsOf moved by
// the reporting machine's clock error (now − Sent) and never later than
// now, its percentage within 0 … 100, its reset to the second. ok is false
// for a reading that is not one (no agent or window, a NaN).
func Normalize(r Reading, now time.Time) (Reading, bool) {
	if r.Agent == "" || r.Window == "" || math.IsNaN(r.UsedPct) || math.IsInf(r.UsedPct, 0) || r.AsOf.IsZero() {
		return r, false
	}
	if !r.Sent.IsZero() {
		r.AsOf = r.AsOf.Add(now.Sub(r.Sent))
		r.Sent = time.Time{}
	}
	if r.AsOf.After(now) {
		r.AsOf = now
	}
	r.UsedPct = min(max(r.UsedPct, 0), 100)
	r.Minutes = max(r.Minutes, 0)
	r.AsOf = r.AsOf.Round(0)
	r.ResetsAt = r.ResetsAt.Round(0).Truncate(time.Second)
	return r, true
}

// Add takes a reading received at now. It replaces its figure's reading
// only when it is fresher (its AsOf later); changed says whether it did.
// The events are the levels the figure crossed, once per window.
func (b *Book) Add(r Reading, now time.Time) (changed bool, evs []Event) {
	r, ok := Normalize(r, now)
	if !ok {
		return false, nil
	}
	k := KeyOf(r)
	old, had := b.figs[k]
	if had && !r.AsOf.After(old.AsOf) {
		return false, nil
	}
	if !had && len(b.figs) >= maxFigures {
		b.evictOldest()
	}
	b.figs[k] = r
	f := b.figure(r, now)
	if f.State == Reset {
		return true, nil
	}
	if f.Limited() && !r.ResetsAt.IsZero() {
		b.limited[k] = r.ResetsAt
	} else {
		delete(b.limited, k)
	}
	if lvl, ok := b.crossed(k, r); ok {
		evs = append(evs, Event{Kind: Crossed, Figure: f, Level: lvl})
	}
	return true, evs
}

// crossed records and reports the highest level r reaches that was not
// yet pushed for its window. A new window (a later reset, or, with none
// told, a percentage below the level sent) starts over.
func (b *Book) crossed(k Key, r Reading) (float64, bool) {
	fd, had := b.fired[k]
	if had && (r.ResetsAt.Sub(fd.resets) > time.Minute || r.UsedPct < fd.level && r.ResetsAt.IsZero()) {
		had, fd = false, fired{}
	}
	var hit float64
	for _, l := range b.levels(r.Agent) {
		if r.UsedPct >= l && l > hit {
			hit = l
		}
	}
	if hit == 0 || (had && hit <= fd.level) {
		return 0, false
	}
	b.fired[k] = fired{resets: r.ResetsAt, level: hit}
	return hit, true
}

func (b *Book) evictOldest() {
	var oldest Key
	var at time.Time
	first := true
	for k, r := range b.figs {
		if first || r.AsOf.Before(at) {
			oldest, at, first = k, r.AsOf, false
		}
	}
	delete(b.figs, oldest)
	delete(b.fired, oldest)
	delete(b.limited, oldest)
}

func (b *Book) figure(r Reading, now time.Time) Figure {
	f := Figure{Reading: r, State: Fresh, Age: max(now.Sub(r.AsOf), 0)}
	switch {
	case !r.ResetsAt.IsZero() && !now.Before(r.ResetsAt):
		f.State = Reset
	case f.Age > b.cadence(r.Agent):
		f.State = Stale
	}
	return f
}

// StoppedWindow is the Window of an Ended event for a usage limit a
// session stopped on (Book.Stopped), not a plan window an agent told.
const StoppedWindow = "stopped"

// stoppedAhead bounds how far ahead a limit's reset is kept: no plan
// window is longer than a week.
const stoppedAhead = 8 * 24 * time.Hour

// Stopped takes a usage limit a session of agent on machine stopped on,
// resetting at resets (the agent's own words: Codex's "try again at
// 5:46 PM", Claude Code's "resets 2pm"), heard at now: Step says the
// agent can run again at resets, once per agent and machine. It keeps
// none that is past, or further ahead than a week and a day, and none
// that a used-up plan window of the agent says already (its reset within
// a minute of this one). Of two limits of one agent and machine the later
// reset holds: the agent cannot run before both have reset. It reports
// whether the book took it.
func (b *Book) Stopped(agent, machine string, resets, now time.Time) bool {
	resets = resets.Round(0).Truncate(time.Second)
	if agent == "" || !resets.After(now) || resets.Sub(now) > stoppedAhead || b.windowEnds(agent, machine, resets) {
		return false
	}
	k := Key{Agent: agent, Machine: machine, Window: StoppedWindow}
	if at, had := b.stopped[k]; had && !resets.After(at) || !had && len(b.stopped) >= maxFigures {
		return false
	}
	b.stopped[k] = resets
	return true
}

// windowEnds reports whether a used-up plan window of agent (this
// machine's, or an account's) resets within a minute of at: its own
// Ended event tells the agent can run again.
func (b *Book) windowEnds(agent, machine string, at time.Time) bool {
	for k, resets := range b.limited {
		if sameEnd(k, resets, agent, machine, at) {
			return true
		}
	}
	return false
}

// sameEnd reports whether the window k, resetting at resets, ends the
// limit of agent on machine that resets at at: this machine's window or an
// account's, within a minute of it.
func sameEnd(k Key, resets time.Time, agent, machine string, at time.Time) bool {
	return k.Agent == agent && (k.Machine == machine || k.Account != "") && resets.Sub(at).Abs() <= time.Minute
}

// Step tells what the clock alone did by now: each used-up window whose
// reset has come (the agent can run again), once; and each usage limit a
// session stopped on whose reset has come, once, unless a window's end
// in this step says it.
func (b *Book) Step(now time.Time) []Event {
	var evs []Event
	for k, at := range b.limited {
		if now.Before(at) {
			continue
		}
		delete(b.limited, k)
		if r, ok := b.figs[k]; ok {
			evs = append(evs, Event{Kind: Ended, Figure: b.figure(r, now)})
		}
	}
	for k, at := range b.stopped {
		if now.Before(at) {
			continue
		}
		delete(b.stopped, k)
		told := slices.ContainsFunc(evs, func(e Event) bool {
			return sameEnd(KeyOf(e.Figure.Reading), e.Figure.ResetsAt, k.Agent, k.Machine, at)
		})
		if !told {
			r := Reading{Agent: k.Agent, Machine: k.Machine, Window: StoppedWindow, UsedPct: 100, ResetsAt: at, AsOf: at}
			evs = append(evs, Event{Kind: Ended, Figure: Figure{Reading: r, State: Reset, Age: now.Sub(at)}})
		}
	}
	slices.SortFunc(evs, func(x, y Event) int { return compareKeys(KeyOf(x.Figure.Reading), KeyOf(y.Figure.Reading)) })
	return evs
}

// Figures are the book's figures at now, by agent, account, machine and
// window.
func (b *Book) Figures(now time.Time) []Figure {
	out := make([]Figure, 0, len(b.figs))
	for _, r := range b.figs {
		out = append(out, b.figure(r, now))
	}
	slices.SortFunc(out, func(x, y Figure) int { return compareKeys(KeyOf(x.Reading), KeyOf(y.Reading)) })
	return out
}

func compareKeys(x, y Key) int {
	return cmp.Or(cmp.Compare(x.Agent, y.Agent), cmp.Compare(x.Account, y.Account),
		cmp.Compare(x.Machine, y.Machine), cmp.Compare(x.Window, y.Window))
}

// NextChange is the earliest instant after now at which the clock alone
// changes what Figures or Step say: a window's reset, a fresh figure going
// stale. Zero when nothing changes by time. The age shown ticks in the page.
func (b *Book) NextChange(now time.Time) time.Time {
	var next time.Time
	take := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, r := range b.figs {
		if !r.ResetsAt.IsZero() {
			take(r.ResetsAt)
		}
		take(r.AsOf.Add(b.cadence(r.Agent) + time.Nanosecond))
	}
	for _, at := range b.stopped {
		take(at)
	}
	return next
}

// Phase is a digest of what the figures show at now beyond their readings
// (which are fresh, stale or reset): the board renders again when it
// changes by the clock alone.
func (b *Book) Phase(now time.Time) uint64 {
	var h uint64
	for k, r := range b.figs {
		s := b.figure(r, now).State
		if s == Fresh {
			continue
		}
		x := fnv(k.Agent + "\x00" + k.Account + "\x00" + k.Machine + "\x00" + k.Window + "\x00" + string(s))
		h ^= x
	}
	return h
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Forget drops the figures machine reported (a machine removed from the
// hub). Figures by account it reported last stay: they are the account's.
func (b *Book) Forget(machine string) bool {
	changed := false
	for k := range b.figs {
		if k.Account == "" && k.Machine == machine {
			delete(b.figs, k)
			delete(b.fired, k)
			delete(b.limited, k)
			changed = true
		}
	}
	for k := range b.stopped {
		if k.Machine == machine {
			delete(b.stopped, k)
		}
	}
	return changed
}

// Label is how a window is named to a person: by its length where told
// ("5-hour", "7-day"), else by the agent's own name for it.
func (r Reading) Label() string {
	m := r.Minutes
	switch {
	case m <= 0:
		switch r.Window {
		case "five_hour":
			return "5-hour"
		case "seven_day":
			return "7-day"
		}
		return r.Window
	case m%(24*60) == 0:
		return strconv.Itoa(m/(24*60)) + "-day"
	case m%60 == 0:
		return strconv.Itoa(m/60) + "-hour"
	}
	return strconv.Itoa(m) + "-minute"
}
