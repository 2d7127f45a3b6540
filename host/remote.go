package host

import (
	"context"
	"errors"
	"time"

	"github.com/notch-web/notch-web/state"
)

// Remote is the rows of other machines that a board shows beside its own
// (host/mesh, issue 21). A board of one machine has none, and then nothing
// here runs.
type Remote interface {
	// Attach hands the remote the board's change signal; it calls it
	// whenever the rows it adds change. Called once, by New.
	Attach(changed func())
	// Compose adds the other machines' rows to the board's own document.
	Compose(d state.Document, now time.Time) state.Document
	// Owns reports whether a row id is in another machine's namespace,
	// whether or not that row exists. Restoring from state.json skips
	// those: the remote keeps them in its own store.
	Owns(id string) bool
	// Has reports whether another machine's board has the row id now:
	// only such a row is one the board holds (its history, its
	// statusline, its ✕).
	Has(id string) bool
	// Unknown returns the ids of the rows whose machine has gone quiet
	// (their last state, not a current one), or nil.
	Unknown() map[string]bool
	// Retire closes out another machine's rows (the ✕ on the hub's board)
	// and reports whether it held any of ids.
	Retire(ids ...string) bool
	// Cards are the other machines' approval cards, keyed by their rows'
	// ids; a quiet machine's are read-only (no nonce).
	Cards() CardSet
	// Answer sends a click on another machine's card to the machine that
	// holds the hook and returns its outcome: the errors of a local click
	// (ErrNonce, ErrAnswered, ErrNotHeld, …), or ErrMachineAway when the
	// machine cannot be asked or does not reply.
	Answer(r AnswerRequest) (Card, error)
	// Steer sends a Reply or Stop for another machine's row to that
	// machine, which applies it with its own Steer (its pane, its locks)
	// and replies: the errors of a local Steer, or ErrMachineAway.
	Steer(ctx context.Context, r SteerRequest) error
}

// ErrMachineAway: an answer for another machine's session that could not
// be delivered, or got no reply (503): the machine is quiet or unreachable.
// Whether it was applied is not known; the card says so when the machine
// is back.
var ErrMachineAway = errors.New("the machine that holds this approval did not answer")

// Unknown returns the ids of rows whose machine has gone quiet (see
// Remote), or nil on a board of one machine.
func (b *Board) Unknown() map[string]bool {
	if b.remote == nil {
		return nil
	}
	return b.remote.Unknown()
}

// WindowSnapshot is the document state.json carries: Snapshot less the
// rows of machines that went quiet, counted again. The window draws every
// row as current (rule 3 is about this host's heartbeat, not another
// machine's), so a quiet machine's last state leaves sessions and summary
// until the machine is back; the board, which can say "unknown", keeps
// them (docs/contract.md §3, "On a hub").
func (b *Board) WindowSnapshot(now time.Time) state.Document {
	d, _ := b.Snapshot(now)
	return state.Without(d, b.Unknown())
}

// compose adds the remote's rows to a snapshot of the fold, when there is
// a remote.
func (b *Board) compose(d state.Document, now time.Time) state.Document {
	if b.remote == nil {
		return d
	}
	return b.remote.Compose(d, now)
}

// IsRemote reports whether id is a row of another machine (on a hub's
// board): an action of this machine (its terminal or folder opener) would
// act on the wrong machine for it.
func (b *Board) IsRemote(id string) bool { return b.ownsRemote(id) }

// ownsRemote reports whether id is a remote row's.
func (b *Board) ownsRemote(id string) bool { return b.remote != nil && b.remote.Owns(id) }
