package templates

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/state"
)

// TestRowReportedWindow: with no budget of the row's, the context bar is
// drawn against the window the row's agent reports (Claude Code's here), filled by the host's own
// token count, else Claude Code's count of the tokens in use, else its
// share in use; without a reported window there is no bar.
func TestRowReportedWindow(t *testing.T) {
	pct := func(x float64) *float64 { return &x }
	s := state.Session{ID: "s", Title: "t", Status: state.StatusDone, Identity: "teal"}
	for _, tc := range []struct {
		name   string
		tokens int64
		c      rowCtx
		want   []string // substrings of the row; nil: no bar
	}{
		{"the host's tokens", 412_000, rowCtx{Agent: "claude-code", Window: 1_000_000, WindowTokens: 2000, WindowPct: pct(0)},
			[]string{`aria-valuenow="41"`, `title="412k of 1M tokens (the window Claude Code reports)"`}},
		{"Claude Code's count (2.1.328 with an API key: 0 %)", 0, rowCtx{Window: 1_000_000, WindowTokens: 2000, WindowPct: pct(0)},
			[]string{`aria-valuenow="0"`, `aria-valuetext="0% (2k tokens)"`, `--fill:0.002;`}},
		{"Claude Code's share alone", 0, rowCtx{Window: 200_000, WindowPct: pct(42)},
			[]string{`aria-valuenow="42"`, `84k of 200k tokens`}},
		{"nothing reported in use", 0, rowCtx{Window: 1_000_000}, nil},
		{"no window reported", 0, rowCtx{WindowTokens: 2000}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := s
			s.ContextTokens = tc.tokens
			html := string(render(t, row(s, tc.c)))
			if tc.want == nil {
				if strings.Contains(html, `class="ctx"`) {
					t.Errorf("a context bar with nothing to fill it:\n%s", html)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("missing %s in\n%s", w, html)
				}
			}
		})
	}
}

// TestRowSaysItsOwnAgent walks the registry: every agent's row wears its
// Spec's badge (Mark, named by Display) and its context bar says whose
// window it is drawn against; a row of no known agent names none.
func TestRowSaysItsOwnAgent(t *testing.T) {
	s := state.Session{ID: "s", Title: "t", Status: state.StatusDone, Identity: "teal", ContextTokens: 50_000}
	for _, spec := range registry.All {
		t.Run(spec.Name, func(t *testing.T) {
			html := string(render(t, row(s, rowCtx{Agent: spec.Name, Window: 200_000})))
			for _, w := range []string{
				`<span class="agent" title="` + spec.Display + `"><span class="agent-mark" aria-hidden="true">` + spec.Mark + `</span>`,
				`title="50k of 200k tokens (the window ` + spec.Display + ` reports)"`,
			} {
				if !strings.Contains(html, w) {
					t.Errorf("missing %s in\n%s", w, html)
				}
			}
		})
	}
	html := string(render(t, row(s, rowCtx{Window: 200_000})))
	if !strings.Contains(html, `title="50k of 200k tokens (the window the agent reports)"`) || strings.Contains(html, `class="agent"`) {
		t.Errorf("a row of no known agent:\n%s", html)
	}
}
