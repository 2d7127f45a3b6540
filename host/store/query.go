package store

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Query is a search of the history, as the History page's URL says it:
// q (words, each matched in the title, project, machine, agent or cwd),
// day (YYYY-MM-DD, local), project, machine, agent, outcome (done, error,
// ended, open), and a page (offset).
type Query struct {
	Words   []string
	Day     time.Time // zero: any day
	Project string
	Machine string // "" any; Local for this machine's own
	Agent   string
	Outcome string
	Offset  int
	Limit   int
}

// Local is the machine name of this host's own sessions in the store.
const Local = "-"

// Bounds on a query.
const (
	maxQueryText = 200
	maxWords     = 8
	DefaultLimit = 50
	maxOffset    = 100000
)

// Outcomes a query may ask for.
var Outcomes = []string{"done", "error", "ended", "open"}

// ErrQuery: a query parameter that does not parse (400, with the reason).
var ErrQuery = errors.New("not a history query")

// ParseQuery reads a query from URL parameters; unknown parameters are the
// caller's business (the page has session= and fragment= too).
func ParseQuery(v url.Values, loc *time.Location) (Query, error) {
	q := Query{Limit: DefaultLimit}
	for _, k := range []string{"q", "day", "project", "machine", "agent", "outcome", "offset"} {
		if len(v[k]) > 1 {
			return q, fmt.Errorf("%w: %s is given %d times", ErrQuery, k, len(v[k]))
		}
		s := v.Get(k)
		if len(s) > maxQueryText || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return q, fmt.Errorf("%w: %s must be at most %d bytes of text", ErrQuery, k, maxQueryText)
		}
	}
	for _, w := range strings.Fields(v.Get("q")) {
		if len(q.Words) == maxWords {
			return q, fmt.Errorf("%w: at most %d words", ErrQuery, maxWords)
		}
		q.Words = append(q.Words, w)
	}
	if d := v.Get("day"); d != "" {
		t, err := time.ParseInLocation("2006-01-02", d, loc)
		if err != nil || t.Year() < 2000 || t.Year() > 9999 {
			return q, fmt.Errorf("%w: day must be YYYY-MM-DD", ErrQuery)
		}
		q.Day = t
	}
	q.Project, q.Machine, q.Agent = v.Get("project"), v.Get("machine"), v.Get("agent")
	if o := v.Get("outcome"); o != "" {
		ok := false
		for _, x := range Outcomes {
			ok = ok || o == x
		}
		if !ok {
			return q, fmt.Errorf("%w: outcome must be one of %s", ErrQuery, strings.Join(Outcomes, ", "))
		}
		q.Outcome = o
	}
	if o := v.Get("offset"); o != "" {
		n := 0
		for _, c := range o {
			if c < '0' || c > '9' || n > maxOffset {
				return q, fmt.Errorf("%w: offset must be a number up to %d", ErrQuery, maxOffset)
			}
			n = n*10 + int(c-'0')
		}
		if n > maxOffset {
			return q, fmt.Errorf("%w: offset must be a number up to %d", ErrQuery, maxOffset)
		}
		q.Offset = n
	}
	return q, nil
}

// Values is q as URL parameters (links keep the search).
func (q Query) Values() url.Values {
	v := url.Values{}
	if len(q.Words) > 0 {
		v.Set("q", strings.Join(q.Words, " "))
	}
	if !q.Day.IsZero() {
		v.Set("day", q.Day.Format("2006-01-02"))
	}
	for k, s := range map[string]string{"project": q.Project, "machine": q.Machine, "agent": q.Agent, "outcome": q.Outcome} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Offset > 0 {
		v.Set("offset", fmt.Sprint(q.Offset))
	}
	return v
}

// Session is one session as the History page lists it.
type Session struct {
	Machine, ID    string // Machine is Local for this host's own
	Agent, Project string
	Cwd, Title     string
	Parent         string // a subagent's parent session, "" for none
	StartedMs      int64
	EndedMs        int64  // 0: not ended
	Outcome        string // "done", "error", "" while open
	Turns          int
	WorkingMs      int64 // time in working
	WaitingMs      int64 // time waiting on the human (needs you)
	ContextTokens  int64 // the largest context at a turn's end
	CostUSD        *float64
}

// Turn is one turn of a session.
type Turn struct {
	Seq           int
	StartedMs     int64
	EndedMs       int64  // 0: open
	Outcome       string // "done", "error", "" while open
	Tools         map[string]int
	Errors        int
	ContextTokens int64
	CostUSD       *float64 // the session's cost at the turn's end, where the agent reports one
	Why           string   // why it stopped (WhyText), "" when the host was told nothing
}

// Answer is a card's end: asked, answered how and by whom, and the wait.
// Device is where a board or push answer was given (host.RecordedAnswer's),
// "" for none known. OperationID is the answering request's operation id
// (a board click's; "" for none).
type Answer struct {
	Session, Call, Tool string
	AskedMs, AnsweredMs int64
	By, Device, Outcome string
	OperationID         string
}

// Span is a band of a session's day: the status it was in, from, to (0:
// still).
type Span struct {
	Machine, Session string
	Title            string
	Status           string // working, attention, done, error
	FromMs, ToMs     int64
}

// DayBar is one day of the last-30-days bars.
type DayBar struct {
	Day       time.Time // local midnight
	Sessions  int
	Turns     int
	WorkingMs int64
	WaitingMs int64
	Tokens    int64    // the largest context of each session that day, summed
	CostUSD   *float64 // the cost reported that day, nil when no agent reported one
}

// Headline is the page's top numbers for a day.
type Headline struct {
	WaitingMs      int64 // time sessions waited on the human
	Waits          int   // how many waits
	MedianWaitMs   int64
	LongestWaitMs  int64
	LongestMachine string
	LongestSession string
	LongestTitle   string
}

// Entry is one event of a session, as the row's ▸ panel shows it.
type Entry struct {
	AtMs    int64
	Type    string // the event's type (state's vocabulary)
	Tool    string
	Outcome string
}
