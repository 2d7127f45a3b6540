package host

import (
	"context"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/state"
)

// interruptPoll is how often the transcripts of working rows are looked at
// for an interrupt no hook reports.
const interruptPoll = 500 * time.Millisecond

// idleConfirm is how many polls in a row an agent's Idle must say yes
// before a working row is taken as idle.
const idleConfirm = 2

// cancelWindow is how long after a turn ended in error its transcript is
// looked at for the human's cancel: Gemini CLI ends a turn the human
// cancelled (Esc while the model answers) with the AfterAgent of an API
// error, "[no response text]", and records "Request cancelled." beside it.
const cancelWindow = 10 * time.Second

// interruptWatch holds, for the rows of agents with an agent.Spec
// Interrupted or Idle, the transcript to look at while the row works.
type interruptWatch struct {
	mu   sync.Mutex
	rows map[string]interruptRow
	// added wakes the poll when a row is watched: with none it sleeps.
	added chan struct{}
}

type interruptRow struct {
	path  string
	check func(transcript string, since time.Time) bool // nil: none
	idle  func(transcript string, since time.Time) bool // nil: none
	// failed says the turn ended in an error no hook reported (nil: none).
	failed func(transcript string, since time.Time) bool
	// idleSeen counts the polls in a row at which idle said yes: one
	// alone is not enough (a status written a moment late, between two
	// turns, must not end the next one).
	idleSeen int
	// turnSince is when the row's latest turn started (ms; 0: not seen).
	turnSince int64
}

func newInterruptWatch() *interruptWatch {
	return &interruptWatch{rows: map[string]interruptRow{}, added: make(chan struct{}, 1)}
}

// want watches row's transcript at path with check, idle and failed, any
// may be nil (bounded, like the token reader's rows).
func (w *interruptWatch) want(row, path string, check, idle, failed func(string, time.Time) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.rows[row]; ok || len(w.rows) < maxPendingTranscripts {
		seen := 0
		if old.path == path {
			seen = old.idleSeen
		}
		w.rows[row] = interruptRow{path: path, check: check, idle: idle, failed: failed, idleSeen: seen, turnSince: old.turnSince}
		select {
		case w.added <- struct{}{}:
		default:
		}
	}
}

// empty reports whether no row is watched.
func (w *interruptWatch) empty() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.rows) == 0
}

// turnStarted records that row's turn started at ms.
func (w *interruptWatch) turnStarted(row string, ms int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r, ok := w.rows[row]; ok {
		r.turnSince = ms
		w.rows[row] = r
	}
}

// sawIdle records whether idle said yes for row at this poll and returns
// how many polls in a row it has.
func (w *interruptWatch) sawIdle(row string, yes bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.rows[row]
	if !ok {
		return 0
	}
	if yes {
		r.idleSeen++
	} else {
		r.idleSeen = 0
	}
	w.rows[row] = r
	return r.idleSeen
}

func (w *interruptWatch) list() map[string]interruptRow {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]interruptRow, len(w.rows))
	for k, v := range w.rows {
		out[k] = v
	}
	return out
}

func (w *interruptWatch) forget(row string) {
	w.mu.Lock()
	delete(w.rows, row)
	w.mu.Unlock()
}

// watchInterrupts looks, every interruptPoll, at the transcript of each
// watched row that is working, until ctx ends. While no row is watched (a
// board fed by events alone, or none of whose agents has a transcript to
// look at) it sleeps until one is.
func (h *Host) watchInterrupts(ctx context.Context) {
	t := time.NewTicker(interruptPoll)
	defer t.Stop()
	for {
		if h.interrupts.empty() {
			t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-h.interrupts.added:
			}
			t.Reset(interruptPoll)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.checkInterrupts(time.Now())
	}
}

// checkInterrupts ends the turn of each watched row whose transcript says
// the human interrupted it since the row entered its status — Claude
// Code's Esc while the model answers, and its No / Esc at the permission
// prompt, fire no hook — so the row is done, for the agent waits on the
// human. A row asking about a tool has its approval resolved rejected and
// any card of it answered in the terminal: this holds even when no card
// could watch the call (the hold ended, or the request was never matched
// to its call). A working row whose agent says it has been idle at its
// input since (Idle, at idleConfirm polls in a row: Claude Code's Esc
// before the model's first output leaves no transcript line) is done too.
// A turn that ended in error within cancelWindow, whose transcript says the
// human cancelled it since it started, was the human's cancel, not a
// failure: the row is done. Another settled row is not looked at (and no
// longer watched once it is gone).
func (h *Host) checkInterrupts(now time.Time) {
	for row, r := range h.interrupts.list() {
		s, ok := h.board.session(row)
		if !ok {
			h.interrupts.forget(row)
			continue
		}
		if s.Status == state.StatusError && r.check != nil && r.turnSince > 0 && s.Since >= r.turnSince &&
			now.Sub(time.UnixMilli(s.Since)) <= cancelWindow && r.check(r.path, time.UnixMilli(r.turnSince)) {
			h.board.cancelledNotFailed(row, s.Since, now)
			continue
		}
		if s.Status != state.StatusWorking && s.Status != state.StatusAttention {
			h.interrupts.sawIdle(row, false)
			continue
		}
		since := time.UnixMilli(s.Since)
		interrupted := r.check != nil && r.check(r.path, since)
		if !interrupted && s.Status == state.StatusWorking && r.idle != nil {
			interrupted = h.interrupts.sawIdle(row, r.idle(r.path, since)) >= idleConfirm
		}
		if !interrupted {
			// A turn the agent's files say failed (Copilot CLI's TUI) ends
			// in error, its tool and any approval settled as an interrupt's.
			if s.Status == state.StatusWorking && r.failed != nil && r.failed(r.path, since) {
				h.board.settleTurn(row, s.Status, s.Since, state.OutcomeError, now)
				h.lookForWhy(row, now)
			}
			continue
		}
		if s.Status == state.StatusAttention {
			h.approvals.refusedInTerminal(row)
		}
		h.board.endInterrupted(row, s.Status, s.Since, now)
		h.board.setWhy(row, hookjson.Why{Kind: hookjson.WhyInterrupted}, now)
	}
}
