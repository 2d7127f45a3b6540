package templates

import (
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// TestRowSaysWhyItStopped: an error row says why — its kind, a usage
// limit's reset as "resumes HH:MM" in the board's zone, and the agent's
// words escaped, whole in the tooltip; a row the host knows no why of
// says nothing more.
func TestRowSaysWhyItStopped(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 30, 0, 0, time.UTC)
	resetsAt := time.Date(2026, 12, 7, 14, 5, 0, 0, time.UTC).UnixMilli()
	doc := state.Document{Sessions: []state.Session{
		{ID: "a", Title: "limit", Status: state.StatusError, Identity: "teal", Since: now.UnixMilli()},
		{ID: "b", Title: "auth", Status: state.StatusError, Identity: "teal", Since: now.UnixMilli()},
		{ID: "c", Title: "plain", Status: state.StatusError, Identity: "teal", Since: now.UnixMilli()},
	}}
	v := BoardView{Doc: doc, NowMs: now.UnixMilli(), Zone: time.UTC, Approvals: Approvals{Whys: map[string]Why{
		"a": {Kind: "limit", Label: "usage limit", Words: "API Error: 429 <b>limit</b>", ResetsMs: resetsAt},
		"b": {Kind: "auth", Label: "authentication", Words: "Invalid API key · Please run /login"},
	}}}
	ctxs := v.rowCtxs()
	for i, want := range [][]string{
		{`<span class="why" data-why="limit"><span class="why-kind">usage limit</span> · <time class="why-reset" datetime="2026-12-07T14:05:00.000Z">resumes 14:05</time>`,
			`title="API Error: 429 &lt;b&gt;limit&lt;/b&gt;"`},
		{`<span class="why-kind">authentication</span> <span class="why-words"`, `Invalid API key · Please run /login`},
		nil,
	} {
		html := string(render(t, row(doc.Sessions[i], ctxs[i])))
		if want == nil && strings.Contains(html, `class="why"`) {
			t.Errorf("row %d says why with nothing to say:\n%s", i, html)
		}
		for _, w := range want {
			if !strings.Contains(html, w) {
				t.Errorf("row %d: missing %s in\n%s", i, w, html)
			}
		}
	}
	for _, tc := range []struct {
		resets, now int64
		want        string
	}{
		{0, 1, ""},
		{resetsAt, resetsAt + 1, "may resume now"},
		{resetsAt, now.UnixMilli(), "resumes 14:05"},
		{resetsAt + 2*24*3600*1000, now.UnixMilli(), "resumes Wed 14:05"},
	} {
		if got := resumes(tc.resets, tc.now, time.UTC); got != tc.want {
			t.Errorf("resumes(%d, %d) = %q, want %q", tc.resets, tc.now, got, tc.want)
		}
	}
}
