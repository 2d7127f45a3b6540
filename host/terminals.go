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
// environment), in memory only: state.json (schema 4, frozen) carries
// none of it, and a restarted host learns it again from the next hook that
// brings it. It goes with the row.

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

// setWhere records where a row of the fold runs; a row the fold does not
// hold is ignored. The board's pages change only when the door does.
func (b *Board) setWhere(id string, w terminal.Where) {
	if id == "" || w.IsZero() {
		return
	}
	b.mu.Lock()
	if !b.fold.Has(id) || b.wheres[id] == w {
		b.mu.Unlock()
		return
	}
	if b.wheres == nil {
		b.wheres = map[string]terminal.Where{}
	}
	door := b.wheres[id].Door() != w.Door()
	b.wheres[id] = w
	b.factsVersion.Add(1)
	b.pruneLocked()
	b.mu.Unlock()
	if door {
		b.changed()
	}
}

// Where is where a row of this host's fold runs, if a hook said.
func (b *Board) Where(id string) (terminal.Where, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.wheres[id]
	return w, ok && b.fold.Has(id)
}

// Doors are the ways to the terminals of the rows of this host's fold
// that have one, by row id.
func (b *Board) Doors() map[string]terminal.Door {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]terminal.Door, len(b.wheres))
	for id, w := range b.wheres {
		if d := w.Door(); d.Kind != "" && b.fold.Has(id) {
			out[id] = d
		}
	}
	return out
}

// forgetLocked forgets what is kept beside the given rows; the caller
// holds b.mu.
func (b *Board) forgetLocked(ids ...string) {
	for _, id := range ids {
		delete(b.wheres, id)
		delete(b.hist, id)
		delete(b.facts, id)
	}
}

// pruneLocked forgets what is kept beside the rows (terminals, histories)
// for rows the fold no longer holds, whenever more is kept than there are
// rows (a row retired, finished, or dropped at the fold's cap); the caller
// holds b.mu.
func (b *Board) pruneLocked() {
	n := b.fold.Len()
	if len(b.wheres) > n {
		for id := range b.wheres {
			if !b.fold.Has(id) {
				delete(b.wheres, id)
			}
		}
	}
	if len(b.hist) > n {
		for id := range b.hist {
			if !b.fold.Has(id) {
				delete(b.hist, id)
			}
		}
	}
	if len(b.facts) > n {
		for id := range b.facts {
			if !b.fold.Has(id) {
				delete(b.facts, id)
			}
		}
	}
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
