package host

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/state"
)

// hostile are strings that must never reach a row as they are: bidi
// overrides and marks (U+061C among them), zero-width characters, a BOM,
// controls.
var hostile = []string{
	"A\u202egnp.exe", "arabic\u061cmark", "zero\u200bwidth", "join\u200dme", "bom\ufeff", "iso\u2066late\u2069",
	"soft\u00adhyphen", "line\u2028sep",
}

// rowStrings are every string of a row that is drawn.
func rowStrings(s state.Session) []string {
	out := []string{s.ID, s.Title, s.Project, s.Cwd, s.ParentSession}
	if s.Activity != nil {
		out = append(out, s.Activity.Label)
	}
	if s.Approval != nil {
		out = append(out, s.Approval.ToolName, s.Approval.Reason)
	}
	return out
}

func checkRows(t *testing.T, route string, doc state.Document) {
	t.Helper()
	if len(doc.Sessions) == 0 {
		t.Fatalf("%s: no rows", route)
	}
	for _, s := range doc.Sessions {
		for _, str := range rowStrings(s) {
			if textrule.Has(str) {
				t.Errorf("%s: row %q holds %q", route, s.ID, str)
			}
		}
	}
}

// TestOneTextRuleEveryRoute: whichever route a string comes by — an event
// POSTed, an agent's hook, another host's followed state.json, this host's
// own restored one — the row holds none of what internal/textrule hides
// (issue 19: U+061C passed the hook cleaner; the events route let bidi and
// zero-width characters through to state.json and the page).
func TestOneTextRuleEveryRoute(t *testing.T) {
	for _, bad := range hostile {
		// Events.
		h := newHost(t, t.TempDir())
		evs := []state.Event{
			{Type: state.TypeSessionOpened, Session: "s1", Title: bad, Project: bad, Cwd: "/src/" + bad},
			{Type: state.TypeTurnStarted, Session: "s1"},
			{Type: state.TypeToolStarted, Session: "s1", Tool: bad},
			{Type: state.TypeApprovalRequested, Session: "s1", Tool: bad, Reason: bad},
		}
		if _, err := h.Board().Ingest(evs, time.Now()); err != nil && !strings.Contains(err.Error(), "line") {
			// Refusing is allowed too; a row with the string is not.
			t.Logf("events refused: %v", err)
		} else {
			doc, _ := h.Board().Snapshot(time.Now())
			checkRows(t, "events "+bad, doc)
		}

		// Hooks (Claude Code's title, cwd, tool, reason).
		h = newHost(t, t.TempDir())
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		for _, body := range []string{
			`{"session_id":"s2","cwd":` + q("/src/"+bad) + `,"hook_event_name":"SessionStart","session_title":` + q(bad) + `}`,
			`{"session_id":"s2","cwd":"/src/a","hook_event_name":"PreToolUse","tool_name":` + q(bad) + `,"tool_input":{}}`,
			`{"session_id":"s2","cwd":"/src/a","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":` + q(bad) + `}}`,
		} {
			if _, err := h.Hook("claude-code", []byte(body), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		doc, _ := h.Board().Snapshot(time.Now())
		checkRows(t, "hooks "+bad, doc)

		// A followed (or restored) document.
		d := state.Document{Schema: state.Schema, Plugin: state.Plugin, Sessions: []state.Session{{
			ID: "s3", Title: bad, Project: bad, Cwd: bad, Status: state.StatusAttention, Identity: "teal",
			Activity: &state.Activity{Kind: state.ActivityTool, Label: bad}, Approval: &state.Approval{ToolName: bad, Reason: bad},
		}}}
		checkRows(t, "followed "+bad, state.Sanitize(d))
		f := state.NewFold()
		f.Restore(d)
		checkRows(t, "restored "+bad, f.Snapshot(state.SnapshotInput{Now: time.Now()}))
	}
}

// TestRawIDsCannotDriveDerivedRows: ids notch-web derives — a subagent's
// "<session>/<agent>", a hashed "h:<hex>" — live in a namespace no raw id
// can enter: a hook or an event naming such an id never drives that row
// (issue 19).
func TestRawIDsCannotDriveDerivedRows(t *testing.T) {
	h := newHost(t, t.TempDir())
	hook := func(body string) {
		t.Helper()
		if _, err := h.Hook("claude-code", []byte(body), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("L", 300) // hashed: too long to stand as an id
	hook(`{"session_id":"S","cwd":"/src/a","hook_event_name":"SessionStart"}`)
	hook(`{"session_id":"S","cwd":"/src/a","hook_event_name":"SubagentStart","agent_id":"A","agent_type":"Explore"}`)
	hook(`{"session_id":"` + long + `","cwd":"/src/b","hook_event_name":"SessionStart"}`)
	before := rows(t, h)
	var hashed string
	for id := range before {
		if strings.HasPrefix(id, "h:") {
			hashed = id
		}
	}
	if _, ok := before["S/A"]; !ok || hashed == "" {
		t.Fatalf("setup: rows %v", before)
	}
	// Raw ids that look derived, by hook.
	for _, raw := range []string{"S/A", hashed} {
		hook(`{"session_id":"` + raw + `","cwd":"/src/x","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	}
	// And by event.
	for _, raw := range []string{"S/A", hashed} {
		h.Board().Ingest([]state.Event{{Type: state.TypeSessionOpened, Session: raw}, {Type: state.TypeTurnStarted, Session: raw},
			{Type: state.TypeApprovalRequested, Session: raw, Tool: "Bash", Reason: "pwned"}}, time.Now())
	}
	after := rows(t, h)
	for _, id := range []string{"S/A", hashed} {
		if after[id].Approval != nil || after[id].Status != before[id].Status || after[id].Cwd != before[id].Cwd {
			t.Errorf("a raw id drove the derived row %q: %+v (was %+v)", id, after[id], before[id])
		}
	}
}
