package state

import (
	"cmp"
	"fmt"
	"slices"
)

// moreRelevant orders rows as the board ranks them when it must choose
// which to carry (Snapshot): attention, then error, then working, then
// done; within a status the most recent since, then the most recently
// opened.
func moreRelevant(a, b *row) int {
	return cmp.Or(
		cmp.Compare(Relevance(a.s.Status), Relevance(b.s.Status)),
		cmp.Compare(b.s.Since, a.s.Since),
		cmp.Compare(b.seq, a.seq),
	)
}

// makeRoom is what a session.opened does at MaxTracked: it never refuses
// the new session (it may be the one that needs the human), and drops one
// row instead — never one the board shows (the MaxSessions most relevant,
// with done rows shown or not), and of the rest the least relevant settled
// row (done, then error; the oldest first), else only then the least
// relevant live one. keep is not dropped (the new row's parent). The drop
// is returned as a warning, for the log.
func (t *txn) makeRoom(keep string) (string, error) {
	var all []*row
	for r := range t.all {
		all = append(all, r)
	}
	slices.SortFunc(all, moreRelevant)
	shown := map[*row]bool{}
	for i, n := 0, 0; i < len(all) && n < MaxSessions; i++ {
		shown[all[i]] = true
		n++
	}
	for i, n := 0, 0; i < len(all) && n < MaxSessions; i++ {
		if all[i].s.Status != StatusDone { // the board with showDone off
			shown[all[i]] = true
			n++
		}
	}
	var victim *row
	for _, settled := range []bool{true, false} {
		for i := len(all) - 1; i >= 0 && victim == nil; i-- {
			r := all[i]
			if !shown[r] && Settled(r.s.Status) == settled && r.s.ID != keep {
				victim = r
			}
		}
	}
	if victim == nil {
		return "", fmt.Errorf("%w: the fold already tracks %d, all on the board", ErrTooManySessions, MaxTracked)
	}
	t.touched[victim.s.ID] = nil
	t.n--
	return fmt.Sprintf("session %s (%s since %d, not on the board) dropped: the board tracks at most %d sessions",
		short(victim.s.ID), victim.s.Status, victim.s.Since, MaxTracked), nil
}
