// Package state holds the agents notch's schema-4 document and everything
// that produces or consumes it: the typed schema (types.go), the session
// event vocabulary and its validation (event.go), the pure session-event
// fold (fold.go, snapshot.go), the state.json codec (codec.go) and writer
// (writer.go), follow mode for a state.json another host writes
// (follow.go) with the sanitising of what it reads (sanitize.go), the
// close-out marks in manual.json (marks.go), the demo scenario (demo.go)
// and the sentinel errors (errors.go). Atomic writes, bounded reads, locks
// and watches are internal/fsx's.
//
// Nothing here knows HTTP. The fold never reads a clock and does no I/O, so
// the same events always produce the same document; the clock enters only
// through SnapshotInput.Now and the Writer. The rules cited as "rule N" are
// those of the contract, docs/contract.md.
package state

import (
	"time"

	"github.com/notch-web/notch-web/settings"
)

// Schema is the state.json schema this package writes. Decode also reads
// schema 3, whose documents simply lack the schema-4 fields.
const Schema = 4

// Plugin is the value of the document's "plugin" field.
const Plugin = "dsh-agents-notch/host"

// MaxSessions is how many rows a document carries at most (the contract's
// "sessions[] carries them all, up to 40").
const MaxSessions = 40

// StaleAfter is docs/contract.md rule 3: a document whose wallMs is older than this is not
// current, and its summary must be shown as unknown.
const StaleAfter = 4 * time.Second

// Heartbeat is how often the host rewrites state.json with a fresh wallMs
// (the contract's 340 ms; StaleAfter is about 12 missed writes).
const Heartbeat = 340 * time.Millisecond

// DefaultHotAt is the context bar's amber threshold when the row config
// does not set one (settings owns it, with its range: settings.ValidHotAt).
const DefaultHotAt = settings.DefaultHotAt

// DefaultRetireAfter is how long a settled row stays under retire "timer"
// when SnapshotInput.RetireAfter is zero.
const DefaultRetireAfter = 15 * time.Minute

// Values of Document.Retire: how a settled (done/error) row goes away.
const (
	// RetireRoute: only the harness's close-out (session.finished, or a
	// mark) removes a row.
	RetireRoute = "route"
	// RetireTimer: the close-out verdict is unavailable, so a settled row
	// leaves after SnapshotInput.RetireAfter (docs/contract.md rule 2's one exception).
	RetireTimer = "timer"
)

// Values of Session.Status and Summary.Status (a summary with no rows has
// status "": nothing is invented).
const (
	StatusWorking   = "working"
	StatusAttention = "attention"
	StatusDone      = "done"
	StatusError     = "error"
)

// Values of Activity.Kind.
const (
	ActivityTool     = "tool"
	ActivityThinking = "thinking"
)

// OriginSubagent is Session.Origin for a session another session spawned.
const OriginSubagent = "subagent"

// identities are the session colours, handed out round-robin in open order
// (a subagent wears its parent's).
var identities = [...]string{"teal", "violet", "coral", "pink", "lime"}

// Document is state.json, schema 4, field for field as the frozen contract
// names them. Pointer fields are the contract's nulls: nil means "not
// known", never a guessed default (docs/contract.md rule 5).
type Document struct {
	Schema      int               `json:"schema"`
	Plugin      string            `json:"plugin"`
	WallMs      int64             `json:"wallMs"` // host clock at write: the heartbeat (docs/contract.md rule 3)
	HostPid     int               `json:"hostPid"`
	Retire      string            `json:"retire"`      // RetireRoute | RetireTimer
	FinishedURL *string           `json:"finishedUrl"` // null: the ✕ falls back to manual.json
	OpenURL     *string           `json:"openUrl"`     // null: Open only raises the app
	Context     Context           `json:"context"`
	Settings    settings.Settings `json:"settings"`
	Summary     Summary           `json:"summary"`
	Sessions    []Session         `json:"sessions"` // never null on the wire: [] when empty
}

// Context is the route's context window. Budget is nil whenever the host
// cannot establish the real window (docs/contract.md rule 1): the window then shows a bare
// token count and no percentage.
type Context struct {
	Budget *int64  `json:"budget"`
	HotAt  float64 `json:"hotAt"`
}

// Summary is the tab's counts, always computed from the rows the document
// carries so that it can never disagree with them (docs/contract.md rule 6).
type Summary struct {
	Status    string `json:"status"` // working > attention > error > done; "" with no rows
	Working   int    `json:"working"`
	Attention int    `json:"attention"`
	Done      int    `json:"done"`
	Error     int    `json:"error"`
	Total     int    `json:"total"`
}

// Session is one row. "", 0 and null mean "not known yet" (docs/contract.md rule 5).
type Session struct {
	ID            string    `json:"id"`
	Title         string    `json:"title"`
	Project       string    `json:"project"`
	Cwd           string    `json:"cwd"`
	Status        string    `json:"status"`
	Since         int64     `json:"since"` // ms the row entered Status
	Activity      *Activity `json:"activity"`
	Approval      *Approval `json:"approval"`
	Steps         int       `json:"steps"`
	Identity      string    `json:"identity"`
	Origin        string    `json:"origin"`
	ParentSession string    `json:"parentSession"`
	ContextTokens int64     `json:"contextTokens"`
	ErrorStreak   int       `json:"errorStreak"`
	ApprovedAt    *int64    `json:"approvedAt"`
}

// Activity is what the session is doing: a tool call that is out, or a
// model turn ("thinking") whose label is the last tool's, or "" when the
// turn has just opened.
type Activity struct {
	Kind  string `json:"kind"`
	Label string `json:"label"`
}

// Approval is the question a session is blocked on.
type Approval struct {
	ToolName string `json:"toolName"`
	Reason   string `json:"reason"`
}

// clone returns a deep copy, so that a document handed out can never alias
// the fold's rows (or another document's).
func (s Session) clone() Session {
	if s.Activity != nil {
		a := *s.Activity
		s.Activity = &a
	}
	if s.Approval != nil {
		a := *s.Approval
		s.Approval = &a
	}
	if s.ApprovedAt != nil {
		v := *s.ApprovedAt
		s.ApprovedAt = &v
	}
	return s
}

func cloneString(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func cloneInt64(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
