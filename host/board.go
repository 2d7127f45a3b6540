package host

import (
	"sync"
	"sync/atomic"
	"time"

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
	cfg BoardConfig
	// follow is true in follow mode: the document comes from another
	// host's state.json and events are refused.
	follow   bool
	settings *settings.Service
	changes  notify.Broadcast
	version  atomic.Uint64           // bumped on every change of the fold or the followed document
	cards    atomic.Pointer[CardSet] // the approvals' cards (approvals.go)

	mu       sync.Mutex
	fold     *state.Fold
	followed *state.Document
	remote   Remote // other machines' rows (host/mesh); nil on a board of one

	usage usageStore // what Claude Code's statuslines tell (usage.go)
}

// NewBoard returns an empty board; follow makes it a follower's.
func NewBoard(cfg BoardConfig, follow bool, s *settings.Service) *Board {
	return &Board{cfg: cfg, follow: follow, settings: s, fold: state.NewFold()}
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
	warns, err := b.fold.Apply(evs...)
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
	b.mu.Unlock()
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
		return true
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
