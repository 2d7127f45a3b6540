package host

import (
	"time"

	"github.com/notch-web/notch-web/adapters/agent"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/ledger"
)

// Ledger is the board's ledger of plan limits, cost and tokens
// (host/ledger): the OpenTelemetry receiver feeds it with AddUsage.
func (b *Board) Ledger() *ledger.Ledger { return b.ledger }

// SetLedgerEvents has fn told of every level a plan window crosses and
// every usage limit that ends (the pushes). Call it before the board is
// used.
func (b *Board) SetLedgerEvents(fn func(ledger.Event)) { b.ledgerEvents.Store(&fn) }

func (b *Board) ledgerEvent(e ledger.Event) {
	if fn := b.ledgerEvents.Load(); fn != nil {
		(*fn)(e)
	}
}

// ledgerCadence is an agent's own reporting cadence (agent.Spec Limits).
func ledgerCadence(name string) time.Duration {
	if s, ok := registry.Get(name); ok {
		return s.Limits.Cadence
	}
	return 0
}

// planReadings are the ledger's readings of a statusline report's windows,
// as of now.
func planReadings(agentName string, r StatuslineReport, now time.Time) []ledger.Reading {
	var out []ledger.Reading
	for _, w := range []struct {
		name    string
		minutes int
		w       *ReportWindow
	}{{"five_hour", 300, r.FiveHour}, {"seven_day", 7 * 24 * 60, r.SevenDay}} {
		if w.w == nil {
			continue
		}
		rd := ledger.Reading{Agent: agentName, Window: w.name, Minutes: w.minutes, UsedPct: w.w.UsedPct, AsOf: now}
		if w.w.ResetsAt > 0 {
			rd.ResetsAt = time.Unix(w.w.ResetsAt, 0)
		}
		out = append(out, rd)
	}
	return out
}

// notePlan takes what an agent's own files told of the plan and the
// session's tokens (agent.Spec Plan) into the ledger.
func (b *Board) notePlan(spec agent.Spec, session string, r agent.PlanReport, now time.Time) {
	for _, w := range r.Windows {
		b.ledger.Add(ledger.Reading{Agent: spec.Name, Window: w.Window, Minutes: w.Minutes, UsedPct: w.UsedPct, ResetsAt: w.ResetsAt, AsOf: r.AsOf}, now)
	}
	if r.HasTokens {
		b.ledger.AddTotal(ledger.Usage{Agent: spec.Name, Session: session, Source: "transcript", At: r.AsOf,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CacheReadTokens: r.CacheReadTokens, CacheWriteTokens: r.CacheWriteTokens})
	}
}

// ledgerCount passes what the ledger counted of this machine's sessions
// (other machines' come as their totals, never through AddUsage)
// to the history (the History page's tokens per agent and day): the
// ledger counts a session one way only, so the history does too. Cost is
// not passed: the history keeps each session's reported running cost
// (RecordCost) already.
func (b *Board) ledgerCount(u ledger.Usage) {
	if u.Session == "" {
		return
	}
	n := u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
	if n <= 0 {
		return
	}
	if rec, ok := b.recorder().(TokensRecorder); ok {
		rec.RecordTokens(u.Session, n, u.At)
	}
}
