package host

import (
	"github.com/notch-web/notch-web/host/ledger"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/internal/notify"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// BoardConfig is the host's own facts for state.json.
type BoardConfig struct {
	HostPid     int
	FinishedURL *string
	OpenURL     *string
	// RetireAfter is how long a settled row stays under retire "timer".
	RetireAfter time.Duration
}

// Board is the live board: the session fold (host mode) or the followed
// document (follow mode), composed with the effective settings into one
// schema-4 snapshot. It is safe for concurrent use.
type Board struct {
	// hookAgent is the agent of the hook being applied (b.mu held), for
	// the history of a row whose facts do not name one yet.
	hookAgent string

	cfg BoardConfig
	// follow is true in follow mode: the document comes from another
	// host's state.json and events are refused.
	follow   bool
	settings *settings.Service
	changes  notify.Broadcast
	version  atomic.Uint64           // bumped on every change of the fold or the followed document
	cards    atomic.Pointer[CardSet] // the approvals' cards (approvals.go)
	steerOff bool                    // --steer off: no row takes Reply or Stop (steer.go)

	mu       sync.Mutex
	fold     *state.Fold
	followed *state.Document
	remote   Remote // other machines' rows (host/mesh); nil on a board of one
	// retired is told of rows Retire closed out (the approvals free their
	// cards); nil tells nobody. Set once, before the board is used.
	retired func(ids ...string)

	usage usageStore // what Claude Code's statuslines tell (usage.go)
	// ledger is the plan limits and the cost and tokens the agents tell
	// (ledger.go); its changes are the board's.
	ledger *ledger.Ledger
	// ledgerEvents receives the ledger's pushes (a level crossed, a
	// limit ended); set once, before the board is used (SetLedgerEvents).
	ledgerEvents atomic.Pointer[func(ledger.Event)]
	spent        spentStore // what the agents' OpenTelemetry tells (spent.go)

	// hist is each row's last events (history.go); under mu.
	hist map[string]*historyRing
	// facts is what the hooks said of each row beside its events: its
	// agent, process, transcript and terminal (rowfacts.go); under mu.
	facts map[string]rowFacts
	// factsVersion counts changes of facts, for the sidecar (live.go).
	factsVersion atomic.Uint64
	// leftPane are the rows whose agent a Reply or Stop found gone from
	// its pane (steer.go): they take neither until a turn starts; under mu.
	leftPane map[string]bool
	// rec keeps the lasting history (recorder.go); nil for none; under mu.
	rec Recorder
	// whys is why each row's latest turn stopped, and turnAt when each
	// row's latest turn started (why.go); under mu.
	whys   map[string]hookjson.Why
	turnAt map[string]int64
}

// NewBoard returns an empty board; follow makes it a follower's.
func NewBoard(cfg BoardConfig, follow bool, s *settings.Service) *Board {
	b := &Board{cfg: cfg, follow: follow, settings: s, fold: state.NewFold()}
	b.ledger = ledger.New(ledger.Options{Cadence: ledgerCadence, OnChange: b.changed, OnEvent: b.ledgerEvent, OnCount: b.ledgerCount})
	return b
}

// Follow reports whether the board mirrors another host.
func (b *Board) Follow() bool { return b.follow }

func (b *Board) changed() {
	b.version.Add(1)
	b.changes.Notify()
}

// Version counts the changes of the board so far: equal versions, equal
// boards (but for the clock).
func (b *Board) Version() uint64 { return b.version.Load() }

// Subscribe returns a channel woken after every change of the fold or of the
// followed document (settings changes come from the settings service).
func (b *Board) Subscribe() (<-chan struct{}, func()) { return b.changes.Subscribe() }

// Ingest applies a batch of events all-or-nothing. Events without a time are
// stamped with now: the fold itself never reads a clock.
func (b *Board) Ingest(evs []state.Event, now time.Time) ([]string, error) {
	// Events come from outside: their ids may not enter the namespace of
	// the ids notch-web derives (a subagent's, a hashed one).
	if err := state.CheckRawIDs(evs); err != nil {
		return nil, err
	}
	state.Stamp(evs, now)
	b.mu.Lock()
	warns, err := b.applyLocked(evs...)
	b.mu.Unlock()
	if err == nil && len(evs) > 0 {
		b.changed()
	}
	return warns, err
}

// Retire removes closed-out sessions (the ✕, or marks in manual.json).
func (b *Board) Retire(ids ...string) {
	if b.remote != nil && b.remote.Retire(ids...) {
		return
	}
	b.mu.Lock()
	changed := b.fold.Retire(ids...)
	b.forgetLocked(ids...)
	b.pruneLocked()
	b.mu.Unlock()
	if b.retired != nil {
		b.retired(ids...)
	}
	if changed {
		b.changed()
	}
}

// Has reports whether the board holds a session: a row of the fold (host
// mode) or of the followed document.
func (b *Board) Has(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ownsRemote(id) {
		return b.remote.Has(id) // a row that exists, not any id of a machine
	}
	if b.follow {
		if b.followed != nil {
			for _, s := range b.followed.Sessions {
				if s.ID == id {
					return true
				}
			}
		}
		return false
	}
	return b.fold.Has(id)
}

// SetFollowed replaces the mirrored document (follow mode).
func (b *Board) SetFollowed(d state.Document) {
	b.mu.Lock()
	b.followed = &d
	b.mu.Unlock()
	b.changed()
}

// View is the document the board shows as of now, and whether it is
// unknown (docs/contract.md rule 3): nothing read yet from a followed host,
// or the followed host's heartbeat is stale. A host's own board is never
// unknown to itself; a browser tab decides its host's liveness from the
// stream.
func (b *Board) View(now time.Time) (doc state.Document, unknown bool) {
	doc, ok := b.Snapshot(now)
	return doc, !ok || (b.follow && state.Stale(doc, now))
}

// Snapshot is the schema-4 document as of now. In follow mode it is the
// followed document as read (its own wallMs: staleness is the reader's call,
// docs/contract.md rule 3), or ok=false when nothing has been read yet.
func (b *Board) Snapshot(now time.Time) (doc state.Document, ok bool) {
	if b.follow {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.followed == nil {
			return state.Document{}, false
		}
		return *b.followed, true
	}
	v := b.settings.View()
	in := state.SnapshotInput{
		Now:         now,
		HostPid:     b.cfg.HostPid,
		Retire:      v.Retire,
		FinishedURL: b.cfg.FinishedURL,
		OpenURL:     b.cfg.OpenURL,
		Context:     state.Context{Budget: v.Context.Budget, HotAt: v.Context.HotAt},
		Settings:    v.Settings,
		RetireAfter: b.cfg.RetireAfter,
	}
	b.mu.Lock()
	doc = b.fold.Snapshot(in)
	b.mu.Unlock()
	return b.compose(doc, now), true
}

// applyHook maps a hook and applies it. The adapter parses the payload
// off the board's lock (a hook may be megabytes, and a small hook beside it
// must not wait), reading the rows through a lookup that remembers what it
// saw; under the lock, if every row it read is still as it saw it, its
// events are applied, else it is mapped again under the lock, so the
// adapter always sees the rows exactly as its events will find them. The
// warnings are the fold's (a row dropped at the cap), for the log.
func (b *Board) applyHook(adapt Adapter, payload []byte, now time.Time) (hookjson.Mapping, int, []string, error) {
	return b.applyHookOf("", adapt, payload, now)
}

// applyHookOf is applyHook for a hook of agent: the history learns the
// agent of a session from its very first events (the row's own facts are
// noted only once the row exists, after them).
func (b *Board) applyHookOf(agent string, adapt Adapter, payload []byte, now time.Time) (hookjson.Mapping, int, []string, error) {
	var seen []lookedUp
	m, err := adapt(payload, func(id string) (state.Session, bool) {
		b.mu.Lock()
		s, ok := b.fold.Session(id)
		b.mu.Unlock()
		seen = append(seen, lookedUp{id, s, ok})
		return s, ok
	})
	if err != nil {
		return m, 0, nil, err
	}
	b.mu.Lock()
	if !b.stillAsSeen(seen) {
		if m, err = adapt(payload, b.fold.Session); err != nil {
			b.mu.Unlock()
			return m, 0, nil, err
		}
	}
	evs := m.Batch(b.fold.Has)
	state.Stamp(evs, now)
	b.hookAgent = agent
	warns, err := b.applyLocked(evs...)
	b.hookAgent = ""
	b.mu.Unlock()
	if err != nil {
		return m, 0, nil, err
	}
	if len(evs) > 0 {
		b.changed()
	}
	return m, len(evs), warns, nil
}

// stillAsSeen reports whether every row read is as it was read; the caller
// holds b.mu.
func (b *Board) stillAsSeen(seen []lookedUp) bool {
	for _, l := range seen {
		s, ok := b.fold.Session(l.id)
		if ok != l.ok || !reflect.DeepEqual(s, l.s) {
			return false
		}
	}
	return true
}

// setTokens applies a context.tokens event to a row the board holds, when
// the count changed.
func (b *Board) setTokens(session string, tokens int64, now time.Time) {
	b.mu.Lock()
	s, ok := b.fold.Session(session)
	if !ok || s.ContextTokens == tokens {
		b.mu.Unlock()
		return
	}
	ev := hookjson.TokensEvent(session, tokens)
	ev.At = now.UnixMilli()
	_, err := b.applyLocked(ev)
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}

// applyLocked applies events to the fold and forgets what was kept beside
// the rows that went; the caller holds b.mu. The histories get each
// session.ended with the fold's verdict (verdictsLocked): the board and
// the history agree.
func (b *Board) applyLocked(evs ...state.Event) ([]string, error) {
	open := b.openSubagentsLocked(evs)
	kept := b.movingLocked(evs)
	warns, err := b.fold.Apply(evs...)
	if err == nil {
		evs = b.verdictsLocked(kept, open)
		for _, ev := range evs {
			if ev.Type == state.TypeSessionEnded || ev.Type == state.TypeSessionOpened {
				b.factsVersion.Add(1) // the sidecar keeps which sessions ended (live.go)
				break
			}
		}
		b.backInPaneLocked(evs)
		b.forgetWhysLocked(evs)
		b.recordLocked(evs)
		b.recordToLocked(evs)
		b.pruneLocked()
	}
	return warns, err
}

// movingLocked is evs without those the fold will ignore because their
// row's session has ended (a late hook: state's afterEnd), for the
// histories: what did not move the board is no news of the session. The
// caller holds b.mu, before the fold takes evs.
func (b *Board) movingLocked(evs []state.Event) []state.Event {
	ended := map[string]bool{}
	var out []state.Event // nil until one is left out
	for i, ev := range evs {
		was, seen := ended[ev.Session]
		if !seen {
			was = b.fold.Ended(ev.Session)
		}
		ignored := false
		switch ev.Type {
		case state.TypeSessionOpened:
			was = false
		case state.TypeSessionEnded:
			was = true
		case state.TypeSessionTitled, state.TypeContextTokens, state.TypeSessionFinished:
		default:
			ignored = was
		}
		ended[ev.Session] = was
		switch {
		case ignored && out == nil:
			out = append(make([]state.Event, 0, len(evs)), evs[:i]...)
		case !ignored && out != nil:
			out = append(out, ev)
		}
	}
	if out == nil {
		return evs
	}
	return out
}

// openSubagentsLocked are the subagent rows that a session.ended among
// evs settles with its session, as the fold holds them before it applies
// evs: those not ended yet. The caller holds b.mu.
func (b *Board) openSubagentsLocked(evs []state.Event) map[string][]string {
	var out map[string][]string
	for _, ev := range evs {
		if ev.Type != state.TypeSessionEnded || b.fold.Ended(ev.Session) {
			continue
		}
		for _, id := range b.fold.IDs() {
			if s, ok := b.fold.Session(id); ok && s.ParentSession == ev.Session && s.Origin == state.OriginSubagent && !b.fold.Ended(id) {
				if out == nil {
					out = map[string][]string{}
				}
				out[ev.Session] = append(out[ev.Session], id)
			}
		}
	}
	return out
}

// verdictsLocked is evs as the histories keep them: a session.ended that
// says no outcome says the fold's — error when the row settled error (a
// turn was still open, or the last one had failed), else completed — and
// is followed by one for each subagent row it settled (open), with that
// row's. The fold decides how a session ended; a history never guesses
// it from the event alone. The caller holds b.mu, after the fold took evs.
func (b *Board) verdictsLocked(evs []state.Event, open map[string][]string) []state.Event {
	var out []state.Event
	for i, ev := range evs {
		if ev.Type != state.TypeSessionEnded {
			if out != nil {
				out = append(out, ev)
			}
			continue
		}
		if out == nil {
			out = append(make([]state.Event, 0, len(evs)+len(open[ev.Session])), evs[:i]...)
		}
		ev.Outcome = b.verdictLocked(ev.Session, ev.Outcome)
		out = append(out, ev)
		for _, sub := range open[ev.Session] {
			if b.fold.Ended(sub) {
				out = append(out, state.Event{Type: state.TypeSessionEnded, Session: sub, At: ev.At, Outcome: b.verdictLocked(sub, "")})
			}
		}
	}
	if out == nil {
		return evs
	}
	return out
}

// verdictLocked is how a row the fold has just ended ended, in
// session.ended's words.
func (b *Board) verdictLocked(id, said string) string {
	if said != "" {
		return said
	}
	if s, ok := b.fold.Session(id); ok && s.Status == state.StatusError {
		return state.OutcomeError
	}
	return state.OutcomeCompleted
}

// restore refills the fold from a document (see state.Fold.Restore).
func (b *Board) restore(d state.Document) int {
	b.mu.Lock()
	n := b.fold.Restore(d)
	b.mu.Unlock()
	if n > 0 {
		b.changed()
	}
	return n
}

// session is a copy of one row of the fold.
func (b *Board) session(id string) (state.Session, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fold.Session(id)
}

// endInterrupted ends an interrupted turn — a pending approval resolved
// rejected, the tool out ended ok (an interrupt is not the tool's error),
// the turn completed — if the row is still in the status it had since.
func (b *Board) endInterrupted(id, status string, since int64, now time.Time) {
	b.settleTurn(id, status, since, state.OutcomeCompleted, now)
}

// settleTurn ends a row's turn with outcome as endInterrupted does, if the
// row is still in the status it had since.
func (b *Board) settleTurn(id, status string, since int64, outcome string, now time.Time) {
	b.mu.Lock()
	s, ok := b.fold.Session(id)
	if !ok || s.Status != status || s.Since != since {
		b.mu.Unlock()
		return
	}
	var evs []state.Event
	if s.Approval != nil {
		evs = append(evs, state.Event{Type: state.TypeApprovalResolved, Session: id, Outcome: state.OutcomeRejected})
	}
	if a := s.Activity; a != nil && a.Kind == state.ActivityTool {
		evs = append(evs, state.Event{Type: state.TypeToolEnded, Session: id, Tool: a.Label, Outcome: state.OutcomeOK})
	}
	evs = append(evs, state.Event{Type: state.TypeTurnEnded, Session: id, Outcome: outcome})
	state.Stamp(evs, now)
	_, err := b.applyLocked(evs...)
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}

// ids are the rows of the board's own fold.
func (b *Board) ids() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fold.IDs()
}

// cancelledNotFailed makes a turn that ended in error done, for the
// transcript says the human cancelled it, if the row is still in error
// since then.
func (b *Board) cancelledNotFailed(id string, since int64, now time.Time) {
	b.mu.Lock()
	s, ok := b.fold.Session(id)
	if !ok || s.Status != state.StatusError || s.Since != since {
		b.mu.Unlock()
		return
	}
	evs := []state.Event{{Type: state.TypeTurnEnded, Session: id, Outcome: state.OutcomeCompleted}}
	state.Stamp(evs, now)
	_, err := b.applyLocked(evs...) // the history's turn says done too
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}

// settleApproval applies what a transcript said of a call a row was asked
// about, when the row still asks about that tool: a refusal resolves it
// rejected and ends the call (and the turn, when Claude Code stopped to
// wait for the human); a call that ran resolves it allowed-once.
func (b *Board) settleApproval(row, tool string, refused, stopped bool, now time.Time) {
	b.mu.Lock()
	s, ok := b.fold.Session(row)
	if !ok || s.Approval == nil || s.Approval.ToolName != tool {
		b.mu.Unlock()
		return
	}
	var evs []state.Event
	if refused {
		evs = append(evs,
			state.Event{Type: state.TypeApprovalResolved, Session: row, Outcome: state.OutcomeRejected},
			state.Event{Type: state.TypeToolEnded, Session: row, Tool: tool, Outcome: state.OutcomeOK})
		if stopped {
			evs = append(evs, state.Event{Type: state.TypeTurnEnded, Session: row, Outcome: state.OutcomeCompleted})
		}
	} else {
		evs = append(evs, state.Event{Type: state.TypeApprovalResolved, Session: row, Outcome: state.OutcomeAllowedOnce})
	}
	state.Stamp(evs, now)
	_, err := b.applyLocked(evs...)
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}

// answered applies a board answer to the row: allowed-once (approvedAt) or
// rejected, when the row still asks about that tool.
func (b *Board) answered(row, tool string, allowed bool, now time.Time) {
	b.mu.Lock()
	s, ok := b.fold.Session(row)
	if !ok || s.Approval == nil || s.Approval.ToolName != tool {
		b.mu.Unlock()
		return
	}
	outcome := state.OutcomeRejected
	if allowed {
		outcome = state.OutcomeAllowedOnce
	}
	ev := state.Event{Type: state.TypeApprovalResolved, Session: row, Outcome: outcome, At: now.UnixMilli()}
	_, err := b.applyLocked(ev)
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}

// askAgain puts a row back to asking about a tool when it no longer asks
// (another card of it was answered) while a card of it still waits.
func (b *Board) askAgain(row, tool, reason string, now time.Time) {
	b.mu.Lock()
	s, ok := b.fold.Session(row)
	if !ok || s.Approval != nil || s.Status == state.StatusDone || s.Status == state.StatusError {
		b.mu.Unlock()
		return
	}
	ev := state.Event{Type: state.TypeApprovalRequested, Session: row, Tool: tool, Reason: reason, At: now.UnixMilli()}
	_, err := b.applyLocked(ev)
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
}
