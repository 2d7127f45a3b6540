package templates

import (
	goldenfile "github.com/notch-web/notch-web/internal/golden"

	"bytes"
	"context"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// render renders a component to bytes.
func render(t *testing.T, c templ.Component) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatalf("render: %v", err)
	}
	return b.Bytes()
}

// readable puts one tag per line, so a golden diff points at the element
// that changed. It only adds newlines between tags.
func readable(b []byte) []byte {
	return append(bytes.ReplaceAll(b, []byte("><"), []byte(">\n<")), '\n')
}

// golden compares got (one tag per line) with testdata/<name>.html and
// prints a diff on a mismatch (internal/golden); -update rewrites it. Each
// golden holds one component: a face's drawing is golden once per mood
// (TestFaceGolden) and stands as <svg…/> elsewhere, so a change to a face
// rewrites one file, not every row and page that shows it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".html"), filepath.Join("testdata", name+".actual.html"), readable(withoutDrawings(got)), *update)
}

// drawing is a face's SVG, which TestFaceGolden keeps.
var drawing = regexp.MustCompile(`(?s)<svg viewBox="0 0 40 40".*?</svg>`)

func withoutDrawings(b []byte) []byte { return drawing.ReplaceAll(b, []byte(`<svg…/>`)) }

// rowItem is one row of the list, which TestRowGolden keeps; sheetToolsRE
// and iconRE are the sheet's tools and the pin's icon, which the whole
// board's golden keeps.
var (
	rowItem      = regexp.MustCompile(`(?s)<li id="row-.*?</li>`)
	sheetToolsRE = regexp.MustCompile(`(?s)<div class="sheet-tools".*?</div>`)
	iconRE       = regexp.MustCompile(`(?s)<svg viewBox="0 0 16 16".*?</svg>`)
)

// withoutRows leaves out what the whole board's golden already holds (its
// rows, the sheet's tools, the icons), for the goldens of what differs
// between boards: the tab, the empty and unknown states.
func withoutRows(b []byte) []byte {
	b = rowItem.ReplaceAll(b, []byte(`<li row…/>`))
	b = sheetToolsRE.ReplaceAll(b, []byte(`<div sheet-tools…/>`))
	return iconRE.ReplaceAll(b, []byte(`<svg icon…/>`))
}

// TestFaceGolden: each mood's drawing golden once, and once the pleased
// features laid over a mood (the same overlay for every mood).
func TestFaceGolden(t *testing.T) {
	for _, m := range []string{moodIdle, moodThinking, moodBusy, moodAsking, moodConfused, moodDizzy, moodDone, moodError, moodPleased} {
		for _, pleased := range []bool{false, true} {
			name := "face_" + m
			if pleased {
				if m != moodThinking {
					continue
				}
				name += "_with_pleased"
			}
			got := render(t, faceDrawing(m, pleased))
			if !drawing.Match(got) {
				t.Fatalf("%s: the drawing does not match the pattern the goldens take it out by", name)
			}
			goldenfile.Check(t, filepath.Join("testdata", name+".html"), filepath.Join("testdata", name+".actual.html"), readable(got), *update)
		}
	}
}

func ptr[T any](v T) *T { return &v }

const t0 = int64(1_790_000_000_000)

// base is a working session with a tool out, as a harness leaves it.
func base() state.Session {
	return state.Session{
		ID:       "session-db65f92b",
		Title:    "Argon 0/4 on laptop — fixed",
		Project:  "blindKnifeArgon",
		Cwd:      `C:\Users\me\Projects\blindKnifeArgon`,
		Status:   state.StatusWorking,
		Since:    t0,
		Activity: &state.Activity{Kind: state.ActivityTool, Label: "roblox_verify"},
		Steps:    7,
		Identity: "teal",
	}
}

func TestRowGolden(t *testing.T) {
	noBudget := rowCtx{HotAt: 0.5, ShowProject: true}
	budget := rowCtx{Budget: ptr(int64(1_000_000)), HotAt: 0.5, ShowProject: true}
	with := func(f func(*state.Session)) state.Session { s := base(); f(&s); return s }

	tests := []struct {
		name string
		s    state.Session
		c    rowCtx
		// has and hasNot are what a user would notice, checked whatever
		// the golden file says.
		has, hasNot []string
	}{
		{
			name: "working_tool", s: base(), c: noBudget,
			has:    []string{`data-mood="busy"`, `<span class="label">roblox_verify</span>`, `7 steps`, `datetime="2026-09-21T14:13:20.000Z"`, `>working<`},
			hasNot: []string{`class="act close"`, `class="act open"`, `class="ctx`},
		},
		{
			name: "thinking",
			s:    with(func(s *state.Session) { s.Activity = &state.Activity{Kind: state.ActivityThinking}; s.Steps = 0 }),
			c:    noBudget,
			has:  []string{`data-mood="thinking"`, `data-kind="thinking"`, `thinking`},
			// A turn that has just opened: no tool to name, no steps.
			hasNot: []string{`class="after"`, `class="steps"`},
		},
		{
			name: "thinking_after_tool",
			s:    with(func(s *state.Session) { s.Activity = &state.Activity{Kind: state.ActivityThinking, Label: "grep"} }),
			c:    noBudget,
			has:  []string{`data-mood="thinking"`, `<span class="after">after grep</span>`},
		},
		{
			name: "attention_approval",
			s: with(func(s *state.Session) {
				s.Status = state.StatusAttention
				s.Approval = &state.Approval{ToolName: "pwsh", Reason: "Remove-Item -Recurse build/ & rebuild"}
			}),
			c:      noBudget,
			has:    []string{`data-mood="asking"`, `<span class="tool">pwsh</span>`, `Remove-Item -Recurse build/ &amp; rebuild`, `>needs you<`},
			hasNot: []string{`roblox_verify`, `class="act close"`},
		},
		{
			name: "error_streak_1",
			s:    with(func(s *state.Session) { s.ErrorStreak = 1; s.Activity.Kind = state.ActivityThinking }),
			c:    noBudget,
			has:  []string{`data-mood="confused"`, `aria-label="bot confused by an error"`},
		},
		{
			name: "error_streak_2",
			s:    with(func(s *state.Session) { s.ErrorStreak = 2; s.Activity.Kind = state.ActivityThinking }),
			c:    noBudget,
			has:  []string{`data-mood="dizzy"`, `class="wobble"`},
		},
		{
			name: "done_close",
			s: with(func(s *state.Session) {
				s.Status = state.StatusDone
				s.Activity = &state.Activity{Kind: state.ActivityThinking, Label: "edit"}
			}),
			c:      noBudget,
			has:    []string{`data-mood="done"`, `class="act close"`, `aria-label="Close out Argon 0/4 on laptop — fixed"`, `@post('/agents-notch/finish', {payload: {sessionId: el.closest('.row').dataset.sessionId}})`, `last <span class="label">edit</span>`},
			hasNot: []string{`data-kind="thinking"`},
		},
		{
			name: "error_close",
			s:    with(func(s *state.Session) { s.Status = state.StatusError }),
			c:    noBudget,
			has:  []string{`data-mood="error"`, `class="act close"`, `>failed<`},
		},
		{
			name: "budget_below_hot",
			s:    with(func(s *state.Session) { s.ContextTokens = 200_000 }),
			c:    budget,
			has:  []string{`class="ctx"`, `role="meter"`, `--fill:0.200`, `>20%<`, `aria-valuenow="20"`},
			// below hotAt: not amber
			hasNot: []string{`data-hot`},
		},
		{
			name: "budget_above_hot",
			s:    with(func(s *state.Session) { s.ContextTokens = 612_034 }),
			c:    budget,
			has:  []string{`data-hot`, `--fill:0.612`, `>61%<`},
		},
		{
			name: "budget_over",
			s:    with(func(s *state.Session) { s.ContextTokens = 1_250_000 }),
			c:    budget,
			// the bar stops full; the percentage says the truth
			has: []string{`--fill:1.000`, `>125%<`, `aria-valuenow="100"`},
		},
		{
			name: "null_budget_tokens",
			s:    with(func(s *state.Session) { s.ContextTokens = 412_034 }),
			c:    noBudget,
			has:  []string{`class="ctx-tokens"`, `412k`},
			// docs/contract.md rule 1: no bar, no percentage without a real budget
			hasNot: []string{`ctx-bar`, `%`, `role="meter"`},
		},
		{
			name: "zero_tokens",
			s:    with(func(s *state.Session) { s.ContextTokens = 0 }),
			c:    budget,
			// docs/contract.md rule 5: not known yet, so nothing at all
			hasNot: []string{`class="ctx`, `ctx-tokens`},
		},
		{
			name: "empty_title",
			s: with(func(s *state.Session) {
				s.Title = ""
				s.Status = state.StatusDone
			}),
			c:   noBudget,
			has: []string{`aria-label="Close out blindKnifeArgon"`},
			// docs/contract.md rule 5: no title, no placeholder
			hasNot: []string{`class="title"`, `Untitled`},
		},
		{
			name: "subagent",
			s: with(func(s *state.Session) {
				s.ID, s.Origin, s.ParentSession = "session-sub", state.OriginSubagent, "session-db65f92b"
			}),
			c:   rowCtx{HotAt: 0.5, ShowProject: true, Depth: 1},
			has: []string{`data-depth="1"`, `data-subagent`, `class="sub-mark"`},
		},
		{
			name: "with_open",
			s:    base(),
			c:    rowCtx{HotAt: 0.5, ShowProject: true, CanOpen: true},
			has:  []string{`class="act open"`, `@post('/agents-notch/open', {payload: {sessionId: el.closest('.row').dataset.sessionId}})`, `data-session-id="session-db65f92b"`},
		},
		{
			name: "with_tmux",
			s:    base(),
			c:    rowCtx{HotAt: 0.5, ShowProject: true, Door: terminal.Door{Kind: terminal.DoorTmux, Command: "tmux switch-client -t %3"}},
			has:  []string{`class="act term"`, `data-door="tmux"`, `aria-label="Go to terminal: Argon 0/4 on laptop — fixed"`},
			// the host acts; nothing in the row runs a command
			hasNot: []string{`@post`},
		},
		{
			name: "with_copy_door",
			s:    base(),
			c:    rowCtx{HotAt: 0.5, ShowProject: true, Door: terminal.Door{Kind: terminal.DoorCopy, Command: "wezterm cli activate-pane --pane-id 7"}},
			has:  []string{`data-door="copy"`, `data-command="wezterm cli activate-pane --pane-id 7"`, `aria-label="Copy the command to the terminal of`},
		},
		{
			// the agent whose hooks drive the row: the dashboard's column
			name: "with_agent",
			s:    base(),
			c:    rowCtx{HotAt: 0.5, ShowProject: true, Agent: "codex"},
			has:  []string{`<span class="agent" title="Codex"><span class="agent-mark" aria-hidden="true">CX</span><span class="agent-name">Codex</span></span></div></div>`},
		},
		{
			name: "without_open",
			s:    base(),
			c:    noBudget,
			// the (empty) actions column stays, so the chips line up
			has:    []string{`<div class="row-actions" id="row-c2Vzc2lvbi1kYjY1ZjkyYg-act"></div>`},
			hasNot: []string{`class="act open"`, `/agents-notch/open`, `<button`},
		},
		{
			name: "show_project_false",
			s:    base(),
			c:    rowCtx{HotAt: 0.5, ShowProject: false},
			// the project leaves the sub line; the colour chip stays
			has:    []string{`class="chip"`, `data-identity="teal"`},
			hasNot: []string{`class="project"`, `blindKnifeArgon`},
		},
		{
			name: "approved",
			s: with(func(s *state.Session) {
				s.Activity = &state.Activity{Kind: state.ActivityThinking, Label: "bash"}
				s.ApprovedAt = ptr(t0 + 5000)
			}),
			c:   noBudget,
			has: []string{`data-approved-at="1790000005000"`, `class="mood-pleased"`},
		},
		{
			name: "hostile_id",
			s: with(func(s *state.Session) {
				s.ID = `x'"><script>alert(1)</script>`
				s.Title = `<b>bold</b>`
				s.Status = state.StatusDone
			}),
			c:      noBudget,
			has:    []string{`data-session-id="x&#39;&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`, `&lt;b&gt;bold&lt;/b&gt;`},
			hasNot: []string{`<script>`, `<b>`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(t, row(tt.s, tt.c))
			for _, want := range tt.has {
				if !bytes.Contains(got, []byte(want)) {
					t.Errorf("row lacks %q", want)
				}
			}
			for _, bad := range tt.hasNot {
				if bytes.Contains(got, []byte(bad)) {
					t.Errorf("row has %q", bad)
				}
			}
			// The server render never carries now-dependent text: the
			// relative time is empty, ticked by notch.js.
			if m := regexp.MustCompile(`<time[^>]*>([^<]*)</time>`).FindSubmatch(got); m != nil && len(m[1]) > 0 {
				t.Errorf("since rendered as %q; it must be left to the client", m[1])
			}
			golden(t, "row_"+tt.name, got)
		})
	}
}

// board is a document with a few sessions, as the hub would hand it over.
func board() BoardView {
	hub := base()
	hub.ID, hub.Title, hub.ContextTokens = "hub", "Wire the SSE hub", 300_000
	sub := base()
	sub.ID, sub.Title, sub.Origin, sub.ParentSession = "sub", "Survey", state.OriginSubagent, "hub"
	ask := base()
	ask.ID, ask.Status, ask.Approval = "ask", state.StatusAttention, &state.Approval{ToolName: "web_fetch"}
	done := base()
	done.ID, done.Status = "done", state.StatusDone
	st := settings.Defaults
	return BoardView{
		Doc: state.Document{
			Schema: state.Schema, Plugin: state.Plugin, WallMs: t0, Retire: "route",
			Context:  state.Context{HotAt: 0.5},
			Settings: st,
			Summary:  state.Summary{Status: state.StatusAttention, Working: 2, Attention: 1, Done: 1, Total: 4},
			Sessions: []state.Session{hub, sub, ask, done},
		},
		NowMs: t0 + 1234,
	}
}

func TestBoardGolden(t *testing.T) {
	t.Run("board", func(t *testing.T) {
		got := render(t, Board(board()))
		for _, want := range []string{
			`id="board"`, `data-say="notch-web: 1 needs you, 2 working, 1 done"`,
			`<span class="count" data-status="done">✓1</span>`,
			`id="bigbot" class="bigbot" data-status="attention"`,
			`class="island" data-status="attention"`,
			`<style id="board-vars">#board{--scale:1;--opacity:1;--ghost-opacity:0.18;--max-rows:6}</style>`,
			// the title's count, the counts in words, the way to the pane
			`data-needs="1"`,
			`<span class="legend-item" data-status="attention">1 needs you</span>`,
			`<span class="legend-item" data-status="done">1 done</span>`,
			`href="/agents-notch/pane"`,
		} {
			if !bytes.Contains(got, []byte(want)) {
				t.Errorf("board lacks %q", want)
			}
		}
		golden(t, "board", got)
	})
	t.Run("unknown", func(t *testing.T) {
		v := board()
		v.Unknown, v.Follow = true, true
		got := render(t, Board(v))
		for _, want := range []string{`data-unknown`, `data-say="notch-web: status unknown"`, `class="stale-note"`} {
			if !bytes.Contains(got, []byte(want)) {
				t.Errorf("unknown board lacks %q", want)
			}
		}
		// docs/contract.md rule 3: never the last summary as though current
		if bytes.Contains(got, []byte(`class="island"`)) {
			t.Error("unknown board shows the alert island")
		}
		if bytes.Contains(got, []byte(`needs you,`)) {
			t.Error("unknown board announces the last summary")
		}
		if bytes.Contains(got, []byte(`data-needs`)) {
			t.Error("unknown board gives the title a count")
		}
		golden(t, "board_unknown", withoutRows(got))
	})
	t.Run("unknown_nothing_read", func(t *testing.T) {
		got := render(t, Board(BoardView{Unknown: true, Follow: true}))
		if !bytes.Contains(got, []byte("Nothing read from the host yet.")) || bytes.Contains(got, []byte("No sessions")) {
			t.Error("a follower that has read nothing must not claim there are no sessions")
		}
		// a zero document's settings are not a notch at scale 0
		if !bytes.Contains(got, []byte(`<style id="board-vars">#board{--scale:1;--opacity:1;--ghost-opacity:0.18;--max-rows:6}</style>`)) ||
			!bytes.Contains(got, []byte(`data-anchor="top-center"`)) {
			t.Error("a zero document's settings were not clamped to the defaults")
		}
		golden(t, "board_unknown_nothing_read", withoutRows(got))
	})
	t.Run("empty", func(t *testing.T) {
		v := board()
		v.Doc.Sessions, v.Doc.Summary = []state.Session{}, state.Summary{}
		got := render(t, Board(v))
		if !bytes.Contains(got, []byte(`<p class="empty">No sessions</p>`)) {
			t.Error("empty board lacks the honest empty state")
		}
		if !bytes.Contains(got, []byte(`notch-web hooks install claude-code`)) || !bytes.Contains(got, []byte(`#connect-your-agents`)) {
			t.Error("an empty board says how to connect an agent")
		}
		if bytes.Contains(got, []byte(`class="count"`)) || bytes.Contains(got, []byte(`bigbot`)) {
			t.Error("empty board draws counts or a big bot")
		}
		golden(t, "board_empty", withoutRows(got))
	})
	t.Run("clamped", func(t *testing.T) {
		v := board()
		v.Doc.Settings.Scale, v.Doc.Settings.Opacity, v.Doc.Settings.MaxRows = 9, 0.1, 40
		v.Doc.Settings.HoverMode = "sideways"
		got := render(t, Board(v))
		for _, want := range []string{`--scale:2;--opacity:0.35;`, `--max-rows:10}`, `data-hover-mode="ghost"`} {
			if !bytes.Contains(got, []byte(want)) {
				t.Errorf("out-of-range settings: board lacks %q", want)
			}
		}
	})
	t.Run("alerts", func(t *testing.T) {
		v := board()
		v.Doc.Sessions = []state.Session{v.Doc.Sessions[3]} // only the done one
		v.Doc.Settings.Alerts = "all"
		if !bytes.Contains(render(t, Board(v)), []byte(`class="island" data-status="done"`)) {
			t.Error(`alerts "all" shows no island for a finished session`)
		}
		v.Doc.Settings.Alerts = "needs-you"
		if bytes.Contains(render(t, Board(v)), []byte(`class="island"`)) {
			t.Error(`alerts "needs-you" shows an island for a finished session`)
		}
		v = board()
		v.Doc.Settings.Alerts = "off"
		if bytes.Contains(render(t, Board(v)), []byte(`class="island"`)) {
			t.Error(`alerts "off" shows an island`)
		}
	})
}

// TestBoardStable: the same view renders to the same bytes, and the
// fragment does not depend on the render's clock, so the hub's patches are
// byte-stable and tabs are not re-patched for time alone.
func TestBoardStable(t *testing.T) {
	v := board()
	v.Doc.Sessions[0].ApprovedAt = ptr(t0)
	a := render(t, Board(v))
	b := render(t, Board(v))
	if !bytes.Equal(a, b) {
		t.Fatal("rendering the same BoardView twice gave different bytes")
	}
	v.NowMs += 3_600_000
	if c := render(t, Board(v)); !bytes.Equal(a, c) {
		t.Fatal("the board fragment changed with NowMs alone")
	}
	pv := PaneView{View: settings.View{Settings: settings.Defaults, Defaults: settings.Defaults, Source: map[string]string{}}}
	if !bytes.Equal(render(t, Pane(pv)), render(t, Pane(pv))) {
		t.Fatal("rendering the same PaneView twice gave different bytes")
	}
}

// TestPaneControls: every one of the fourteen keys has exactly one control,
// posting exactly that key, with its layer and a reset.
func TestPaneControls(t *testing.T) {
	seen := map[string]int{}
	for _, g := range paneGroups() {
		for _, c := range g.Controls {
			seen[c.Key]++
			if c.Kind == kindRange {
				lo, hi, ok := settings.Range(c.Key)
				if !ok || c.Min != lo || c.Max != hi {
					t.Errorf("%s: range %v…%v, want the clamp range %v…%v", c.Key, c.Min, c.Max, lo, hi)
				}
			}
		}
	}
	for _, k := range settings.Keys {
		if seen[k] != 1 {
			t.Errorf("key %s has %d controls, want 1", k, seen[k])
		}
	}
	if len(seen) != len(settings.Keys) {
		t.Errorf("the pane has controls for %d keys, want %d", len(seen), len(settings.Keys))
	}

	row := settings.Partial{"opacity": 0.8}
	pane := settings.Partial{"scale": 1.25}
	s, src := settings.Compose(row, pane)
	v := PaneView{View: settings.View{
		Settings: s, Row: row, Stored: pane, Defaults: settings.Defaults, Source: src,
		Warnings: []settings.Warning{{File: "/home/me/.dsh/cordis.patch.yml", Key: "holdMs", Message: `want a number, got "slow"; using the layer beneath`}},
		Context:  settings.RowContext{HotAt: 0.5}, Retire: "route",
	}}
	got := string(render(t, Pane(v)))
	for _, k := range settings.Keys {
		if !strings.Contains(got, `id="set-`+k+`"`) {
			t.Errorf("pane lacks the setting %s", k)
		}
	}
	// Each interaction posts one key, never all signals.
	onchange := regexp.MustCompile(`data-on:change="([^"]*)"`).FindAllStringSubmatch(got, -1)
	if len(onchange) == 0 {
		t.Fatal("no data-on:change in the pane")
	}
	for _, m := range onchange {
		if !strings.Contains(m[1], "{payload: {") || strings.Count(m[1], ":") != 2 {
			t.Errorf("control posts %q, want exactly one key in a payload", m[1])
		}
	}
	for _, want := range []string{
		`data-key="scale" data-source="pane"`,
		`data-key="opacity" data-source="row"`,
		`data-key="anchor" data-source="default"`,
		`@post(&#39;/agents-notch/settings&#39;, {payload: {scale: null}})`,
		`@post('/agents-notch/settings', {payload: {reset: true}})`,
		`min="0.75" max="2"`,
		`want a number, got &#34;slow&#34;; using the layer beneath`,
		`not known: rows show a bare token count`,
		`desktop window`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("pane lacks %q", want)
		}
	}
	golden(t, "pane", []byte(got))
}

func TestFmtTokens(t *testing.T) {
	for n, want := range map[int64]string{
		1: "1", 999: "999", 1000: "1k", 412_034: "412k", 999_499: "999k",
		999_500: "1M", 1_000_000: "1M", 1_250_000: "1.3M", 12_340_000: "12.3M",
	} {
		if got := fmtTokens(n); got != want {
			t.Errorf("fmtTokens(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMood(t *testing.T) {
	s := base()
	tests := []struct {
		name string
		f    func(*state.Session)
		want string
	}{
		{"tool", func(s *state.Session) {}, moodBusy},
		{"thinking", func(s *state.Session) { s.Activity.Kind = state.ActivityThinking }, moodThinking},
		{"no turn yet", func(s *state.Session) { s.Activity = nil }, moodIdle},
		{"streak 1", func(s *state.Session) { s.ErrorStreak = 1 }, moodConfused},
		{"streak 3", func(s *state.Session) { s.ErrorStreak = 3 }, moodDizzy},
		{"asking beats a streak", func(s *state.Session) { s.ErrorStreak = 2; s.Status = state.StatusAttention }, moodAsking},
		{"done", func(s *state.Session) { s.Status = state.StatusDone }, moodDone},
		{"error", func(s *state.Session) { s.Status = state.StatusError; s.ErrorStreak = 1 }, moodError},
	}
	for _, tt := range tests {
		c := s
		a := *s.Activity
		c.Activity = &a
		tt.f(&c)
		if got := mood(c); got != tt.want {
			t.Errorf("%s: mood %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDepths(t *testing.T) {
	ss := []state.Session{
		{ID: "a"}, {ID: "b", ParentSession: "a"}, {ID: "c", ParentSession: "b"},
		{ID: "orphan", ParentSession: "gone"}, {ID: "x", ParentSession: "y"}, {ID: "y", ParentSession: "x"},
	}
	d := depths(ss)
	for id, want := range map[string]int{"a": 0, "b": 1, "c": 2, "orphan": 0} {
		if d[id] != want {
			t.Errorf("depth(%s) = %d, want %d", id, d[id], want)
		}
	}
	if d["x"] > maxDepth || d["y"] > maxDepth {
		t.Errorf("a parent cycle walked past maxDepth: %v", d)
	}
}

func TestUrgent(t *testing.T) {
	ss := []state.Session{
		{ID: "w", Status: state.StatusWorking, Since: 5},
		{ID: "a-new", Status: state.StatusAttention, Since: 9},
		{ID: "a-old", Status: state.StatusAttention, Since: 2},
		{ID: "e", Status: state.StatusError, Since: 8},
	}
	if s, _ := urgent(ss); s.ID != "a-old" {
		t.Errorf("urgent = %s, want the question waiting longest", s.ID)
	}
	if _, ok := urgent(nil); ok {
		t.Error("urgent found a session on an empty board")
	}
}

func TestIsoMs(t *testing.T) {
	for _, ms := range []int64{0, 1, 999, 1_790_000_000_123, 1_790_000_000_000, 253402300799999, -1, -62135596800000, 253402300800000} {
		want := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		if got := isoMs(ms); got != want {
			t.Errorf("isoMs(%d) = %q, want %q", ms, got, want)
		}
	}
}

// An unfolded row's history: its entries newest first, hostile strings as
// text; an empty one says it starts afresh after a restart; another
// machine's row says its events are kept there.
func TestHistoryGolden(t *testing.T) {
	entries := []host.HistoryEntry{
		{AtMs: t0 + 3000, What: "tool ended", Tool: "<b>bash</b>", Outcome: "error"},
		{AtMs: t0 + 2000, What: "tool started", Tool: "<b>bash</b>"},
		{AtMs: t0 + 1000, What: "turn started"},
	}
	for _, tc := range []struct {
		name    string
		h       []host.HistoryEntry
		known   bool
		lasting bool
		has     []string
		hasNot  []string
	}{
		{"history", entries, true, false, []string{`&lt;b&gt;bash&lt;/b&gt;`, `data-outcome="error"`, `The last 3 events`, `kept in memory since`, `datetime="2026-09-21T14:13:23.000Z"`}, []string{`<b>`, `lasting`}},
		{"history_lasting", entries, true, true, []string{`The last 3 events, from the lasting history`}, []string{`kept in memory`}},
		{"history_empty", nil, true, false, []string{`starts afresh when notch-web restarts`}, []string{`hist-list`}},
		{"history_remote", nil, false, false, []string{`kept by its own machine`}, []string{`hist-list`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, History("session-db65f92b", tc.h, tc.known, tc.lasting))
			for _, want := range tc.has {
				if !bytes.Contains(got, []byte(want)) {
					t.Errorf("lacks %q", want)
				}
			}
			for _, bad := range tc.hasNot {
				if bytes.Contains(got, []byte(bad)) {
					t.Errorf("has %q", bad)
				}
			}
			golden(t, tc.name, got)
		})
	}
}
