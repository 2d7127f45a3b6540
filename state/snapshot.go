package state

import (
	"cmp"
	"slices"
	"time"

	"github.com/notch-web/notch-web/settings"
)

// SnapshotInput is everything a document holds that is not a row: the
// clock reading and the host's facts and settings. Passing the clock in
// keeps Snapshot pure.
type SnapshotInput struct {
	Now         time.Time // becomes wallMs
	HostPid     int
	Retire      string  // RetireRoute (also for "") or RetireTimer
	FinishedURL *string // nil: no port yet
	OpenURL     *string // nil: no port yet
	Context     Context // Budget nil = unknown; HotAt 0 = DefaultHotAt
	Settings    settings.Settings
	RetireAfter time.Duration // under RetireTimer; 0 = DefaultRetireAfter
}

// Snapshot builds the schema-4 document from the fold's rows. It is pure:
// the same fold and the same input give the same document, and the
// document shares no memory with the fold.
//
// Which rows it carries:
//   - Under retire "timer", a done or error row whose since is more than
//     RetireAfter before Now is left out. This is the only removal by time
//     (docs/contract.md rule 2); working and attention rows never age out, and under
//     "route" nothing does.
//   - settings.ShowDone false leaves done rows out (docs/contract.md rule 6), and the
//     summary is computed after, so it agrees with the rows.
//   - At most MaxSessions rows. When there are more, the most relevant
//     are kept: attention, then error, then working, then done; within a
//     status the most recent since, then the most recently opened. Every
//     row is ranked on its own: a subagent is not kept for its parent's
//     sake nor dropped for its parent's absence (a kept subagent whose
//     parent was dropped is placed as a top-level row).
//
// Order: open order, which is stable across snapshots, except that each
// subagent follows its parent directly (after the parent's earlier
// subagents) when the parent is carried.
func (f *Fold) Snapshot(in SnapshotInput) Document {
	now := in.Now.UnixMilli()
	retire := RetireRoute
	if in.Retire == RetireTimer {
		retire = RetireTimer
	}
	kept := make([]*row, 0, min(len(f.rows), 4*MaxSessions))
	for _, r := range f.rows {
		st := r.s.Status
		if at, ok := RetiresAt(r.s, retire, in.RetireAfter); ok && now >= at.UnixMilli() {
			continue
		}
		if st == StatusDone && !in.Settings.ShowDone {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) > MaxSessions {
		slices.SortFunc(kept, moreRelevant)
		kept = kept[:MaxSessions]
	}

	sessions := make([]Session, 0, len(kept))
	for _, r := range treeOrder(kept) {
		sessions = append(sessions, r.s.clone())
	}
	sum := summarize(sessions)

	return Document{
		Schema:      Schema,
		Plugin:      Plugin,
		WallMs:      now,
		HostPid:     in.HostPid,
		Retire:      retire,
		FinishedURL: cloneString(in.FinishedURL),
		OpenURL:     cloneString(in.OpenURL),
		Context:     normalContext(in.Context),
		Settings:    in.Settings,
		Summary:     sum,
		Sessions:    sessions,
	}
}

// RetiresAt is when a row leaves the snapshot by time (the first instant
// Snapshot drops it) and whether it ever does: only a settled row, under
// retire "timer", more than after (0: DefaultRetireAfter) after it settled.
func RetiresAt(s Session, retire string, after time.Duration) (time.Time, bool) {
	if retire != RetireTimer || !Settled(s.Status) {
		return time.Time{}, false
	}
	if after <= 0 {
		after = DefaultRetireAfter
	}
	return time.UnixMilli(s.Since + after.Milliseconds() + 1), true
}

// Settled reports whether a status is an end: done or error. A settled row
// waits for its close-out (the ✕, session.finished, a mark) and, under
// retire "timer", may also leave by time.
func Settled(status string) bool { return status == StatusDone || status == StatusError }

// summarize counts the rows by status and derives the tab's status from the
// counts (summaryStatus): the one place a summary is made, for the host's
// own rows and for the rows composed from other machines.
// Summarize counts rows as the document's summary does: for a view that
// leaves some rows out of its counts (a quiet machine's, shown unknown).
func Summarize(ss []Session) Summary { return summarize(ss) }

func summarize(ss []Session) Summary {
	var sum Summary
	for _, s := range ss {
		switch s.Status {
		case StatusWorking:
			sum.Working++
		case StatusAttention:
			sum.Attention++
		case StatusDone:
			sum.Done++
		case StatusError:
			sum.Error++
		}
	}
	sum.Total = len(ss)
	sum.Status = summaryStatus(sum)
	return sum
}

// summaryStatus is the tab's dot as the contract's example computes it (2
// working, 1 attention, 1 done ⇒ "working"): whether anything is working,
// else the human's attention, else a failure, else done; "" with no rows,
// since nothing is invented (docs/contract.md, docs/contract.md rule 5). "Needs you" is the
// alert island's to say, not the dot's.
func summaryStatus(sum Summary) string {
	switch {
	case sum.Working > 0:
		return StatusWorking
	case sum.Attention > 0:
		return StatusAttention
	case sum.Error > 0:
		return StatusError
	case sum.Done > 0:
		return StatusDone
	}
	return ""
}

// Relevance ranks statuses, lowest first: the human's attention, then
// failures, then live work, then the finished (and anything else). It
// decides which rows the MaxSessions cut keeps and which session the
// board's big bot and alert island stand for.
func Relevance(status string) int {
	switch status {
	case StatusAttention:
		return 0
	case StatusError:
		return 1
	case StatusWorking:
		return 2
	}
	return 3
}

// normalContext publishes only a budget that can be a window's size (a
// zero or negative one would be a guess, or a division by zero in the
// window: docs/contract.md rule 1), and the default hotAt for one out of settings.ValidHotAt's
// range, so the document and the board it is drawn on agree.
func normalContext(c Context) Context {
	out := Context{HotAt: c.HotAt}
	if c.Budget != nil && *c.Budget > 0 {
		out.Budget = cloneInt64(c.Budget)
	}
	if !settings.ValidHotAt(out.HotAt) {
		out.HotAt = DefaultHotAt
	}
	return out
}

// treeOrder puts rows in open order with each subagent right after its
// parent (depth first, so a subagent's own subagents follow it). Rows in a
// parent cycle, which re-opens could in principle create, are emitted in
// open order after the rest rather than lost.
func treeOrder(rows []*row) []*row {
	slices.SortFunc(rows, func(a, b *row) int { return cmp.Compare(a.seq, b.seq) })
	byID := make(map[string]*row, len(rows))
	for _, r := range rows {
		byID[r.s.ID] = r
	}
	children := make(map[string][]*row)
	var roots []*row
	for _, r := range rows {
		if p := r.s.ParentSession; p != "" && p != r.s.ID && byID[p] != nil {
			children[p] = append(children[p], r)
		} else {
			roots = append(roots, r)
		}
	}
	out := make([]*row, 0, len(rows))
	seen := make(map[*row]bool, len(rows))
	var walk func(r *row)
	walk = func(r *row) {
		if seen[r] {
			return
		}
		seen[r] = true
		out = append(out, r)
		for _, c := range children[r.s.ID] {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for _, r := range rows {
		walk(r) // only cycles are left unseen
	}
	return out
}
