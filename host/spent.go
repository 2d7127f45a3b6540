package host

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notch-web/notch-web/host/ledger"
	"github.com/notch-web/notch-web/host/otlp"
	"github.com/notch-web/notch-web/internal/logx"
)

// Spent is what a session's model calls used, summed from its agent's own
// OpenTelemetry (host/otlp): tokens, and cost where the agent reports one.
// The board shows it beside the row's context; state.json (schema 4,
// frozen) carries none of it. The hooks stay the source of the row: a
// session no hook has opened is counted (Host.OTLPUnknown), never a row.
type Spent struct {
	Agent string
	Calls int64
	// InputTokens is the uncached input (host/otlp.Usage).
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64
	CostUSD                                                      float64
	HasCost                                                      bool
	// Errors counts the model calls that failed; LastError is the last
	// one's status and words (bounded, one line).
	Errors    int64
	LastError string
}

// Tokens is every token the session's calls used.
func (s Spent) Tokens() int64 {
	return s.InputTokens + s.OutputTokens + s.CacheReadTokens + s.CacheWriteTokens
}

// spentStore holds the board's Spent by row id. The zero value is ready.
type spentStore struct {
	mu      sync.Mutex
	by      map[string]Spent
	unknown atomic.Int64 // records for sessions no row has
}

// takeSpent adds an export's usage and model errors to the rows they name
// and reports which were the board's; a record for a session the board
// does not hold is counted, never a row. The pages are woken once.
func (b *Board) takeSpent(batch otlp.Batch) (known []otlp.Usage, knownErr []otlp.ModelError) {
	b.spent.mu.Lock()
	if b.spent.by == nil {
		b.spent.by = map[string]Spent{}
	}
	take := func(id string) (Spent, bool) {
		s, ok := b.spent.by[id]
		if ok {
			return s, true
		}
		if !b.Has(id) || len(b.spent.by) >= maxUsageSessions && !b.pruneSpent() {
			b.spent.unknown.Add(1)
			return s, false
		}
		return s, true
	}
	for _, u := range batch.Usage {
		s, ok := take(u.Session)
		if !ok {
			continue
		}
		s.Agent = u.Agent
		s.Calls++
		s.InputTokens += u.InputTokens
		s.OutputTokens += u.OutputTokens
		s.CacheReadTokens += u.CacheReadTokens
		s.CacheWriteTokens += u.CacheWriteTokens
		if u.HasCost {
			s.CostUSD += u.CostUSD
			s.HasCost = true
		}
		b.spent.by[u.Session] = s
		known = append(known, u)
	}
	for _, e := range batch.Errors {
		s, ok := take(e.Session)
		if !ok {
			continue
		}
		s.Agent = e.Agent
		s.Errors++
		s.LastError = e.Message
		b.spent.by[e.Session] = s
		knownErr = append(knownErr, e)
	}
	b.spent.mu.Unlock()
	if len(known)+len(knownErr) > 0 {
		b.changed()
	}
	return known, knownErr
}

// pruneSpent drops the sums of rows the board no longer holds; false when
// none could go. Under spent.mu.
func (b *Board) pruneSpent() bool {
	n := len(b.spent.by)
	for id := range b.spent.by {
		if !b.Has(id) {
			delete(b.spent.by, id)
		}
	}
	return len(b.spent.by) < n
}

// Spent returns a copy of each row's sums.
func (b *Board) Spent() map[string]Spent {
	b.spent.mu.Lock()
	defer b.spent.mu.Unlock()
	out := make(map[string]Spent, len(b.spent.by))
	for id, s := range b.spent.by {
		out[id] = s
	}
	return out
}

// OTLP is the host's OpenTelemetry receiver (host/otlp): the web server
// serves it on the host's own listener.
func (h *Host) OTLP() *otlp.Receiver { return h.otlp }

// OTLPUnknown counts the records that named a session no row has.
func (h *Host) OTLPUnknown() int64 { return h.board.spent.unknown.Load() }

// takeExport is the receiver's sink: the rows' sums, the lasting history's
// cost, and Config.OnUsage / OnModelError for each record of a known
// session.
func (h *Host) takeExport(batch otlp.Batch) {
	before := h.board.spent.unknown.Load()
	known, errs := h.board.takeSpent(batch)
	if n := h.board.spent.unknown.Load() - before; n > 0 && before == 0 {
		// Once: the count is on /healthz from then on.
		h.log.Info("OpenTelemetry records for a session no hook has opened are counted, not shown", "log_type", logx.TypeHooks)
	}
	if rec := h.board.recorder(); rec != nil && len(known) > 0 {
		// Each session's running cost once per export, as of its last
		// call in it (a hundred calls are one write, not a hundred).
		sums := h.board.Spent()
		last := map[string]time.Time{}
		var order []string
		for _, u := range known {
			t, seen := last[u.Session]
			if !seen {
				order = append(order, u.Session)
			}
			if !seen || u.At.After(t) {
				last[u.Session] = u.At
			}
		}
		for _, id := range order {
			if s := sums[id]; s.HasCost {
				rec.RecordCost(id, s.CostUSD, last[id])
			}
		}
	}
	// The ledger's cost and tokens per session, project, agent, machine
	// and day (host/ledger): the telemetry tells each call; one change for
	// the export.
	us := make([]ledger.Usage, 0, len(known))
	for _, u := range known {
		us = append(us, ledger.Usage{Agent: u.Agent, Session: u.Session, Machine: "", Model: u.Model, Source: u.Source,
			At: u.At, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens,
			CacheWriteTokens: u.CacheWriteTokens, CostUSD: u.CostUSD, HasCost: u.HasCost})
	}
	h.board.ledger.AddUsages(us)
	if h.cfg.OnUsage != nil {
		for _, u := range known {
			h.cfg.OnUsage(u)
		}
	}
	for _, e := range errs {
		h.log.Info("a model call failed", "log_type", logx.TypeHooks, slog.Group("data", "agent", e.Agent, "status", e.Status, "source", e.Source))
		if h.cfg.OnModelError != nil {
			h.cfg.OnModelError(e)
		}
	}
}
