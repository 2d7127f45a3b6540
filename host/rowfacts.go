package host

import (
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
)

// rowFacts is what a row's hooks said of it beside its events: which
// agent it is, the agent's process (procs.go), the session's transcript
// (the one the interrupt watch reads) and where it runs (terminals.go). Kept per live row of the
// board's own fold, in memory and in the sidecar (live.go); state.json
// carries none of it.
type rowFacts struct {
	agent      string
	proc       proc.ID
	transcript string
	where      terminal.Where
	// ended is the sidecar's word that the row's session had ended (read
	// at a restart only; the fold's Ended says it after).
	ended bool
}

// setFacts merges what a hook said of a row (a zero value says nothing);
// a row the fold does not hold is ignored.
func (b *Board) setFacts(id string, f rowFacts) {
	if id == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mergeFactsLocked(id, f)
}

// mergeFactsLocked is setFacts with b.mu held; it reports whether anything
// changed.
func (b *Board) mergeFactsLocked(id string, f rowFacts) bool {
	if !b.fold.Has(id) {
		return false
	}
	old := b.facts[id]
	merged := old
	if f.agent != "" {
		merged.agent = f.agent
	}
	if !f.proc.IsZero() {
		merged.proc = f.proc
	}
	if f.transcript != "" {
		merged.transcript = f.transcript
	}
	if !f.where.IsZero() {
		merged.where = f.where
	}
	if merged == old {
		return false
	}
	if b.facts == nil {
		b.facts = map[string]rowFacts{}
	}
	b.facts[id] = merged
	b.factsVersion.Add(1)
	b.pruneLocked()
	return true
}

// setProc records a row's process; it reports whether that is news (a
// row whose process is already this one is not).
func (b *Board) setProc(id string, p proc.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.facts[id].proc == p {
		return false
	}
	return b.mergeFactsLocked(id, rowFacts{proc: p})
}

// procOf is the process a row's hooks last named (zero: none).
func (b *Board) procOf(id string) proc.ID {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.facts[id].proc
}

// agentOf is the agent a row's hooks came from ("" when none said).
func (b *Board) agentOf(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.facts[id].agent
}

// withRowAgents is agents (which agent each row asking is, as the
// approvals registry keeps it) with every row of the fold whose hooks
// named its agent: a row wears its agent's badge and words for as long as
// it is on the board — after its process ended with no word (a headless
// Qwen Code never says goodbye) and after a restart (the sidecar keeps
// the facts), not only while the registry remembers it.
func (b *Board) withRowAgents(agents map[string]string) map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]string, len(agents)+len(b.facts))
	for id, f := range b.facts {
		if f.agent != "" && b.fold.Has(id) {
			out[id] = f.agent
		}
	}
	for id, a := range agents {
		out[id] = a
	}
	return out
}

// procIDs is the set of processes the board's rows name.
func (b *Board) procIDs() map[proc.ID]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[proc.ID]bool, len(b.facts))
	for id, f := range b.facts {
		if !f.proc.IsZero() && b.fold.Has(id) {
			out[f.proc] = true
		}
	}
	return out
}

// factsOf is what the hooks said of a row.
func (b *Board) factsOf(id string) rowFacts {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.facts[id]
}

// Agent is the agent a row of this machine's board is (its hooks said
// so: "claude-code", "codex" …), or "" when none said or the row is
// another machine's.
func (b *Board) Agent(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.facts[id].agent
}
