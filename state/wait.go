package state

import (
	"cmp"
	"slices"
)

// Waiting reports whether a session waits on the human: it asked (an
// approval, a question, a plan) and nobody has answered. Its wait began at
// its since, the moment it entered StatusAttention, and lasts until it
// leaves it. The History page counts the same span as "time waiting on
// you" (host/store: a band of StatusAttention, opened by the request and
// closed by whatever moves the session on), so the board's "4m" and the
// History's minutes are one number.
func Waiting(s Session) bool { return s.Status == StatusAttention }

// WaitMs is how long a wait that began at from has lasted at to, in ms:
// never negative (a clock behind the one that stamped from reads as no
// wait yet, not as a wait that ends before it began). The board's lane
// and the History's headline both measure with it.
func WaitMs(from, to int64) int64 { return max(to-from, 0) }

// Wait is one entry of the queue of who waits (Queue): a session that
// needs the human, with how long it has.
type Wait struct {
	// Index is the waiting session's position in the list given to Queue.
	Index int
	// Top is the position of its top-level session (Index itself for a
	// session with no parent on the board): a subagent's wait blocks its
	// parent, and is shown as the parent's.
	Top int
	// FromMs is when the wait began (the session's since); WaitMs how long
	// it has lasted at the now given to Queue.
	FromMs, WaitMs int64
}

// Queue is the queue of who waits: every session of ss that waits on the
// human (Waiting) and that skip does not leave out (nil leaves none: a
// board leaves out a quiet machine's rows, whose last state is not
// current), oldest wait first. Equal waits keep the order of ss (the
// board's: this machine's rows first, then each other machine's by name,
// each in the order its sessions opened, a subagent after its parent).
//
// The order depends only on when each wait began, never on now: waits
// all grow together, so the queue does not reorder as the clock moves,
// only when a wait begins or ends. now only measures them.
//
// It is a view of the rows, not state: nothing of it is in state.json.
func Queue(ss []Session, skip func(id string) bool, now int64) []Wait {
	var out []Wait
	for i := range ss {
		if !Waiting(ss[i]) || skip != nil && skip(ss[i].ID) {
			continue
		}
		out = append(out, Wait{Index: i, Top: topOf(ss, i), FromMs: ss[i].Since, WaitMs: WaitMs(ss[i].Since, now)})
	}
	slices.SortStableFunc(out, func(a, b Wait) int { return cmp.Compare(a.FromMs, b.FromMs) })
	return out
}

// topOf is the position of session i's top-level ancestor among ss: the
// parent chain is followed while each parent is in ss (a cycle, or a
// parent not on the board, stops it).
func topOf(ss []Session, i int) int {
	t := i
	for n := 0; n < len(ss); n++ {
		p := ss[t].ParentSession
		if p == "" || p == ss[t].ID {
			break
		}
		j := slices.IndexFunc(ss, func(s Session) bool { return s.ID == p })
		if j < 0 {
			break
		}
		t = j
	}
	return t
}
