package host

import (
	"slices"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/internal/proc"
)

// SilentAfter is how long an agent's process may say it works (agent.Spec
// Busy) with no hook heard since it started to, before the hook connection
// is said to be broken. Every status change of Claude Code's comes with a
// hook (a prompt, a permission prompt, a stop), so a long tool call alone
// never trips it: the status went busy with the turn's first hook.
const SilentAfter = time.Minute

// silenceEvery is how often the state.json beat looks at the working
// agents' own word: between two looks a beat costs one clock comparison.
// The beat exists anyway, so a quiet host wakes no more than it did.
const silenceEvery = 5 * time.Second

// Silence is one hook channel gone silent while its agent works: a fault
// of the connection, said beside the row (the pane, the board's status
// line), never on it: the row keeps what the hooks said.
type Silence struct {
	Agent   string    // the agent's name ("claude-code")
	Session string    // the row
	Since   time.Time // when the agent's process said it works
}

// silenceWatch keeps when each row's last hook came and which rows are
// silent now.
type silenceWatch struct {
	mu     sync.Mutex
	heard  map[string]time.Time // by row: the last hook
	next   time.Time            // the next look (zero: at the next beat)
	silent []Silence            // sorted by session
	on     []func([]Silence)    // OnSilence's
}

// heardHook records that a hook of row came at now.
func (w *silenceWatch) heardHook(row string, now time.Time) {
	if row == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.heard == nil {
		w.heard = map[string]time.Time{}
	}
	if len(w.heard) >= maxPendingTranscripts && w.heard[row].IsZero() {
		clear(w.heard) // bounded; a forgotten row is only looked at anew
	}
	w.heard[row] = now
	w.next = time.Time{} // a silent row that speaks again is said at once
}

// OnSilence calls fn (from the beat) with the silent hook channels each
// time their list changes. Set it before Run.
func (h *Host) OnSilence(fn func([]Silence)) {
	h.silence.mu.Lock()
	defer h.silence.mu.Unlock()
	h.silence.on = append(h.silence.on, fn)
}

// checkSilence is the beat's look, at most every silenceEvery: a row
// whose agent says it has worked for SilentAfter (since after this host
// started, and its process alive), while no hook of it came since, is
// silent.
func (h *Host) checkSilence(now time.Time) {
	w := &h.silence
	w.mu.Lock()
	if len(w.on) == 0 || now.Before(w.next) {
		w.mu.Unlock()
		return
	}
	w.next = now.Add(silenceEvery)
	heard := make(map[string]time.Time, len(w.heard))
	for k, v := range w.heard {
		heard[k] = v
	}
	w.mu.Unlock()

	var silent []Silence
	for id, f := range h.board.allFacts() {
		spec, ok := registry.Get(f.agent)
		if !ok || spec.Busy == nil || f.transcript == "" {
			continue
		}
		since, ok := spec.Busy(f.transcript)
		if !ok || since.Before(h.cfg.Boot) || now.Sub(since) < SilentAfter || heard[id].After(since) {
			continue
		}
		if !f.proc.IsZero() && proc.Local(f.proc) && !proc.Alive(f.proc) {
			continue // a kill -9 leaves a busy file behind: its process is gone
		}
		silent = append(silent, Silence{Agent: f.agent, Session: id, Since: since})
	}
	slices.SortFunc(silent, func(a, b Silence) int { return cmpString(a.Session, b.Session) })

	w.mu.Lock()
	if slices.Equal(silent, w.silent) {
		w.mu.Unlock()
		return
	}
	w.silent = silent
	on := slices.Clone(w.on)
	w.mu.Unlock()
	for _, fn := range on {
		fn(slices.Clone(silent))
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// allFacts is a copy of every row's facts.
func (b *Board) allFacts() map[string]rowFacts {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]rowFacts, len(b.facts))
	for k, v := range b.facts {
		out[k] = v
	}
	return out
}
