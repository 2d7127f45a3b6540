package ledger

import (
	"math"
	"testing"
	"time"
)

func TestTallyAddTotalIsIdempotent(t *testing.T) {
	ty := NewTally(time.UTC)
	u := Usage{Agent: "claude-code", Session: "s1", Machine: "m", Source: "statusline", At: at(0), CostUSD: 0.5, HasCost: true}
	ty.AddTotal(u)
	ty.AddTotal(u) // the same total again adds nothing
	u.CostUSD, u.At = 0.75, at(1)
	ty.AddTotal(u)
	u.CostUSD, u.At = 0.1, at(2) // the count started over: added whole
	ty.AddTotal(u)
	lines := ty.Lines()
	if len(lines) != 1 || math.Abs(lines[0].CostUSD-0.85) > 1e-9 || !lines[0].HasCost {
		t.Errorf("lines = %+v, want one with $0.85", lines)
	}
}

func TestTallyTokensOnlyLeaveCostEmpty(t *testing.T) {
	ty := NewTally(time.UTC)
	ty.AddTotal(Usage{Agent: "codex", Session: "s", Source: "rollout", At: at(0), InputTokens: 2000, OutputTokens: 12})
	ty.AddTotal(Usage{Agent: "codex", Session: "s", Source: "rollout", At: at(1), InputTokens: 4100, OutputTokens: 24})
	l := ty.Lines()
	if len(l) != 1 || l[0].HasCost || l[0].InputTokens != 4100 || l[0].OutputTokens != 24 || l[0].Tokens() != 4124 {
		t.Errorf("lines = %+v, want 4100 in, 24 out, no cost", l)
	}
}

func TestTallyAddIncrements(t *testing.T) {
	ty := NewTally(time.UTC)
	inc := Usage{Agent: "claude-code", Session: "s", Machine: "m", Source: "otel", At: at(0), InputTokens: 10, CostUSD: 0.01, HasCost: true}
	ty.Add(inc)
	ty.Add(inc) // increments add up: not idempotent
	inc.At = t0.Add(24 * time.Hour)
	ty.Add(inc)
	l := ty.Lines()
	if len(l) != 2 || l[0].InputTokens != 20 || l[1].InputTokens != 10 || l[0].Day != "2026-12-07" || l[1].Day != "2026-12-08" {
		t.Errorf("lines = %+v", l)
	}
	by := Sum(l, func(l Line) string { return l.Agent })
	if len(by) != 1 || by[0].InputTokens != 30 || math.Abs(by[0].CostUSD-0.03) > 1e-9 {
		t.Errorf("per agent = %+v", by)
	}
}

func TestTallyRefuses(t *testing.T) {
	ty := NewTally(time.UTC)
	for _, u := range []Usage{
		{Session: "s", At: at(0), InputTokens: 1},
		{Agent: "a", InputTokens: 1},
		{Agent: "a", At: at(0), InputTokens: -1},
		{Agent: "a", At: at(0), CostUSD: math.NaN(), HasCost: true},
		{Agent: "a", At: at(0), CostUSD: math.Inf(1), HasCost: true},
		{Agent: "a", At: at(0), CostUSD: -1, HasCost: true},
	} {
		if ty.Add(u) {
			t.Errorf("took %+v", u)
		}
	}
}

func TestLedgerAddUsage(t *testing.T) {
	changes := 0
	l := New(Options{Machine: "here", Loc: time.UTC, OnChange: func() { changes++ }})
	l.AddUsage(Usage{Agent: "claude-code", Session: "s", At: at(0), OutputTokens: 5})
	s := l.Snapshot(at(0))
	if len(s.Lines) != 1 || s.Lines[0].Machine != "here" || s.Lines[0].OutputTokens != 5 || changes != 1 || l.Version() != 1 {
		t.Errorf("snapshot %+v, %d changes, version %d", s.Lines, changes, l.Version())
	}
}

// A session is counted one way, the first: a Claude Code session told by
// its statusline's running total and by its OpenTelemetry's calls is not
// counted twice, and another session may be counted the other way.
func TestTallyCountsASessionOneWay(t *testing.T) {
	ty := NewTally(time.UTC)
	ty.AddTotal(Usage{Agent: "claude-code", Session: "s1", Machine: "m", Source: "statusline", At: at(0), CostUSD: 0.5, HasCost: true})
	if ty.Add(Usage{Agent: "claude-code", Session: "s1", Machine: "m", Source: "claude_code.api_request", At: at(1), InputTokens: 10, CostUSD: 0.5, HasCost: true}) {
		t.Errorf("a call of a session counted by its running totals was counted again")
	}
	ty.Add(Usage{Agent: "claude-code", Session: "s2", Machine: "m", Source: "claude_code.api_request", At: at(1), InputTokens: 10, CostUSD: 0.25, HasCost: true})
	if ty.AddTotal(Usage{Agent: "claude-code", Session: "s2", Machine: "m", Source: "statusline", At: at(2), CostUSD: 0.25, HasCost: true}) {
		t.Errorf("a running total of a session counted by its calls was counted again")
	}
	var sum float64
	for _, l := range ty.Lines() {
		sum += l.CostUSD
	}
	if math.Abs(sum-0.75) > 1e-9 {
		t.Errorf("cost = %v, want 0.75 (each session once)", sum)
	}
}

// OnCount hears what was counted, once per session for a batch, and
// nothing of a session's other way in (it is counted one way only), nor
// of a running total told again.
func TestOnCountHearsWhatWasCounted(t *testing.T) {
	var heard []Usage
	l := New(Options{Machine: "here", Loc: time.UTC, OnCount: func(u Usage) { heard = append(heard, u) }})
	call := Usage{Agent: "claude-code", Session: "s", Source: "otel", At: at(0), InputTokens: 100, OutputTokens: 5, CostUSD: 0.01, HasCost: true}
	later := call
	later.At = at(1)
	other := call
	other.Session = "t"
	l.AddUsages([]Usage{call, later, other})
	if len(heard) != 2 || heard[0].Session != "s" || heard[0].InputTokens != 200 || heard[0].OutputTokens != 10 ||
		math.Abs(heard[0].CostUSD-0.02) > 1e-9 || !heard[0].At.Equal(at(1)) || heard[1].Session != "t" || heard[1].InputTokens != 100 {
		t.Fatalf("heard %+v, want s 200/10 $0.02 and t 100", heard)
	}
	heard = nil
	// s's statusline total: s is counted by its calls, so not heard.
	l.AddTotal(Usage{Agent: "claude-code", Session: "s", Source: "statusline", At: at(2), CostUSD: 5, HasCost: true})
	if len(heard) != 0 {
		t.Fatalf("a second way into s was heard: %+v", heard)
	}
	// A Codex total: its growth alone, the same total again nothing.
	tot := Usage{Agent: "codex", Session: "c", Source: "rollout", At: at(2), InputTokens: 1000}
	l.AddTotal(tot)
	l.AddTotal(tot)
	tot.InputTokens, tot.At = 1500, at(3)
	l.AddTotal(tot)
	if len(heard) != 2 || heard[0].InputTokens != 1000 || heard[1].InputTokens != 500 || heard[1].Machine != "here" {
		t.Fatalf("heard %+v, want 1000 then 500 on here", heard)
	}
}
