package push

import (
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/adapters/hookjson"
	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/state"
)

// TestFailedPushSaysWhy: a failed row's message says why it stopped —
// the kind, a usage limit's reset in the host's clock, the agent's words
// as one bounded line — and without a why says the turn ended in error.
func TestFailedPushSaysWhy(t *testing.T) {
	resets := time.Date(2026, 12, 7, 14, 5, 0, 0, time.Local)
	doc := state.Document{Sessions: []state.Session{
		{ID: "a", Status: state.StatusError, Project: "argon"},
		{ID: "b", Status: state.StatusError, Project: "neon"},
		{ID: "c", Status: state.StatusError, Project: "xenon"},
	}}
	cards := host.CardSet{Whys: map[string]hookjson.Why{
		"a": {Kind: hookjson.WhyLimit, Words: "API Error: 429", ResetsMs: resets.UnixMilli()},
		"b": {Kind: hookjson.WhyContext, Words: "Prompt is too long\u202e" + strings.Repeat("x", 600)},
	}}
	rows := rowsOf(doc, cards, "", nil)
	if want := "usage limit · resumes " + resets.Format("15:04 MST") + ": API Error: 429"; rows[0].Body != want {
		t.Errorf("limit: %q, want %q", rows[0].Body, want)
	}
	if b := rows[1].Body; !strings.HasPrefix(b, "context window exceeded: Prompt is too long") || len(b) > maxBody || strings.ContainsRune(b, '\u202e') {
		t.Errorf("context: %q", b)
	}
	if rows[2].Body != "the turn ended in an error" {
		t.Errorf("no why: %q", rows[2].Body)
	}
}
