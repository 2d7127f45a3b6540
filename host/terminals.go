package host

import (
	"context"
	"errors"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/state"
)

// The board keeps, per live session of its own fold, where the session
// runs (host/terminal.Where, as "notch-web hook" read it from the agent's
// environment), among the row's facts (rowfacts.go): state.json (schema 4,
// frozen) carries none of it; the sidecar, live.json, does. It goes with
// the row.

// whereRow is the row a hook's terminal facts belong to: the session its
// mapping opens or speaks of first (a subagent's parent comes first).
func whereRow(m hookjson.Mapping) string {
	for _, evs := range [][]state.Event{m.Open, m.Events} {
		for _, ev := range evs {
			if ev.Origin != state.OriginSubagent {
				return ev.Session
			}
		}
	}
	return ""
}

// setWhere records where a row of the fold runs (its rowFacts); a row the
// fold does not hold is ignored. The board's pages change only when the
// door does.
func (b *Board) setWhere(id string, w terminal.Where) {
	if id == "" || w.IsZero() {
		return
	}
	b.mu.Lock()
	door := b.facts[id].where.Door() != w.Door()
	changed := b.mergeFactsLocked(id, rowFacts{where: w})
	b.mu.Unlock()
	if changed && door {
		b.changed()
	}
}

// Where is where a row of this host's fold runs, if a hook said.
func (b *Board) Where(id string) (terminal.Where, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.facts[id].where
	return w, !w.IsZero() && b.fold.Has(id)
}

// Doors are the ways to the terminals of the rows of this host's fold
// that have one, by row id.
func (b *Board) Doors() map[string]terminal.Door {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]terminal.Door{}
	for id, f := range b.facts {
		if d := f.where.Door(); d.Kind != "" && b.fold.Has(id) {
			out[id] = d
		}
	}
	return out
}

// forgetLocked forgets what is kept beside the given rows; the caller
// holds b.mu.
func (b *Board) forgetLocked(ids ...string) {
	for _, id := range ids {
		delete(b.hist, id)
		if _, ok := b.facts[id]; ok {
			delete(b.facts, id)
			b.factsVersion.Add(1)
		}
	}
}

// pruneLocked forgets what is kept beside the rows (facts, histories) for
// rows the fold no longer holds, whenever more is kept than there are rows
// (a row retired, finished, or dropped at the fold's cap); the caller
// holds b.mu.
func (b *Board) pruneLocked() {
	if pruneRows(b.facts, b.fold) {
		b.factsVersion.Add(1)
	}
	pruneRows(b.hist, b.fold)
}

// pruneRows deletes from m the rows f does not hold, when m holds more
// than f; it reports whether it deleted any.
func pruneRows[V any](m map[string]V, f *state.Fold) bool {
	if len(m) <= f.Len() {
		return false
	}
	gone := false
	for id := range m {
		if !f.Has(id) {
			delete(m, id)
			gone = true
		}
	}
	return gone
}

// ErrNoTerminal: the board knows no terminal for the session (no hook
// said, or the row is not this host's own).
var ErrNoTerminal = errors.New("no terminal is known for this session")

// GoToTerminal brings a session's tmux pane before the human (terminal.Tmux
// GoTo) and says where the session runs. A session not in tmux is
// terminal.ErrNoTmux: its door, if any, is a command the board copies.
func (h *Host) GoToTerminal(ctx context.Context, id string) (terminal.Where, terminal.Result, error) {
	w, ok := h.board.Where(id)
	if !ok {
		return w, terminal.Result{}, ErrNoTerminal
	}
	res, err := h.tmux.GoTo(ctx, w)
	return w, res, err
}
