package templates

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/state"
)

// quietBoard is a hub's board: one of its own rows working, and a quiet
// machine's two rows (one needing the human, one working), shown unknown.
func quietBoard() BoardView {
	rows := []state.Session{
		{ID: "own", Title: "own", Status: state.StatusWorking, Since: 1},
		{ID: "box/a", Title: "asks", Project: "box (unknown)", Status: state.StatusAttention, Since: 2},
		{ID: "box/b", Title: "works", Project: "box (unknown)", Status: state.StatusWorking, Since: 3},
	}
	doc := state.Document{Schema: 4, Sessions: rows, Summary: state.Summarize(rows)}
	return BoardView{Doc: doc, UnknownRows: map[string]bool{"box/a": true, "box/b": true}}
}

// TestTabCountsQuietRowsAsUnknown: a quiet machine's rows are counted as
// unknown in the tab (its counts, its name, its data-needs, the island),
// never as working or needing the human.
func TestTabCountsQuietRowsAsUnknown(t *testing.T) {
	v := quietBoard()
	sum, n := v.tabSummary()
	if sum.Working != 1 || sum.Attention != 0 || n != 2 || sum.Total != 3 || sum.Status != state.StatusWorking {
		t.Fatalf("tab summary %+v, %d unknown; want 1 working, 0 needs you, 2 unknown of 3", sum, n)
	}
	if got, want := v.Phrase(), "notch-web: 1 working, 2 unknown"; got != want {
		t.Errorf("phrase %q, want %q", got, want)
	}
	html := string(render(t, tab(v, v.settings())))
	for _, want := range []string{`data-needs="0"`, `<span class="count" data-status="unknown">?2</span>`, `2 unknown`} {
		if !strings.Contains(html, want) {
			t.Errorf("the tab lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, `class="island"`) {
		t.Errorf("a quiet machine's needs-you row raised the island:\n%s", html)
	}
	pv := PaneView{UnknownRows: n, Summary: sum}
	if got := pv.Phrase(); got != "notch-web: 1 working, 2 unknown" {
		t.Errorf("pane phrase %q", got)
	}
	if p := string(render(t, previewTab(sum, n, false))); !strings.Contains(p, `data-status="unknown">?2`) {
		t.Errorf("the pane's preview tab lacks the unknown count:\n%s", p)
	}
	// Every machine present: the document's own summary, unchanged.
	v.UnknownRows = nil
	if sum, n := v.tabSummary(); sum != v.Doc.Summary || n != 0 {
		t.Errorf("with no quiet machine: %+v, %d; want the document's %+v", sum, n, v.Doc.Summary)
	}
}

// TestRemoteRowOpenDisabled: a remote row's Open would run this machine's
// opener for a session on another machine: it is disabled, saying why.
func TestRemoteRowOpenDisabled(t *testing.T) {
	s := state.Session{ID: "box/a", Title: "remote", Status: state.StatusWorking}
	html := string(render(t, row(s, rowCtx{CanOpen: true, Remote: true})))
	if !strings.Contains(html, `aria-disabled="true"`) || !strings.Contains(html, `title="`+remoteOpenTitle+`"`) {
		t.Errorf("a remote row's Open is not disabled with its reason:\n%s", html)
	}
	if strings.Contains(html, "/agents-notch/open") {
		t.Errorf("a remote row's Open still posts to this machine's opener:\n%s", html)
	}
	local := string(render(t, row(state.Session{ID: "own", Title: "own", Status: state.StatusWorking}, rowCtx{CanOpen: true})))
	if !strings.Contains(local, "/agents-notch/open") || strings.Contains(local, "aria-disabled") {
		t.Errorf("a local row's Open changed:\n%s", local)
	}
	// The board view marks the remote rows it is told of.
	v := quietBoard()
	v.Doc.OpenURL = new(string)
	v.RemoteRows = map[string]bool{"box/a": true, "box/b": true}
	for i, c := range v.rowCtxs() {
		if want := v.Doc.Sessions[i].ID != "own"; c.Remote != want {
			t.Errorf("row %s: Remote %v, want %v", v.Doc.Sessions[i].ID, c.Remote, want)
		}
	}
}
