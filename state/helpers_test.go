package state

import (
	"testing"
	"time"

	"github.com/notch-web/notch-web/settings"
)

// t0 is the contract's example wallMs; every test clock starts there.
const t0 = int64(1_790_000_000_000)

func ptr[T any](v T) *T { return &v }

// at is t0 plus ms milliseconds.
func at(ms int64) int64 { return t0 + ms }

// mustApply applies events one batch at a time and fails the test on any
// error (warnings are returned for the tests that look at them).
func mustApply(t testing.TB, f *Fold, evs ...Event) []string {
	t.Helper()
	w, err := f.Apply(evs...)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return w
}

// input is a SnapshotInput at t0+ms with default settings and nothing else
// known: the honest baseline every test varies.
func input(ms int64) SnapshotInput {
	return SnapshotInput{Now: time.UnixMilli(at(ms)), HostPid: 4242, Settings: settings.Defaults}
}

func opened(ms int64, id string) Event {
	return Event{Type: TypeSessionOpened, Session: id, At: at(ms)}
}

func openedIn(ms int64, id, cwd string) Event {
	return Event{Type: TypeSessionOpened, Session: id, At: at(ms), Cwd: cwd}
}

func subagent(ms int64, id, parent string) Event {
	return Event{Type: TypeSessionOpened, Session: id, At: at(ms), Origin: OriginSubagent, Parent: parent}
}

func bare(ms int64, typ, id string) Event { return Event{Type: typ, Session: id, At: at(ms)} }

func toolStart(ms int64, id, tool string) Event {
	return Event{Type: TypeToolStarted, Session: id, At: at(ms), Tool: tool}
}

func toolEnd(ms int64, id, tool, outcome string) Event {
	return Event{Type: TypeToolEnded, Session: id, At: at(ms), Tool: tool, Outcome: outcome}
}

func askFor(ms int64, id, tool, reason string) Event {
	return Event{Type: TypeApprovalRequested, Session: id, At: at(ms), Tool: tool, Reason: reason}
}

func resolve(ms int64, id, outcome string) Event {
	return Event{Type: TypeApprovalResolved, Session: id, At: at(ms), Outcome: outcome}
}

func turnEnd(ms int64, id, outcome string) Event {
	return Event{Type: TypeTurnEnded, Session: id, At: at(ms), Outcome: outcome}
}

func tokens(ms int64, id string, n int64) Event {
	return Event{Type: TypeContextTokens, Session: id, At: at(ms), Tokens: &n}
}

func titled(ms int64, id, title string) Event {
	return Event{Type: TypeSessionTitled, Session: id, At: at(ms), Title: title}
}
