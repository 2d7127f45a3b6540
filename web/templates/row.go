package templates

import (
	"context"
	"io"
	"strconv"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/state"
)

// row is one session. Its parts carry ids derived from the row's, so the
// hub's diff can patch the part that changed (a new title sends line1, not
// the row). It draws only what is known: "", 0 and null draw nothing
// (docs/contract.md rule 5), the context bar needs a real budget
// (docs/contract.md rule 1), and the relative time is left empty for
// notch.js to tick from its datetime.
//
// A board draws a row per session, so the row is written in Go (markup.go)
// rather than templ: through templ, its twenty-odd values cost an
// allocation each and were most of a board's render. The markup is what
// the templ row drew, byte for byte (the row goldens); every value from a
// session is escaped.
func row(s state.Session, c rowCtx) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		m := newMarkup(w)
		writeRow(m, s, c)
		return m.err
	})
}

func writeRow(m *markup, s state.Session, c rowCtx) {
	ids := partIDs(s.ID)
	m.raw(`<li id="`, ids.row, `" class="row" data-session-id="`)
	m.esc(s.ID)
	m.raw(`" data-status="`)
	m.esc(s.Status)
	m.raw(`" data-identity="`)
	m.esc(s.Identity)
	m.raw(`"`)
	if c.Depth > 0 {
		m.raw(` data-depth="`, strconv.Itoa(c.Depth), `"`)
	}
	if s.Origin == state.OriginSubagent {
		m.raw(` data-subagent`)
	}
	if c.Unknown {
		m.raw(` data-unknown`)
	}
	m.raw(`><span class="stripe" aria-hidden="true"></span>`)
	writeFace(m, s, false, ids.face)

	m.raw(`<div class="row-main">`)
	sub := c.Depth > 0 || s.Origin == state.OriginSubagent
	if s.Title != "" || sub {
		m.raw(`<div class="line1" id="`, ids.l1, `">`)
		if sub {
			m.raw(`<span class="sub-mark"><span aria-hidden="true">↳</span><span class="sr-only">subagent:</span></span> `)
		}
		if s.Title != "" {
			m.raw(`<span class="title">`)
			m.esc(s.Title)
			m.raw(`</span> `)
		}
		if s.Since > 0 {
			m.raw(`<time class="since" datetime="`, isoMs(s.Since), `"></time>`)
		}
		m.raw(`</div>`)
	}
	m.raw(`<div class="line2" id="`, ids.l2, `">`)
	if c.ShowProject && s.Project != "" {
		m.raw(`<span class="project">`)
		m.esc(s.Project)
		m.raw(`</span> `)
	}
	if c.BlockedSince > 0 {
		// A subagent of this session waits on the human: so does it.
		m.raw(`<span class="blocked">its subagent waits on you <time class="wait" datetime="`, isoMs(c.BlockedSince), `"></time></span> `)
	}
	switch {
	case s.Approval != nil:
		m.raw(`<span class="approval"><span class="ask">asks</span> `)
		if s.Approval.ToolName != "" {
			m.raw(`<span class="tool">`)
			m.esc(s.Approval.ToolName)
			m.raw(`</span> `)
		}
		if s.Approval.Reason != "" {
			m.raw(`<span class="reason" title="`)
			m.esc(s.Approval.Reason)
			m.raw(`">`)
			m.esc(s.Approval.Reason)
			m.raw(`</span>`)
		}
		m.raw(`</span> `)
	case s.Activity != nil && !settled(s):
		writeActivity(m, *s.Activity)
	case s.Activity != nil && s.Activity.Label != "":
		m.raw(`<span class="last">last <span class="label">`)
		m.esc(s.Activity.Label)
		m.raw(`</span></span> `)
	}
	if c.Why.Kind != "" || c.Why.Words != "" {
		writeWhy(m, c)
	}
	if s.Steps > 0 {
		m.raw(`<span class="steps">`)
		if s.Steps == 1 {
			m.raw(`1 step`)
		} else {
			m.raw(strconv.Itoa(s.Steps), ` steps`)
		}
		m.raw(`</span> `)
	}
	if s.Title == "" && !sub && s.Since > 0 {
		m.raw(`<time class="since" datetime="`, isoMs(s.Since), `"></time>`)
	}
	// What the session's model calls used, by its agent's own telemetry.
	if c.Spent.Calls > 0 {
		writeSpent(m, c.Spent)
	}
	// The agent comes last: its badge, with its name as the tooltip (the
	// notch has room for no more; a screen reader hears the name), and the
	// name in a column of its own on the dashboard.
	if name := agentName(c.Agent); name != "" {
		m.raw(`<span class="agent" title="`, name, `"><span class="agent-mark" aria-hidden="true">`, agentMark(c.Agent),
			`</span><span class="agent-name">`, name, `</span></span>`)
	}
	m.raw(`</div></div>`)

	m.raw(`<div class="row-side" id="`, ids.side, `">`)
	// The context bar against a real budget, a bare token count without
	// one, or nothing at all before the session has answered once.
	if budget, tokens, reported := c.context(s); tokens > 0 {
		if budget != nil {
			fill, pct := ctxFill(tokens, *budget)
			t := fmtTokens(tokens)
			m.raw(`<span class="ctx"`)
			if ctxHot(tokens, *budget, c.HotAt) {
				m.raw(` data-hot`)
			}
			m.raw(` role="meter" aria-label="context used" aria-valuemin="0" aria-valuemax="100" aria-valuenow="`,
				strconv.FormatInt(min(pct, 100), 10),
				`" aria-valuetext="`, strconv.FormatInt(pct, 10), `% (`, t, ` tokens)`,
				`" title="`, t, ` of `, fmtTokens(*budget), ` tokens`)
			if reported {
				// The window is the row's own agent's word (Claude Code's
				// statusline, Copilot CLI's session file, Qwen Code's Stop).
				who := agentName(c.Agent)
				if who == "" {
					who = "the agent"
				}
				m.raw(` (the window `, who, ` reports)`)
			}
			// A style value gets a closing ";" from templ's sanitizer.
			m.raw(`"><span class="ctx-bar" aria-hidden="true"><span class="ctx-fill" style="--fill:`, fill,
				`;"></span></span> <span class="ctx-pct" aria-hidden="true">`, strconv.FormatInt(pct, 10), `%</span></span>`)
		} else {
			m.raw(`<span class="ctx-tokens" title="context tokens (no budget known)"><span class="sr-only">context </span>`,
				fmtTokens(tokens), `<span class="sr-only"> tokens</span></span>`)
		}
	}
	// The chip wears the row's status colour (--st, set by the row's
	// data-status), so it needs no attribute of its own.
	m.raw(`<span class="chip">`)
	if c.Unknown {
		m.raw(`unknown`)
	} else {
		m.esc(statusWord(s.Status))
	}
	m.raw(`</span></div>`)

	// The actions column is always there, empty or not, so the status
	// chips of rows with and without a ✕ line up.
	m.raw(`<div class="row-actions" id="`, ids.act, `">`)
	// Go to terminal: tmux is switched by the host (POST
	// /agents-notch/terminal); any other door is a command notch.js copies,
	// and the button says so.
	switch c.Door.Kind {
	case terminal.DoorTmux:
		m.raw(`<button type="button" class="act term" data-door="tmux" data-command="`)
		m.esc(c.Door.Command)
		m.raw(`" aria-label="Go to terminal: `)
		m.esc(rowName(s))
		m.raw(`" title="Go to terminal (switches tmux to the session’s pane)"><span aria-hidden="true">&gt;_</span></button> `)
	case terminal.DoorCopy:
		m.raw(`<button type="button" class="act term" data-door="copy" data-command="`)
		m.esc(c.Door.Command)
		m.raw(`" aria-label="Copy the command to the terminal of `)
		m.esc(rowName(s))
		m.raw(`" title="Copy the command that gets there: `)
		m.esc(c.Door.Command)
		m.raw(`"><span aria-hidden="true">&gt;_</span></button> `)
	}
	if c.CanOpen && c.Remote {
		m.raw(`<button type="button" class="act open" aria-disabled="true" aria-label="Open `)
		m.esc(rowName(s))
		m.raw(` (on another machine)" title="`)
		m.esc(remoteOpenTitle)
		m.raw(`">Open</button> `)
	} else if c.CanOpen {
		m.raw(`<button type="button" class="act open" aria-label="Open `)
		m.esc(rowName(s))
		m.raw(`" data-on:click="@post('/agents-notch/open', {payload: {sessionId: el.closest('.row').dataset.sessionId}})">Open</button> `)
	}
	if settled(s) {
		m.raw(`<button type="button" class="act close" aria-label="Close out `)
		m.esc(rowName(s))
		m.raw(`" title="Close out" data-on:click="@post('/agents-notch/finish', {payload: {sessionId: el.closest('.row').dataset.sessionId}})"><span aria-hidden="true">✕</span></button>`)
	}
	m.raw(`</div></li>`)
}

// writeWhy draws why the row stopped: its kind in words, when a usage
// limit resumes (notch.js rewrites it in the viewer's clock and counts
// down to it), and the agent's own words, cut by the stylesheet with the
// whole in the tooltip.
func writeWhy(m *markup, c rowCtx) {
	m.raw(`<span class="why" data-why="`)
	m.esc(c.Why.Kind)
	m.raw(`"><span class="why-kind">`)
	m.esc(c.Why.Label)
	m.raw(`</span>`)
	if c.Resumes != "" {
		m.raw(` · <time class="why-reset" datetime="`, isoMs(c.Why.ResetsMs), `">`)
		m.esc(c.Resumes)
		m.raw(`</time>`)
	}
	if c.Why.Words != "" {
		m.raw(` <span class="why-words" title="`)
		m.esc(c.Why.Words)
		m.raw(`">`)
		m.esc(c.Why.Words)
		m.raw(`</span>`)
	}
	m.raw(`</span> `)
}

// writeSpent draws what a session's model calls used (host.Spent): the
// cost where the agent reports one, else the tokens; the tooltip has every
// count, and the last failed call's words.
func writeSpent(m *markup, sp host.Spent) {
	m.raw(`<span class="spent" title="`, fmtCount(sp.InputTokens), ` in · `, fmtCount(sp.OutputTokens), ` out · `,
		fmtCount(sp.CacheReadTokens), ` cache read · `, fmtCount(sp.CacheWriteTokens), ` cache write · `, fmtCount(sp.Calls), ` model call`)
	if sp.Calls != 1 {
		m.raw(`s`)
	}
	if sp.Errors > 0 {
		m.raw(` · `, fmtCount(sp.Errors), ` failed`)
		if sp.LastError != "" {
			m.raw(`: `)
			m.esc(sp.LastError)
		}
	}
	m.raw(` (the agent’s OpenTelemetry)">`)
	if sp.HasCost {
		m.raw(`<span class="sr-only">spent </span>`, fmtCost(&sp.CostUSD))
	} else {
		m.raw(fmtTokens(sp.Tokens()), `<span class="sr-only"> tokens</span><span aria-hidden="true"> tok</span>`)
	}
	m.raw(`</span> `)
}

// fmtCount is a count with thousands separators (2,000).
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
