package host

import (
	"errors"
	"fmt"
	"github.com/notch-web/notch-web/adapters/claudecode"
	"github.com/notch-web/notch-web/host/ledger"
	"math"
	"sync"
	"time"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/state"
)

// Usage is what Claude Code's statusLine tells about the plan and about
// each session (notch-web statusline posts it): the plan's 5-hour and
// 7-day windows, and a session's cost and context window. It is shown on
// the board page only; state.json (schema 4, frozen) carries none of it,
// and context.budget stays the row's (docs/contract.md rule 1).
type Usage struct {
	// Reported is true once any statusline report has arrived: before, the
	// board draws no plan at all; after, a window not reported reads "—".
	Reported bool
	// FiveHour and SevenDay are the plan's windows; nil when the latest
	// report did not carry them (API-key users, before the first reply).
	FiveHour, SevenDay *PlanWindow
	// Sessions are the sessions' own figures, by row id.
	Sessions map[string]SessionUsage
}

// PlanWindow is one of the plan's rate-limit windows.
type PlanWindow struct {
	UsedPct    float64 // 0 … 100
	ResetsAtMs int64   // 0: not reported
}

// SessionUsage is one session's figures from its statusline.
type SessionUsage struct {
	CostUSD *float64
	// WindowSize is the context window Claude Code reports for the session
	// (tokens; 0: not reported): a real budget, so the board may draw the
	// bar against it (rule 1).
	WindowSize int64
	// UsedPct is Claude Code's own share of that window in use; nil: not
	// reported.
	UsedPct *float64
	// Tokens is the context in use by Claude Code's count (the last
	// reply's input, cached or not); 0: not reported.
	Tokens int64
}

// StatuslineReport is the body of POST /agents-notch/statusline: what
// "notch-web statusline" took from Claude Code's statusLine JSON.
type StatuslineReport struct {
	Session       string         `json:"session"`
	FiveHour      *ReportWindow  `json:"fiveHour,omitempty"`
	SevenDay      *ReportWindow  `json:"sevenDay,omitempty"`
	CostUSD       *float64       `json:"costUsd,omitempty"`
	ContextWindow *ReportContext `json:"contextWindow,omitempty"`
}

// ReportWindow is a plan window as reported.
type ReportWindow struct {
	UsedPct  float64 `json:"usedPct"`
	ResetsAt int64   `json:"resetsAt,omitempty"` // seconds since the epoch
}

// ReportContext is a session's context window as reported.
type ReportContext struct {
	Size    int64    `json:"size"`
	UsedPct *float64 `json:"usedPct,omitempty"`
	Tokens  *int64   `json:"tokens,omitempty"` // in use: the last reply's input, cached or not
}

// ErrReport is a statusline report the host refuses.
var ErrReport = errors.New("bad statusline report")

// maxUsageSessions bounds the sessions Usage remembers (as the fold's own
// limit does).
const maxUsageSessions = 1000

// ParseStatuslineReport reads and checks a report: one JSON object
// (internal/jsonx: nothing after it, no key twice), no unknown fields, a session id as events have them, percentages in 0 … 100
// (a little over is clamped: a window can run over), sizes and costs
// finite and not negative.
func ParseStatuslineReport(body []byte) (StatuslineReport, error) {
	var r StatuslineReport
	if err := jsonx.DecodeOne(body, &r, jsonx.Options{Strict: true}); err != nil {
		return r, fmt.Errorf("%w: %s", ErrReport, jsonx.Reason(err))
	}
	if !state.ValidSessionID(r.Session) {
		return r, fmt.Errorf("%w: session must be 1 to %d bytes of text", ErrReport, state.MaxSessionID)
	}
	pct := func(name string, p *float64) error {
		if p == nil {
			return nil
		}
		if math.IsNaN(*p) || *p < 0 || *p > 1000 {
			return fmt.Errorf("%w: %s %v is not a percentage", ErrReport, name, *p)
		}
		*p = min(*p, 100)
		return nil
	}
	for _, w := range []struct {
		name string
		w    *ReportWindow
	}{{"fiveHour", r.FiveHour}, {"sevenDay", r.SevenDay}} {
		if w.w == nil {
			continue
		}
		if err := pct(w.name+".usedPct", &w.w.UsedPct); err != nil {
			return r, err
		}
		if w.w.ResetsAt < 0 || w.w.ResetsAt > state.MaxAt/1000 {
			return r, fmt.Errorf("%w: %s.resetsAt must be seconds since the epoch, at most %d (the year 9999)", ErrReport, w.name, state.MaxAt/1000)
		}
	}
	if r.CostUSD != nil && (math.IsNaN(*r.CostUSD) || math.IsInf(*r.CostUSD, 0) || *r.CostUSD < 0) {
		return r, fmt.Errorf("%w: costUsd must be a finite amount", ErrReport)
	}
	if c := r.ContextWindow; c != nil {
		if c.Size <= 0 || c.Size > 1<<40 {
			return r, fmt.Errorf("%w: contextWindow.size must be a positive number of tokens", ErrReport)
		}
		if err := pct("contextWindow.usedPct", c.UsedPct); err != nil {
			return r, err
		}
		if c.Tokens != nil && (*c.Tokens < 0 || *c.Tokens > 1<<40) {
			return r, fmt.Errorf("%w: contextWindow.tokens out of range", ErrReport)
		}
	}
	return r, nil
}

// usageStore holds the board's Usage. The zero value is ready.
type usageStore struct {
	mu sync.Mutex
	u  Usage
}

// Report records a statusline report and wakes the board's pages. A
// report for a session the board does not hold is refused (false): the
// row comes first, from the hooks.
func (b *Board) Report(r StatuslineReport, now time.Time) bool {
	if !b.Has(r.Session) {
		return false
	}
	b.usage.mu.Lock()
	u := &b.usage.u
	u.Reported = true
	u.FiveHour, u.SevenDay = planWindow(r.FiveHour), planWindow(r.SevenDay)
	if u.Sessions == nil {
		u.Sessions = map[string]SessionUsage{}
	}
	if len(u.Sessions) >= maxUsageSessions {
		for id := range u.Sessions {
			if !b.Has(id) {
				delete(u.Sessions, id)
			}
		}
	}
	if _, known := u.Sessions[r.Session]; known || len(u.Sessions) < maxUsageSessions {
		su := SessionUsage{CostUSD: r.CostUSD}
		if c := r.ContextWindow; c != nil {
			su.WindowSize, su.UsedPct = c.Size, c.UsedPct
			if c.Tokens != nil {
				su.Tokens = *c.Tokens
			}
		}
		u.Sessions[r.Session] = su
	}
	b.usage.mu.Unlock()
	// The plan's windows and the session's cost go to the ledger, as of
	// now: the statusline reports what Claude Code knows at this instant.
	for _, rd := range planReadings(claudecode.Agent, r, now) {
		b.ledger.Add(rd, now)
	}
	if r.CostUSD != nil {
		b.ledger.AddTotal(ledger.Usage{Agent: claudecode.Agent, Session: r.Session, Source: "statusline", At: now, CostUSD: *r.CostUSD, HasCost: true})
	}
	if rec := b.recorder(); rec != nil && r.CostUSD != nil {
		rec.RecordCost(r.Session, *r.CostUSD, now)
	}
	b.changed()
	return true
}

// setWindow records the context window an agent's own files report for a
// row the board holds (agent.Spec.Window), as a statusline report's window:
// the row's bar is drawn against it when the row has no budget. The plan's
// windows, and whether a statusline reported, are not touched.
func (b *Board) setWindow(id string, size int64) {
	if size <= 0 || size > 1<<40 || !b.Has(id) {
		return
	}
	b.usage.mu.Lock()
	u := &b.usage.u
	if u.Sessions == nil {
		u.Sessions = map[string]SessionUsage{}
	}
	su, known := u.Sessions[id]
	if su.WindowSize == size || (!known && len(u.Sessions) >= maxUsageSessions) {
		b.usage.mu.Unlock()
		return
	}
	su.WindowSize = size
	u.Sessions[id] = su
	b.usage.mu.Unlock()
	b.changed()
}

// Usage returns a copy of what the statuslines have told.
func (b *Board) Usage() Usage {
	b.usage.mu.Lock()
	defer b.usage.mu.Unlock()
	out := b.usage.u
	out.Sessions = make(map[string]SessionUsage, len(b.usage.u.Sessions))
	for id, s := range b.usage.u.Sessions {
		out.Sessions[id] = s
	}
	return out
}

func planWindow(w *ReportWindow) *PlanWindow {
	if w == nil {
		return nil
	}
	return &PlanWindow{UsedPct: w.UsedPct, ResetsAtMs: w.ResetsAt * 1000}
}
