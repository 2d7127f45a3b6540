package state

import (
	"fmt"
	"slices"
	"strings"
)

// MaxTracked bounds how many sessions the fold holds at once, so a harness
// that opens sessions and never closes them out costs bounded memory. A
// session.opened beyond it is never refused: the least relevant row the
// board does not show makes room, a settled one first (cap.go), and the
// drop is a warning for the log.
const MaxTracked = 1000

// Fold is the session-event fold: it turns session events into rows. It is
// deterministic and reads no clock and does no I/O, so tests drive it with
// plain values and the same events always give the same rows. It is not
// safe for concurrent use; the caller holds a lock around it.
//
// Two facts about a row are the fold's own rather than an event's: since is
// the at at which the row entered its current status (an event that leaves
// the status as it was leaves since alone), and identity is fixed when the
// session opens — its parent's when it names a parent the fold holds (such a
// subagent does not use up a colour), otherwise the next of teal, violet,
// coral, pink, lime in open order.
type Fold struct {
	rows   map[string]*row
	opened uint64 // sessions opened so far: each row's place in open order
	next   int    // the next round-robin identity
}

// row is a session plus what the fold needs to keep it honest.
type row struct {
	s      Session
	seq    uint64 // open order, for a stable output order
	lastAt int64  // the last at applied, for the out-of-order clamp
	// derived is set while Project is the cwd's last segment rather than a
	// project the harness named, so that a new cwd may re-derive it.
	derived bool
	// ended is set by session.ended (the agent's process is gone) and
	// cleared only by a session.opened (a new process for the session):
	// while it is set, nothing moves the row's status (see afterEnd).
	ended bool
}

// NewFold returns an empty fold.
func NewFold() *Fold { return &Fold{rows: map[string]*row{}} }

// Len reports how many sessions the fold holds (before any snapshot
// filtering).
func (f *Fold) Len() int { return len(f.rows) }

// Has reports whether the fold holds the session, e.g. to answer a close-out
// for a session it never saw.
func (f *Fold) Has(id string) bool { _, ok := f.rows[id]; return ok }

// IDs are the rows' ids, in no order.
func (f *Fold) IDs() []string {
	out := make([]string, 0, len(f.rows))
	for id := range f.rows {
		out = append(out, id)
	}
	return out
}

// Ended reports whether a row's session has ended (session.ended): only a
// session.opened starts it again.
func (f *Fold) Ended(id string) bool { r := f.rows[id]; return r != nil && r.ended }

// Session returns a copy of one row, as the fold holds it.
func (f *Fold) Session(id string) (Session, bool) {
	r, ok := f.rows[id]
	if !ok {
		return Session{}, false
	}
	return r.s.clone(), true
}

// Apply applies a batch of events all or nothing: events are checked and
// applied in order against the batch's own view (so a session opened
// earlier in the batch exists for the events after it), and if any one
// fails, nothing at all is applied and the error names its 1-based index.
//
// Every event must carry At (see Stamp). An at earlier than the session's
// last event is accepted but clamped to it, because arrival order is the
// truth; each clamp is reported as a warning, not an error.
func (f *Fold) Apply(evs ...Event) (warnings []string, err error) {
	t := txn{f: f, touched: make(map[string]*row, min(len(evs), 64)), opened: f.opened, next: f.next, n: len(f.rows)}
	for i, ev := range evs {
		w, err := t.apply(ev)
		if err != nil {
			return nil, fmt.Errorf("event %d (%s, session %s): %w", i+1, short(ev.Type), short(ev.Session), err)
		}
		if w != "" {
			warnings = append(warnings, fmt.Sprintf("event %d: %s", i+1, w))
		}
	}
	for id, r := range t.touched {
		if r == nil {
			delete(f.rows, id)
		} else {
			f.rows[id] = r
		}
	}
	f.opened, f.next = t.opened, t.next
	return warnings, nil
}

// Retire removes rows by id: the close-out marks (manual.json, the board's
// ✕) for sessions whose harness will not send session.finished. A row's
// settled subagents go with it (a working or attention one stays: it is
// still true). It reports whether any row went.
func (f *Fold) Retire(ids ...string) (changed bool) {
	for _, id := range ids {
		if _, ok := f.rows[id]; ok {
			for _, sub := range f.settledSubagents(id) {
				delete(f.rows, sub)
			}
			delete(f.rows, id)
			changed = true
		}
	}
	return changed
}

// settledSubagents are the ids of the settled (done or error) rows below
// id: its subagents, theirs, and so on.
func (f *Fold) settledSubagents(id string) []string {
	var out []string
	for _, sub := range f.subagents(id, func(id string) *row { return f.rows[id] }, func(yield func(*row) bool) {
		for _, r := range f.rows {
			if !yield(r) {
				return
			}
		}
	}) {
		if Settled(f.rows[sub].s.Status) {
			out = append(out, sub)
		}
	}
	return out
}

// subagents are the ids of the rows below id (its subagents, theirs…),
// sorted, as seen through get and all (the fold's rows, or a batch's view).
func (f *Fold) subagents(id string, get func(string) *row, all func(func(*row) bool)) []string {
	var out []string
	seen := map[string]bool{id: true}
	for queue := []string{id}; len(queue) > 0; queue = queue[1:] {
		var next []string
		for r := range all {
			if r != nil && r.s.ParentSession == queue[0] && !seen[r.s.ID] {
				seen[r.s.ID] = true
				next = append(next, r.s.ID)
			}
		}
		slices.Sort(next)
		out = append(out, next...)
		queue = append(queue, next...)
	}
	return out
}

// txn is one batch in flight: rows it changed are copies in touched (nil
// marks a removal), so that a failed batch leaves the fold untouched.
type txn struct {
	f       *Fold
	touched map[string]*row
	opened  uint64
	next    int
	n       int // rows held once the batch commits
}

// peek returns the batch's view of a row, read-only.
func (t *txn) peek(id string) *row {
	if r, ok := t.touched[id]; ok {
		return r
	}
	return t.f.rows[id]
}

// get returns the batch's own copy of a row, to change.
func (t *txn) get(id string) *row {
	if r, ok := t.touched[id]; ok {
		return r
	}
	r := t.f.rows[id]
	if r == nil {
		return nil
	}
	c := *r
	c.s = r.s.clone()
	t.touched[id] = &c
	return &c
}

func (t *txn) apply(ev Event) (warning string, err error) {
	if err := ev.Validate(); err != nil {
		return "", err
	}
	ev = ev.cleanText() // the one text rule, whichever route the event came by
	if ev.At == 0 {
		return "", fmt.Errorf("%w: at is missing; the receiver stamps events (Stamp) before Apply", ErrInvalidEvent)
	}
	r := t.get(ev.Session)
	if r == nil {
		if ev.Type != TypeSessionOpened {
			return "", ErrUnknownSession
		}
		if t.n >= MaxTracked {
			if warning, err = t.makeRoom(ev.Parent); err != nil {
				return "", err
			}
		}
		return warning, t.open(ev)
	}
	if r.ended && !afterEnd[ev.Type] {
		return fmt.Sprintf("%s for session %s ignored: the session has ended (only a session.opened starts it again)",
			ev.Type, short(ev.Session)), nil
	}
	at := ev.At
	if at < r.lastAt {
		warning = fmt.Sprintf("%s for session %s at %d is earlier than its last event (%d); clamped, arrival order is the truth",
			ev.Type, short(ev.Session), at, r.lastAt)
		at = r.lastAt
	}
	r.lastAt = at
	s := &r.s
	switch ev.Type {
	case TypeSessionOpened:
		// A re-open (a harness reconnecting, a resumed session) refreshes
		// what it names and nothing else: status, identity and since are
		// facts about the session's life so far. It is also the one thing
		// that starts an ended session again (a new process for it).
		r.describe(ev)
		r.ended = false
	case TypeSessionTitled:
		s.Title = ev.Title
	case TypeTurnStarted:
		r.enter(StatusWorking, at)
		s.Activity = &Activity{Kind: ActivityThinking, Label: ""}
		s.Steps = 0
		s.ErrorStreak = 0
		s.Approval = nil
	case TypeToolStarted:
		s.Activity = &Activity{Kind: ActivityTool, Label: ev.Tool}
		s.Steps++
	case TypeToolEnded:
		s.Activity = &Activity{Kind: ActivityThinking, Label: ev.Tool}
		if ev.Outcome == OutcomeError {
			s.ErrorStreak++
		} else {
			s.ErrorStreak = 0
		}
	case TypeApprovalRequested:
		r.enter(StatusAttention, at)
		s.Approval = &Approval{ToolName: ev.Tool, Reason: ev.Reason}
	case TypeApprovalResolved:
		s.Approval = nil
		// Only a session that was waiting goes back to work: a late
		// resolution must not revive a turn that has already ended.
		if s.Status == StatusAttention {
			r.enter(StatusWorking, at)
		}
		if ev.Outcome == OutcomeAllowedOnce {
			s.ApprovedAt = &at
		}
	case TypeContextTokens:
		s.ContextTokens = *ev.Tokens
	case TypeTurnEnded:
		if ev.Outcome == OutcomeError {
			r.enter(StatusError, at)
		} else {
			r.enter(StatusDone, at)
		}
		s.Approval = nil
	case TypeSessionEnded:
		// The process is gone: the row settles, and so do its subagents'.
		// A turn still open (working, or waiting on the human) ended
		// unfinished, which is an error; a settled row keeps its verdict,
		// unless the end itself was a failure.
		if !r.ended {
			r.settle(ev.Outcome, at)
			for _, id := range t.f.subagents(ev.Session, t.peek, t.all) {
				if sub := t.get(id); !sub.ended {
					sub.settle("", max(at, sub.lastAt))
				}
			}
		}
	case TypeSessionFinished:
		// The close-out; settled subagents go with their session.
		for _, id := range t.f.subagents(ev.Session, t.peek, t.all) {
			if Settled(t.peek(id).s.Status) {
				t.touched[id] = nil
				t.n--
			}
		}
		t.touched[ev.Session] = nil
		t.n--
	}
	return warning, nil
}

// afterEnd are the events an ended row still takes: none of them moves its
// status. A late hook (a turn's end, a permission notification, a tool's
// result) must not bring an ended session back to working or "needs you".
var afterEnd = map[string]bool{
	TypeSessionOpened:   true, // a new process for the session: it lives again
	TypeSessionTitled:   true,
	TypeContextTokens:   true, // a transcript read that lands after the end
	TypeSessionEnded:    true, // once is enough: a second changes nothing
	TypeSessionFinished: true,
}

// settle ends a row's life: working or attention (a turn still open) becomes
// error, as does any row when outcome is error; done and error stay. The
// approval goes, and a tool still out is no longer running.
func (r *row) settle(outcome string, at int64) {
	switch {
	case outcome == OutcomeError, !Settled(r.s.Status):
		r.enter(StatusError, at)
	}
	r.s.Approval = nil
	if a := r.s.Activity; a != nil && a.Kind == ActivityTool {
		r.s.Activity = &Activity{Kind: ActivityThinking, Label: a.Label}
	}
	r.lastAt = max(r.lastAt, at)
	r.ended = true
}

// all yields every row of the batch's view (removed ones excluded).
func (t *txn) all(yield func(*row) bool) {
	for _, r := range t.touched {
		if r != nil && !yield(r) {
			return
		}
	}
	for id, r := range t.f.rows {
		if _, ok := t.touched[id]; ok {
			continue
		}
		if !yield(r) {
			return
		}
	}
}

// open creates a row: working since at, no activity until its first turn.
func (t *txn) open(ev Event) error {
	r := &row{seq: t.opened, lastAt: ev.At}
	t.opened++
	r.s = Session{ID: ev.Session, Status: StatusWorking, Since: ev.At}
	r.describe(ev)
	// A subagent wears its parent's colour, so the pair reads as one on
	// the board; everyone else takes the next colour in open order.
	if p := t.peek(ev.Parent); ev.Parent != "" && p != nil {
		r.s.Identity = p.s.Identity
	} else {
		r.s.Identity = identities[t.next%len(identities)]
		t.next = (t.next + 1) % len(identities)
	}
	t.touched[ev.Session] = r
	t.n++
	return nil
}

// describe copies the descriptive fields an event gives ("" = not given).
func (r *row) describe(ev Event) {
	s := &r.s
	if ev.Title != "" {
		s.Title = ev.Title
	}
	if ev.Cwd != "" {
		s.Cwd = ev.Cwd
	}
	switch {
	case ev.Project != "":
		s.Project, r.derived = ev.Project, false
	case ev.Cwd != "" && (r.derived || s.Project == ""):
		s.Project, r.derived = ProjectFromCwd(ev.Cwd), true
	}
	if ev.Origin != "" {
		s.Origin = ev.Origin
	}
	if ev.Parent != "" {
		s.ParentSession = ev.Parent
	}
}

// enter moves the row to a status; since changes only when the status does,
// because since is when the row ENTERED its status.
func (r *row) enter(status string, at int64) {
	if r.s.Status != status {
		r.s.Status, r.s.Since = status, at
	}
}

// ProjectFromCwd is the contract's fallback project name: the last segment
// of cwd, for POSIX and Windows paths alike (trailing separators ignored).
// A root ("/", `C:\`) has no segment and gives "": nothing is invented.
func ProjectFromCwd(cwd string) string {
	p := strings.TrimRight(cwd, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	if len(p) == 2 && p[1] == ':' && isLetter(p[0]) {
		return "" // a bare drive ("C:") is a root, not a project
	}
	return p
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// Restore refills an empty fold with the rows of a document this host wrote
// before it restarted, so rows, colours and counters carry on and the next
// event for a running session is applied as though the host never left. It
// keeps the document's order as the open order, each row's identity and
// since, and continues the colours after the last one handed out. Rows the
// document did not carry (done rows under showDone false, rows beyond the
// 40 it carries) are not known, and stay gone. It reports how many rows it
// restored; a fold that already holds rows is left alone (0).
func (f *Fold) Restore(d Document) int {
	if len(f.rows) > 0 {
		return 0
	}
	d = Sanitize(d) // the file may have been edited: the one text rule
	for _, s := range d.Sessions {
		if !ValidSessionID(s.ID) || f.rows[s.ID] != nil || len(f.rows) >= MaxTracked {
			continue
		}
		s = s.clone()
		r := &row{s: s, seq: f.opened, lastAt: s.Since}
		if s.ApprovedAt != nil && *s.ApprovedAt > r.lastAt {
			r.lastAt = *s.ApprovedAt
		}
		r.derived = s.Project != "" && s.Project == ProjectFromCwd(s.Cwd)
		f.rows[s.ID] = r
		f.opened++
		if i := slices.Index(identities[:], s.Identity); i >= 0 && s.ParentSession == "" {
			f.next = (i + 1) % len(identities)
		}
	}
	return len(f.rows)
}
