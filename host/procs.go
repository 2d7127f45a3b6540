package host

import (
	"log/slog"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/state"
)

// A row never outlives its agent. "notch-web hook" names the agent's
// process (internal/proc: PID, start time, boot) in the proc.Header; the
// board keeps it per live row of its own fold, in memory and in the
// sidecar (live.go), like the terminal facts — never in state.json
// (schema 4, frozen). The host watches every such process of this
// machine; one that ends without a SessionEnd settles its row within
// exitGrace (session.ended: error when a turn was open or the human was
// asked, else as it was), and its cards go. A row whose process is not
// known (Claude Code's http hooks alone, a hook tunnelled from another
// machine) is not watched: it keeps what its hooks say.

// exitGrace is how long after its process ended a row waits for the
// SessionEnd hook that may still be on its way (an agent that exits
// cleanly sends one as it goes) before it is settled without one.
const exitGrace = time.Second

// procWatch is the host's watches, one per process, each with the rows
// that named it (one process can hold several sessions: Claude Code's
// /clear).
type procWatch struct {
	mu   sync.Mutex
	byID map[proc.ID]*watched
}

type watched struct {
	stop func()
	rows map[string]bool
}

func newProcWatch() *procWatch { return &procWatch{byID: map[proc.ID]*watched{}} }

// setProc records that row's agent runs as process id, and watches it
// when it is this machine's. A row the fold does not hold is ignored.
func (h *Host) setProc(row string, id proc.ID) {
	if row == "" || id.IsZero() || !proc.Local(id) {
		return
	}
	if !h.board.setProc(row, id) {
		return
	}
	h.watchProc(row, id)
}

// watchProc adds row to id's watch, starting one if none runs, and drops
// the watches no row names any more.
func (h *Host) watchProc(row string, id proc.ID) {
	w := h.procs
	w.mu.Lock()
	x := w.byID[id]
	if x == nil {
		x = &watched{rows: map[string]bool{}}
		w.byID[id] = x
		stop, err := proc.Watch(id, h.log, func() {
			time.AfterFunc(exitGrace, func() {
				defer logx.Guard(h.log)() // the timer's own goroutine
				h.procEnded(id)
			})
		})
		if err != nil {
			delete(w.byID, id)
			w.mu.Unlock()
			return
		}
		x.stop = stop
	}
	x.rows[row] = true
	w.mu.Unlock()
	h.pruneProcs()
}

// stopAll ends every watch: the host is stopping.
func (w *procWatch) stopAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, x := range w.byID {
		x.stop()
		delete(w.byID, id)
	}
}

// pruneProcs stops the watches of processes no row of the board names.
func (h *Host) pruneProcs() {
	named := h.board.procIDs()
	w := h.procs
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, x := range w.byID {
		if !named[id] {
			x.stop()
			delete(w.byID, id)
		}
	}
}

// procEnded settles every row whose agent is still the process id, which
// has ended.
func (h *Host) procEnded(id proc.ID) {
	w := h.procs
	w.mu.Lock()
	x := w.byID[id]
	delete(w.byID, id)
	w.mu.Unlock()
	if x == nil {
		return
	}
	for row := range x.rows {
		if h.board.procOf(row) == id {
			h.agentGone(row, id, time.Now())
		}
	}
}

// agentGone settles a row whose agent's process ended with no word: the
// fold's session.ended (its subagents with it), its cards gone, one log
// record.
func (h *Host) agentGone(row string, id proc.ID, now time.Time) {
	was, ok := h.board.endedSilently(row, now)
	if !ok {
		return
	}
	// The agent's files may say why it went (they are written by now);
	// else it ended without a word.
	if !h.readWhy(row, now) {
		h.board.setWhy(row, hookjson.Why{Kind: hookjson.WhyEnded}, now)
	}
	cards := h.approvals.agentGone(row)
	h.log.Warn("the agent's process ended without a word; its row is settled", "log_type", logx.TypeProcess,
		slog.Group("data", "session", row, "agent", h.board.agentOf(row), "pid", id.PID, "was", was, "cards", cards))
}

// endedSilently applies session.ended to a row the fold holds and has not
// seen end; it returns the status the row had. Its history says how it
// ended.
func (b *Board) endedSilently(id string, now time.Time) (was string, ok bool) {
	b.mu.Lock()
	s, held := b.fold.Session(id)
	if !held || b.fold.Ended(id) {
		b.mu.Unlock()
		return "", false
	}
	ev := state.Event{Type: state.TypeSessionEnded, Session: id, At: now.UnixMilli()}
	_, err := b.applyLocked(ev)
	if err == nil {
		if r := b.hist[id]; r != nil {
			r.relabelLast(endedSilentlyWhat)
		}
	}
	b.mu.Unlock()
	if err != nil {
		return "", false
	}
	b.changed()
	return s.Status, true
}

// endedSilentlyWhat is a silent end, in a row's history.
const endedSilentlyWhat = "process ended without a word"

// endedBefore marks a restored row's session ended, as it was before the
// restart (the sidecar says so): nothing moves it again but a new
// session, and its history, final, gets nothing.
func (b *Board) endedBefore(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.fold.Session(id)
	if !ok || b.fold.Ended(id) || !state.Settled(s.Status) {
		return
	}
	// A settled row's end moves nothing on it but its ended mark.
	_, _ = b.fold.Apply(state.Event{Type: state.TypeSessionEnded, Session: id, At: s.Since})
}

// endedWhileDown ends a restored settled row whose process ended while the
// host was down: its session ends at the last moment the host knew it
// (since: its turn's end), with the verdict it has — its history's times
// stay as they were, and nothing is logged (it ended as it was).
func (b *Board) endedWhileDown(id string) {
	b.mu.Lock()
	s, ok := b.fold.Session(id)
	if !ok || b.fold.Ended(id) || !state.Settled(s.Status) {
		b.mu.Unlock()
		return
	}
	_, err := b.applyLocked(state.Event{Type: state.TypeSessionEnded, Session: id, At: s.Since})
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}
