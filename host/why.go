package host

import (
	"context"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/state"
)

// Why a row stopped (docs/board.md "Why it stopped"): a hookjson.Why kept
// beside the row, never in state.json (schema 4 keeps its shape). It comes
// from the hook that ended the turn (Mapping.Why: Claude Code's and Qwen
// Code's StopFailure, OpenCode's session.error), else from the agent's own
// files once the row is in error (agent.Spec Why: Codex's rollout, Gemini
// CLI's chat, Copilot CLI's session file), else from the host's own
// liveness (the process ended without a word) or its interrupt watch. A
// turn's start or end forgets it (the next words are that turn's); it is
// shown while the row is in error, and an interrupt's while the row is
// done.

// whyLook and whyFor: after a row went into error with no why, the host
// reads the agent's files for it every whyLook for whyFor — an agent
// writes the error a little before or after the hook that ends the turn.
// Nothing runs while no row waits for one.
const (
	whyLook = 250 * time.Millisecond
	whyFor  = 3 * time.Second
)

// whyWatch is the rows whose why the host looks for, each with when it
// began to.
type whyWatch struct {
	mu   sync.Mutex
	rows map[string]time.Time
	wake chan struct{}
}

func newWhyWatch() *whyWatch {
	return &whyWatch{rows: map[string]time.Time{}, wake: make(chan struct{}, 1)}
}

// want adds row to the rows looked for.
func (w *whyWatch) want(row string, now time.Time) {
	w.mu.Lock()
	if _, ok := w.rows[row]; !ok && len(w.rows) < state.MaxTracked {
		w.rows[row] = now
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// forgetWhysLocked drops the whys of rows whose turn starts or ends in
// evs, and notes when each turn started (Spec.Why reads from then); b.mu
// is held, after the fold took evs.
func (b *Board) forgetWhysLocked(evs []state.Event) {
	for _, ev := range evs {
		switch ev.Type {
		case state.TypeTurnStarted:
			if b.turnAt == nil {
				b.turnAt = map[string]int64{}
			}
			b.turnAt[ev.Session] = ev.At
			delete(b.whys, ev.Session)
		case state.TypeTurnEnded, state.TypeSessionFinished:
			delete(b.whys, ev.Session)
		}
	}
	pruneRows(b.whys, b.fold)
	pruneRows(b.turnAt, b.fold)
}

// shownWhy reports whether w is to be shown on a row of status: a
// failure's while the row is in error, an interrupt's while it is done.
func shownWhy(w hookjson.Why, status string) bool {
	if w.Kind == hookjson.WhyInterrupted {
		return status == state.StatusDone
	}
	return status == state.StatusError
}

// setWhy keeps why the row id stopped, its reset read from its words
// against now (in the host's zone unless the words name one), when the
// row is held and in the state w is shown for. A "ended without a word"
// replaces nothing: the agent's own word is better. It reports whether
// the board changed.
func (b *Board) setWhy(id string, w hookjson.Why, now time.Time) bool {
	w = w.Clean().ResolveResets(now, time.Local)
	if w.IsZero() {
		return false
	}
	b.mu.Lock()
	s, ok := b.fold.Session(id)
	old, had := b.whys[id]
	if !ok || !shownWhy(w, s.Status) || old == w || (had && w.Kind == hookjson.WhyEnded) {
		b.mu.Unlock()
		return false
	}
	if b.whys == nil {
		b.whys = map[string]hookjson.Why{}
	}
	b.whys[id] = w
	if b.rec != nil {
		b.rec.RecordWhy(RecordedWhy{Session: id, Why: w, At: now})
	}
	if r := b.hist[id]; r != nil && w.Kind != hookjson.WhyEnded { // (a silent end says so itself)
		r.add(HistoryEntry{AtMs: now.UnixMilli(), What: historyWhat[WhyEvent], Outcome: state.Cut(w.Label()+whyWords(w), maxHistoryText)})
	}
	b.mu.Unlock()
	b.changed()
	return true
}

// Whys is why each of this machine's rows stopped, for the rows that show
// it now (see shownWhy).
func (b *Board) Whys() map[string]hookjson.Why {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out map[string]hookjson.Why
	for id, w := range b.whys {
		if s, ok := b.fold.Session(id); ok && shownWhy(w, s.Status) {
			if out == nil {
				out = map[string]hookjson.Why{}
			}
			out[id] = w
		}
	}
	return out
}

// whyOf is the why the board keeps for a row, and whether it keeps one.
func (b *Board) whyOf(id string) (hookjson.Why, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.whys[id]
	return w, ok
}

// needsWhy reports whether row is in error with no why, and from when its
// latest turn started (the agent's files are read from then).
func (b *Board) needsWhy(row string) (since time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, held := b.fold.Session(row)
	if !held || s.Status != state.StatusError {
		return time.Time{}, false
	}
	if _, has := b.whys[row]; has {
		return time.Time{}, false
	}
	at := b.turnAt[row]
	if at == 0 {
		at = s.Since
	}
	return time.UnixMilli(at), true
}

// readWhy asks the row's agent's files why its turn failed (agent.Spec
// Why), once; it reports whether a why is now kept.
func (h *Host) readWhy(row string, now time.Time) bool {
	since, ok := h.board.needsWhy(row)
	if !ok {
		_, has := h.board.whyOf(row)
		return has
	}
	f := h.board.factsOf(row)
	spec, ok := registry.Get(f.agent)
	if !ok || spec.Why == nil {
		return false
	}
	w, ok := spec.Why(row, f.transcript, since)
	return ok && h.board.setWhy(row, w, now)
}

// lookForWhy has the host look for why row's turn failed in its agent's
// files (watchWhys), for an agent that keeps such a word.
func (h *Host) lookForWhy(row string, now time.Time) {
	if spec, ok := registry.Get(h.board.agentOf(row)); !ok || spec.Why == nil {
		return
	}
	if _, ok := h.board.needsWhy(row); ok {
		h.whys.want(row, now)
	}
}

// watchWhys reads the agents' files for the rows lookForWhy named, every
// whyLook, each until a why is kept, the row leaves the error, or whyFor
// has passed; it sleeps while no row is named.
func (h *Host) watchWhys(ctx context.Context) {
	w := h.whys
	for {
		now := time.Now()
		w.mu.Lock()
		rows := make(map[string]time.Time, len(w.rows))
		for r, at := range w.rows {
			rows[r] = at
		}
		w.mu.Unlock()
		for row, at := range rows {
			if h.readWhy(row, now) || now.Sub(at) >= whyFor {
				w.mu.Lock()
				delete(w.rows, row)
				w.mu.Unlock()
			} else if _, ok := h.board.needsWhy(row); !ok {
				w.mu.Lock()
				delete(w.rows, row)
				w.mu.Unlock()
			}
		}
		w.mu.Lock()
		idle := len(w.rows) == 0
		w.mu.Unlock()
		var tick <-chan time.Time
		var t *time.Timer
		if !idle {
			t = time.NewTimer(whyLook)
			tick = t.C
		}
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-tick:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// whyWords is ": " and w's words, "" when it has none.
func whyWords(w hookjson.Why) string {
	if w.Words == "" {
		return ""
	}
	return ": " + w.Words
}
