package ledger

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Usage is the tokens and cost of one request, or an increment of them, as
// a source reports it (the OpenTelemetry receiver; the host's readers of
// agents' own files through AddTotal).
type Usage struct {
	Agent, Session, Machine, Model, Source string
	At                                     time.Time
	InputTokens, OutputTokens              int64
	CacheReadTokens, CacheWriteTokens      int64
	CostUSD                                float64
	HasCost                                bool
}

// Totals are tokens and cost added up.
type Totals struct {
	InputTokens, OutputTokens         int64
	CacheReadTokens, CacheWriteTokens int64
	// CostUSD is the cost reported; HasCost is false when no source told
	// one (only tokens known: the cost stays empty, no price is guessed).
	CostUSD float64
	HasCost bool
	// HasTokens is false when no source told a token count (Claude Code's
	// statusline tells its cost alone): the tokens show empty, not 0.
	HasTokens bool
}

// Tokens is every token counted.
func (t Totals) Tokens() int64 {
	return t.InputTokens + t.OutputTokens + t.CacheReadTokens + t.CacheWriteTokens
}

func (t *Totals) add(u Usage) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheReadTokens += u.CacheReadTokens
	t.CacheWriteTokens += u.CacheWriteTokens
	if u.HasCost {
		t.CostUSD += u.CostUSD
		t.HasCost = true
	}
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens > 0 {
		t.HasTokens = true
	}
}

func (t *Totals) merge(o Totals) {
	t.add(Usage{InputTokens: o.InputTokens, OutputTokens: o.OutputTokens, CacheReadTokens: o.CacheReadTokens,
		CacheWriteTokens: o.CacheWriteTokens, CostUSD: o.CostUSD, HasCost: o.HasCost})
	t.HasTokens = t.HasTokens || o.HasTokens
}

// Line is one session's totals on one day.
type Line struct {
	Day     string // YYYY-MM-DD in the ledger's time zone
	Agent   string
	Machine string
	Session string
	Totals
}

type lineKey struct{ Day, Agent, Machine, Session string }

type totalKey struct{ Agent, Machine, Session, Source string }

// maxLines bounds the session-days the ledger adds up (the oldest day
// goes first); maxTotals the cumulative counters it remembers.
const (
	maxLines  = 20000
	maxTotals = 4000
)

// Tally is cost and tokens per session and day. The zero value is not
// usable; use NewTally.
type Tally struct {
	lines map[lineKey]*Totals
	last  map[totalKey]Usage
	loc   *time.Location
	// kind is how each session was first counted: by increments (Add, the
	// agents' OpenTelemetry) or by running totals (AddTotal: a statusline,
	// a rollout). A session is counted one way only, the first: the two
	// tell the same model calls, and nothing is counted twice.
	kind map[sessionKey]bool // true: increments
}

// sessionKey names one session of one agent on one machine.
type sessionKey struct{ Agent, Machine, Session string }

// NewTally returns an empty tally whose days are in loc (nil: local).
func NewTally(loc *time.Location) *Tally {
	if loc == nil {
		loc = time.Local
	}
	return &Tally{lines: map[lineKey]*Totals{}, last: map[totalKey]Usage{}, loc: loc, kind: map[sessionKey]bool{}}
}

// valid reports whether u is a usage to count: an agent and a time, no
// negative count, a finite non-negative cost.
func valid(u Usage) bool {
	if u.Agent == "" || u.At.IsZero() || u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 {
		return false
	}
	if u.HasCost && (math.IsNaN(u.CostUSD) || math.IsInf(u.CostUSD, 0) || u.CostUSD < 0) {
		return false
	}
	const most = 1 << 50
	return u.InputTokens < most && u.OutputTokens < most && u.CacheReadTokens < most && u.CacheWriteTokens < most && u.CostUSD < 1e12
}

// Add counts an increment. It is not idempotent: each call adds.
func (t *Tally) Add(u Usage) bool {
	_, ok := t.count(u)
	return ok
}

// count is Add, with what was counted.
func (t *Tally) count(u Usage) (Usage, bool) {
	if !valid(u) || !t.countedAs(u, true) {
		return Usage{}, false
	}
	return u, t.add(u)
}

// add counts u on its day's line.
func (t *Tally) add(u Usage) bool {
	k := lineKey{Day: u.At.In(t.loc).Format(time.DateOnly), Agent: u.Agent, Machine: u.Machine, Session: u.Session}
	l := t.lines[k]
	if l == nil {
		if len(t.lines) >= maxLines {
			t.dropOldestDay()
		}
		l = &Totals{}
		t.lines[k] = l
	}
	l.add(u)
	return true
}

// AddTotal counts a cumulative report: the session's totals so far from
// one source (Claude Code's statusline cost, Codex's token_count). Only
// the growth since the source's last report is added, so the same total
// twice adds nothing; a total lower than the last (the count started over)
// is added whole.
func (t *Tally) AddTotal(u Usage) bool {
	_, ok := t.countTotal(u)
	return ok
}

// countTotal is AddTotal, with the growth it counted.
func (t *Tally) countTotal(u Usage) (Usage, bool) {
	if !valid(u) || !t.countedAs(u, false) {
		return Usage{}, false
	}
	k := totalKey{u.Agent, u.Machine, u.Session, u.Source}
	prev, had := t.last[k]
	if !had && len(t.last) >= maxTotals {
		clear(t.last)
	}
	t.last[k] = u
	d := u
	if had && u.InputTokens >= prev.InputTokens && u.OutputTokens >= prev.OutputTokens &&
		u.CacheReadTokens >= prev.CacheReadTokens && u.CacheWriteTokens >= prev.CacheWriteTokens &&
		(!prev.HasCost || !u.HasCost || u.CostUSD >= prev.CostUSD) {
		d.InputTokens -= prev.InputTokens
		d.OutputTokens -= prev.OutputTokens
		d.CacheReadTokens -= prev.CacheReadTokens
		d.CacheWriteTokens -= prev.CacheWriteTokens
		if prev.HasCost && u.HasCost {
			d.CostUSD -= prev.CostUSD
		}
	}
	if d.InputTokens == 0 && d.OutputTokens == 0 && d.CacheReadTokens == 0 && d.CacheWriteTokens == 0 && (!d.HasCost || d.CostUSD == 0) {
		return Usage{}, false
	}
	return d, t.add(d)
}

func (t *Tally) dropOldestDay() {
	oldest := ""
	for k := range t.lines {
		if oldest == "" || k.Day < oldest {
			oldest = k.Day
		}
	}
	for k := range t.lines {
		if k.Day == oldest {
			delete(t.lines, k)
		}
	}
}

// Lines are the tally's session-days, by day, agent, machine, session.
func (t *Tally) Lines() []Line {
	out := make([]Line, 0, len(t.lines))
	for k, v := range t.lines {
		out = append(out, Line{Day: k.Day, Agent: k.Agent, Machine: k.Machine, Session: k.Session, Totals: *v})
	}
	slices.SortFunc(out, func(x, y Line) int {
		return cmp.Or(cmp.Compare(x.Day, y.Day), cmp.Compare(x.Agent, y.Agent), cmp.Compare(x.Machine, y.Machine), cmp.Compare(x.Session, y.Session))
	})
	return out
}

// Sum adds up lines by a key of each (an agent, a machine, a project, a
// day), in key order.
func Sum(lines []Line, by func(Line) string) []Group {
	m := map[string]*Totals{}
	for _, l := range lines {
		k := by(l)
		g := m[k]
		if g == nil {
			g = &Totals{}
			m[k] = g
		}
		g.merge(l.Totals)
	}
	out := make([]Group, 0, len(m))
	for k, v := range m {
		out = append(out, Group{Key: k, Totals: *v})
	}
	slices.SortFunc(out, func(x, y Group) int { return cmp.Compare(x.Key, y.Key) })
	return out
}

// Group is totals under one key.
type Group struct {
	Key string
	Totals
}

// countedAs reports whether u's session is counted by increments (true) or
// by running totals (false) — the way it was first counted; a session
// without a session id is counted either way (it has no twin).
func (t *Tally) countedAs(u Usage, increments bool) bool {
	if u.Session == "" {
		return true
	}
	k := sessionKey{u.Agent, u.Machine, u.Session}
	was, had := t.kind[k]
	if !had {
		if len(t.kind) >= maxTotals {
			clear(t.kind)
		}
		t.kind[k] = increments
		return true
	}
	return was == increments
}
