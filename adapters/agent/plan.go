package agent

import "time"

// PlanWindow is one of a plan's usage windows as an agent's own files
// report it.
type PlanWindow struct {
	Window   string    // the agent's name for it ("primary", "five_hour")
	Minutes  int       // its length; 0 when not told
	UsedPct  float64   // 0 … 100
	ResetsAt time.Time // zero when not told
}

// PlanReport is what an agent's own files tell of its plan's windows and of
// the session's tokens, as of one instant.
type PlanReport struct {
	AsOf    time.Time    // when the agent wrote it
	Windows []PlanWindow // none when the files carried none
	// Tokens are the session's running totals (HasTokens: told).
	HasTokens                         bool
	InputTokens, OutputTokens         int64 // input not read from the cache
	CacheReadTokens, CacheWriteTokens int64
}

// Limits is what an agent tells of its plan's limits, for the ledger and
// docs/agents.md.
type Limits struct {
	// Source names where the agent tells them ("the statusline's
	// rate_limits"); "" when it does not tell them: the ledger says so,
	// never guesses.
	Source string
	// Cadence is how often the agent reports while it runs: a figure with
	// no reading for longer is shown greyed with its age. 0: the ledger's
	// default.
	Cadence time.Duration
}
