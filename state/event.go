package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// EventVersion is the version of the event vocabulary this package speaks:
// v2 is v1 and session.ended. An event may say "v":2, "v":1 (then it may not
// use what v2 added) or leave v out; any other version is refused rather
// than half-understood.
const EventVersion = 2

// The event types of vocabulary v2. Each one is a fact about one session;
// the fold turns the facts into that session's row.
const (
	TypeSessionOpened     = "session.opened"     // creates the row (re-open: updates the given descriptive fields)
	TypeSessionTitled     = "session.titled"     // title
	TypeTurnStarted       = "turn.started"       // working, thinking "", steps/errorStreak 0, approval null
	TypeToolStarted       = "tool.started"       // activity tool, steps++
	TypeToolEnded         = "tool.ended"         // activity thinking (label kept), errorStreak
	TypeApprovalRequested = "approval.requested" // attention, approval
	TypeApprovalResolved  = "approval.resolved"  // approval null, attention → working, approvedAt on allowed-once
	TypeContextTokens     = "context.tokens"     // contextTokens
	TypeTurnEnded         = "turn.ended"         // done | error, approval null
	TypeSessionEnded      = "session.ended"      // v2: the agent's process ended: the row settles, nothing but a re-open revives it
	TypeSessionFinished   = "session.finished"   // the close-out: the row is removed
)

// Outcomes, per event type.
const (
	OutcomeOK          = "ok"           // tool.ended
	OutcomeError       = "error"        // tool.ended, turn.ended
	OutcomeAllowedOnce = "allowed-once" // approval.resolved: the only one that sets approvedAt
	OutcomeRejected    = "rejected"     // approval.resolved
	OutcomeCancelled   = "cancelled"    // approval.resolved
	OutcomeCompleted   = "completed"    // turn.ended, session.ended
)

// Limits on what an event and a batch of events may hold. They bound the
// memory one request can cost, and keep numbers inside what a JavaScript
// reader of state.json represents exactly.
const (
	MaxSessionID = 200       // bytes of a session (or parent) id
	MaxEventLine = 64 << 10  // bytes of one NDJSON line (or of a single-object body)
	MaxEvents    = 10_000    // events in one body
	MaxInteger   = 1<<53 - 1 // the largest integer a JSON reader in JavaScript holds exactly
	// MaxAt is the latest time anything may carry, in ms since the epoch:
	// 9999-12-31T23:59:59.999Z. A later one has a five-digit year, which
	// RFC 3339 cannot write nor a browser's Date read back from it (the
	// board showed a blank time), and no clock gives it: an event or a
	// report carrying one is refused at the door (400), and a document
	// mirrored from elsewhere has it clamped (Sanitize).
	MaxAt = 253402300799999
)

// Event is one session event of vocabulary v2. Fields a type does not take
// must be left out (Validate refuses them, so a misplaced field is named
// rather than silently ignored); "" and nil mean "not given". At is at most
// MaxAt, Tokens at most MaxInteger.
type Event struct {
	V       int    `json:"v,omitempty"`
	Type    string `json:"type" validate:"required"`
	Session string `json:"session" validate:"required,noctl"`
	// At is ms since the epoch. 0 means "stamp on receipt": the receiver
	// stamps it (see Stamp) before Fold.Apply, because the fold reads no
	// clock.
	At      int64  `json:"at,omitempty" validate:"gte=0,lte=253402300799999"`
	Title   string `json:"title,omitempty" validate:"max=1000,noctl"`
	Project string `json:"project,omitempty" validate:"max=1000,noctl"`
	Cwd     string `json:"cwd,omitempty" validate:"max=4096,noctl"`
	Origin  string `json:"origin,omitempty" validate:"omitempty,oneof=subagent"`
	Parent  string `json:"parent,omitempty" validate:"noctl"`
	Tool    string `json:"tool,omitempty" validate:"max=200,noctl"`
	Reason  string `json:"reason,omitempty" validate:"max=4096,noctl"`
	Outcome string `json:"outcome,omitempty"`
	Tokens  *int64 `json:"tokens,omitempty" validate:"omitempty,gte=0,lte=9007199254740991"`
}

// field is a bit per optional Event field, so each type's rule can say
// which it takes and which it needs.
type field uint16

const (
	fTitle field = 1 << iota
	fProject
	fCwd
	fOrigin
	fParent
	fTool
	fReason
	fOutcome
	fTokens
)

var fieldNames = [...]string{"title", "project", "cwd", "origin", "parent", "tool", "reason", "outcome", "tokens"}

func (fs field) names() string {
	var out []string
	for i, n := range fieldNames {
		if fs&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

type typeRule struct {
	takes, needs field
	outcomes     []string
	since        int // the vocabulary version that added the type (0: v1)
}

// vocabulary is the v1 table; docs/events.md's table is this, in prose.
var vocabulary = map[string]typeRule{
	TypeSessionOpened:     {takes: fTitle | fProject | fCwd | fOrigin | fParent},
	TypeSessionTitled:     {takes: fTitle, needs: fTitle},
	TypeTurnStarted:       {},
	TypeToolStarted:       {takes: fTool, needs: fTool},
	TypeToolEnded:         {takes: fTool | fOutcome, needs: fTool | fOutcome, outcomes: []string{OutcomeOK, OutcomeError}},
	TypeApprovalRequested: {takes: fTool | fReason, needs: fTool},
	TypeApprovalResolved:  {takes: fOutcome, needs: fOutcome, outcomes: []string{OutcomeAllowedOnce, OutcomeRejected, OutcomeCancelled}},
	TypeContextTokens:     {takes: fTokens, needs: fTokens},
	TypeTurnEnded:         {takes: fOutcome, needs: fOutcome, outcomes: []string{OutcomeCompleted, OutcomeError}},
	TypeSessionEnded:      {takes: fOutcome, outcomes: []string{OutcomeCompleted, OutcomeError}, since: 2},
	TypeSessionFinished:   {},
}

func (e Event) fields() field {
	var fs field
	set := func(bit field, on bool) {
		if on {
			fs |= bit
		}
	}
	set(fTitle, e.Title != "")
	set(fProject, e.Project != "")
	set(fCwd, e.Cwd != "")
	set(fOrigin, e.Origin != "")
	set(fParent, e.Parent != "")
	set(fTool, e.Tool != "")
	set(fReason, e.Reason != "")
	set(fOutcome, e.Outcome != "")
	set(fTokens, e.Tokens != nil)
	return fs
}

// Validate checks one event against vocabulary v2: the version, the type,
// each field's shape (validator tags) and the per-type rules (which fields
// the type needs and takes, its outcomes). Errors wrap ErrVersion,
// ErrUnknownType or ErrInvalidEvent.
func (e Event) Validate() error {
	if e.V < 0 || e.V > EventVersion {
		return fmt.Errorf("%w: v %d (this host speaks v1 and v%d)", ErrVersion, e.V, EventVersion)
	}
	if e.Type == "" {
		return fmt.Errorf("%w: type is required", ErrInvalidEvent)
	}
	rule, ok := vocabulary[e.Type]
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownType, short(e.Type))
	}
	if rule.since > 0 && e.V != 0 && e.V < rule.since {
		return fmt.Errorf("%w: %s is vocabulary v%d, and the event says v%d", ErrVersion, e.Type, rule.since, e.V)
	}
	if err := validate().Struct(e); err != nil {
		var ves validator.ValidationErrors
		if !errors.As(err, &ves) {
			return fmt.Errorf("%w: %v", ErrInvalidEvent, err)
		}
		msgs := make([]string, 0, len(ves))
		for _, fe := range ves {
			msgs = append(msgs, describe(fe))
		}
		return fmt.Errorf("%w: %s", ErrInvalidEvent, strings.Join(msgs, "; "))
	}
	// Ids are compared and stored as bytes, so their limit is in bytes
	// (validator's max counts runes).
	if len(e.Session) > MaxSessionID {
		return fmt.Errorf("%w: session is %d bytes (max %d)", ErrInvalidEvent, len(e.Session), MaxSessionID)
	}
	if len(e.Parent) > MaxSessionID {
		return fmt.Errorf("%w: parent is %d bytes (max %d)", ErrInvalidEvent, len(e.Parent), MaxSessionID)
	}
	if !ValidSessionID(e.Session) || (e.Parent != "" && !ValidSessionID(e.Parent)) {
		return fmt.Errorf("%w: a session id must be text without control, bidi or zero-width characters", ErrInvalidEvent)
	}
	have := e.fields()
	if extra := have &^ rule.takes; extra != 0 {
		return fmt.Errorf("%w: %s does not take %s", ErrInvalidEvent, e.Type, extra.names())
	}
	if missing := rule.needs &^ have; missing != 0 {
		return fmt.Errorf("%w: %s needs %s", ErrInvalidEvent, e.Type, missing.names())
	}
	if e.Outcome != "" && rule.outcomes != nil && !slices.Contains(rule.outcomes, e.Outcome) {
		return fmt.Errorf("%w: %s outcome %s is not one of %s", ErrInvalidEvent, e.Type, short(e.Outcome), strings.Join(rule.outcomes, "|"))
	}
	if e.Parent != "" && e.Parent == e.Session {
		return fmt.Errorf("%w: session %s names itself as its parent", ErrInvalidEvent, short(e.Session))
	}
	return nil
}

// validate is built once: a validator caches struct metadata and is safe
// for concurrent use.
var validate = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	// Name fields as the JSON does, so messages speak the wire's language.
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			return f.Name
		}
		return name
	})
	// Every string an event carries is shown on a one-line row: a control
	// character there is a framing bug upstream at best, and at worst an
	// attempt to end a line of the board's event stream (a lone CR) or to
	// repaint a terminal that tails the log. A tab is text.
	if err := v.RegisterValidation("noctl", func(fl validator.FieldLevel) bool {
		return !HasControl(fl.Field().String())
	}); err != nil {
		panic(err) // a programming error, caught by every test
	}
	return v
})

// HasControl reports whether s holds a control character other than tab:
// C0 (CR and LF among them), DEL or C1. It is the vocabulary's one rule for
// text, applied to every string field of an event.
func HasControl(s string) bool {
	return strings.IndexFunc(s, isControl) >= 0
}

func isControl(r rune) bool { return r != '\t' && unicode.IsControl(r) }

// ValidSessionID reports whether id can name a row: 1 to MaxSessionID bytes
// of valid UTF-8 text holding nothing internal/textrule hides (control,
// bidi, zero-width: an id is compared byte for byte, so it cannot be
// cleaned, only refused). Events, the ✕ and Open requests, a restored
// state.json and a close-out mark all hold ids to it.
func ValidSessionID(id string) bool {
	return id != "" && len(id) <= MaxSessionID && !textrule.Has(id)
}

// DerivedID reports whether id is in the namespace of the ids notch-web
// derives itself: a subagent's "<session>/<agent>" (any "/"), a hashed
// "h:<hex>" or "a:<hex>" (adapters/hookjson). A raw id from outside — a
// hook's session_id, a POSTed event's session or parent — is never one
// (hookjson hashes it, the events route refuses it), so no raw id can name
// and drive a row that is not its own.
func DerivedID(id string) bool {
	return strings.Contains(id, "/") || strings.HasPrefix(id, "h:") || strings.HasPrefix(id, "a:")
}

// CheckRawIDs refuses a batch of events from outside (the events route)
// that names a session or parent in DerivedID's namespace.
func CheckRawIDs(evs []Event) error {
	for i, ev := range evs {
		for _, id := range []string{ev.Session, ev.Parent} {
			if id != "" && DerivedID(id) {
				return &LineError{Line: i + 1, Err: fmt.Errorf(`%w: id %s is in the namespace notch-web keeps for the ids it derives (with "/", or starting "h:" or "a:")`, ErrInvalidEvent, short(id))}
			}
		}
	}
	return nil
}

func describe(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return fe.Field() + " is required"
	case "max":
		return fmt.Sprintf("%s is longer than %s characters", fe.Field(), fe.Param())
	case "gte":
		return fmt.Sprintf("%s must be ≥ %s", fe.Field(), fe.Param())
	case "lte":
		if fe.Field() == "at" {
			return fmt.Sprintf("at must be ≤ %s (9999-12-31T23:59:59.999Z): a time with a five-digit year is no clock's", fe.Param())
		}
		return fmt.Sprintf("%s must be ≤ %s", fe.Field(), fe.Param())
	case "oneof":
		return fmt.Sprintf("%s must be one of %s", fe.Field(), strings.ReplaceAll(fe.Param(), " ", "|"))
	case "noctl":
		return fe.Field() + " must not contain control characters"
	}
	return fmt.Sprintf("%s fails %s", fe.Field(), fe.Tag())
}

// short quotes an outside string for an error message, cut so that a
// hostile body cannot make the log line as long as itself.
func short(s string) string {
	const limit = 64
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// LineError is DecodeEvents' refusal: the 1-based line of the first bad
// event, and why.
type LineError struct {
	Line int
	Err  error
}

// Error says "line N: why".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap lets errors.Is see the sentinel behind the line.
func (e *LineError) Unwrap() error { return e.Err }

var bom = []byte("\xef\xbb\xbf")

// DecodeEvents decodes an events body: one JSON object (which may span
// lines), or NDJSON, one object per line (blank lines skipped, CRLF
// accepted). Every event is validated. It is all or nothing: on the first
// bad event it returns a *LineError naming its line and no events, so a
// harness can fix its body and send it again whole. Unknown fields are
// refused so that a typo is named instead of silently dropped. A body with
// no event returns ErrNoEvents.
func DecodeEvents(data []byte) ([]Event, error) {
	data = bytes.TrimPrefix(data, bom)
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, ErrNoEvents
	}
	// A single pretty-printed object is a valid JSON value that is not
	// one line; NDJSON of two or more objects never is one value.
	if json.Valid(trimmed) {
		line := 1 + bytes.Count(data[:bytes.Index(data, trimmed)], []byte("\n"))
		if len(trimmed) > MaxEventLine {
			return nil, &LineError{line, fmt.Errorf("%w: event is %d bytes (max %d)", ErrTooLarge, len(trimmed), MaxEventLine)}
		}
		ev, err := decodeEvent(trimmed)
		if err != nil {
			return nil, &LineError{line, err}
		}
		return []Event{ev}, nil
	}
	var evs []Event
	for n, rest := 1, data; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) > MaxEventLine {
			return nil, &LineError{n, fmt.Errorf("%w: line is %d bytes (max %d)", ErrTooLarge, len(line), MaxEventLine)}
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if len(evs) == MaxEvents {
			return nil, &LineError{n, fmt.Errorf("%w: more than %d events", ErrTooLarge, MaxEvents)}
		}
		ev, err := decodeEvent(line)
		if err != nil {
			return nil, &LineError{n, err}
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func decodeEvent(b []byte) (Event, error) {
	if b[0] != '{' {
		return Event{}, fmt.Errorf("%w: want a JSON object, got %s", ErrInvalidEvent, jsonKind(b[0]))
	}
	var ev Event
	if err := jsonx.DecodeOne(b, &ev, jsonx.Options{Strict: true}); errors.Is(err, jsonx.ErrTrailing) {
		return Event{}, fmt.Errorf("%w: more than one JSON value on the line", ErrInvalidEvent)
	} else if err != nil {
		return Event{}, fmt.Errorf("%w: %s", ErrInvalidEvent, jsonx.Reason(err))
	}
	if err := ev.Validate(); err != nil {
		return Event{}, err
	}
	return ev, nil
}

func jsonKind(c byte) string {
	switch {
	case c == '[':
		return "an array (send one object per line)"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return "something that is not JSON"
}

// Stamp sets At on every event that has none, to now: the "stamp on
// receipt" half of the vocabulary, done by the receiver so that the fold
// itself never reads a clock.
func Stamp(evs []Event, now time.Time) {
	ms := now.UnixMilli()
	for i := range evs {
		if evs[i].At == 0 {
			evs[i].At = ms
		}
	}
}
