package templates

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// connectAgentsURL is the README's "Connect your agents", which the empty
// board points a newcomer to.
const connectAgentsURL = "https://github.com/notch-web/notch-web#connect-your-agents"

// BoardView is what the board page draws.
type BoardView struct {
	// Doc is the schema-4 snapshot, exactly as state.json carries it.
	Doc state.Document
	// Unknown is docs/contract.md rule 3: the host's heartbeat is stale (follow mode) or no
	// document has been read yet. The page then shows the unknown state,
	// never the last summary as though it were current.
	Unknown bool
	// Follow is true when the board mirrors another host's state.json.
	Follow bool
	// NowMs is the server's clock at render, for relative times; the page
	// ticks them on the client from there.
	NowMs int64
	// UnknownRows are rows whose machine has gone quiet (many machines,
	// host/mesh): their last state, drawn as unknown, never as current.
	UnknownRows map[string]bool
	// RemoteRows are rows of other machines (a hub's board): this machine's
	// opener would act on the wrong machine, so their Open is disabled.
	RemoteRows map[string]bool
	// Approvals are the cards under the rows that ask (approval.templ).
	Approvals Approvals
	// Alert is the board's newest alert (host.Alerter); Seq 0 is none.
	Alert Alert
	// Usage is what Claude Code's statuslines told (host.Usage): the plan's
	// windows and each session's context window. The page shows it;
	// state.json does not carry it.
	Usage host.Usage
	// Ledger is the plan windows the agents told (host/ledger), drawn as
	// the sheet's strip; state.json does not carry it.
	Ledger LedgerView
	// Spent is what each session's model calls used, by its agent's own
	// OpenTelemetry (host.Spent, host/otlp), by row id.
	Spent map[string]host.Spent
	// Doors are the ways to the terminals of this host's rows that have
	// one (host/terminal), by row id: a tmux pane the host switches to, or
	// a command the page copies. Other machines' rows have none here.
	Doors map[string]terminal.Door
	// HubLink says why this joined machine is not connected to its hub
	// ("not connected to the hub: revoked", host/mesh's Node.HubLink), or
	// "": the board says it above its rows.
	HubLink string
	// Machine is this machine's name on a board of many machines
	// (host/mesh), "" on a board of one: the lane names each waiting
	// row's machine.
	Machine string
	// Zone is the clock a usage limit's reset is written in on the page
	// ("resumes 14:05"; notch.js rewrites it in the viewer's own); nil is
	// the host's (time.Local).
	Zone *time.Location
}

// Alert is an alert as the page gets it: notch.js plays one it has not
// seen, unless the board has the focus.
type Alert struct {
	Seq             int64
	Status, Session string
}

// rowCtx is what every row needs from the board around it.
type rowCtx struct {
	Budget      *int64 // nil: no real budget (docs/contract.md rule 1), so a bare token count
	HotAt       float64
	ShowProject bool
	CanOpen     bool // the document carries an openUrl
	Depth       int  // how far under its parent the row sits (0 = top level)
	Unknown     bool // its machine has gone quiet (BoardView.UnknownRows)
	Remote      bool // another machine's row (BoardView.RemoteRows): no local Open
	// Window is the context window the row's agent reports for the session
	// (Claude Code's statusline, Copilot CLI's session file, Qwen Code's
	// Stop; 0: none), and WindowPct its own share in use: a real
	// budget for the page's bar when the row gives none (rule 1).
	Window    int64
	WindowPct *float64
	// Door is the way to the session's terminal (BoardView.Doors); its
	// Kind "" draws no action.
	Door terminal.Door
	// WindowTokens is the context in use by Claude Code's count (0: not
	// reported), for a row whose tokens the host could not read.
	WindowTokens int64
	// Agent is the agent whose own hooks drive the row ("claude-code",
	// "codex", "gemini"; Approvals.Agents), "" for a harness's or a
	// script's row: its badge, the dashboard's agent column (which the
	// notch hides) and whose window its context bar is drawn against.
	Agent string
	// InLane: the row waits on the human and its cards are drawn in the
	// lane (BoardView.lane), not under it.
	InLane bool
	// BlockedSince is, for a row that does not wait itself, when the
	// oldest wait of a subagent under it began (0: none): the row waits
	// on the human too, behind it.
	BlockedSince int64
	// Why is why the row stopped (Approvals.Whys); Kind and Words ""
	// draw nothing. Resumes is its reset as the page writes it
	// ("resumes 14:05"), "" when none was said.
	Why     Why
	Resumes string
	// Spent is what the session's model calls used (BoardView.Spent);
	// Calls 0 draws nothing.
	Spent host.Spent
}

// context is what the row's context figure is drawn from: the row's budget
// (docs/contract.md rule 1) and the session's tokens; else the window
// Claude Code reports for the session (reported true), with its own count
// of the tokens in use, else its share in use, standing for the tokens when
// the host could read none (a remote session, a transcript not read yet);
// else no budget.
func (c rowCtx) context(s state.Session) (budget *int64, tokens int64, reported bool) {
	if c.Budget != nil {
		return c.Budget, s.ContextTokens, false
	}
	if c.Window > 0 {
		tokens := s.ContextTokens
		if tokens == 0 {
			tokens = c.WindowTokens
		}
		if tokens == 0 && c.WindowPct != nil {
			tokens = int64(math.Round(*c.WindowPct / 100 * float64(c.Window)))
		}
		w := c.Window
		return &w, tokens, true
	}
	return nil, s.ContextTokens, false
}

// maxDepth caps the indentation: a subagent's subagent's subagent still reads
// as "under", without walking off the board.
const maxDepth = 3

// rowCtxs returns the context of each row of v, in the document's order.
func (v BoardView) rowCtxs() []rowCtx {
	_, ctxs := v.grouped(v.settings())
	return ctxs
}

// grouped is the board's project groups and each row's context, the
// groups worked out once per render; st is v.settings(), also worked out
// once.
func (v BoardView) grouped(st settings.Settings) ([]rowGroup, []rowCtx) {
	gs := groups(v.Doc.Sessions, v.UnknownRows)
	base := rowCtx{
		Budget:      v.Doc.Context.Budget,
		HotAt:       v.Doc.Context.HotAt,
		ShowProject: st.ShowProject,
		CanOpen:     v.Doc.OpenURL != nil,
	}
	// The document's context is normal already (the host's snapshot and a
	// followed document both pass state's normalContext): drawn as published.
	depth := depths(v.Doc.Sessions)
	out := make([]rowCtx, len(v.Doc.Sessions))
	for i, s := range v.Doc.Sessions {
		out[i] = base
		out[i].Depth = depth[s.ID]
		out[i].Unknown = v.UnknownRows[s.ID]
		out[i].Remote = v.RemoteRows[s.ID]
		out[i].Door = v.Doors[s.ID]
		out[i].Agent = v.Approvals.Agents[s.ID]
		if w, ok := v.Approvals.Whys[s.ID]; ok {
			out[i].Why, out[i].Resumes = w, resumes(w.ResetsMs, v.NowMs, v.Zone)
		}
		out[i].Spent = v.Spent[s.ID]
		if u, ok := v.Usage.Sessions[s.ID]; ok {
			out[i].Window, out[i].WindowPct, out[i].WindowTokens = u.WindowSize, u.UsedPct, u.Tokens
		}
	}
	// The group's heading names the project: a row repeats it only when it
	// is not its group's (a subagent working elsewhere).
	for _, g := range gs {
		for _, list := range [][]int{g.Shown, g.Folded} {
			for _, i := range list {
				out[i].ShowProject = out[i].ShowProject && v.Doc.Sessions[i].Project != g.Name
			}
		}
	}
	return gs, out
}

// laidOut is grouped, with the lane: its entries, and each row's part in
// it (rowCtx.InLane, rowCtx.BlockedSince).
func (v BoardView) laidOut(st settings.Settings) ([]rowGroup, []rowCtx, []laneEntry) {
	gs, ctxs := v.grouped(st)
	entries, blocked := v.lane()
	if len(entries) == 0 {
		return gs, ctxs, nil
	}
	for i, s := range v.Doc.Sessions {
		ctxs[i].InLane = v.inLane(s)
		ctxs[i].BlockedSince = blocked[s.ID]
	}
	return gs, ctxs, entries
}

// depths walks each session's parent chain within the document. A parent
// that is not on the board leaves its subagent at the top level (the
// snapshot places it there too); a cycle stops the walk.
func depths(ss []state.Session) map[string]int {
	parent := make(map[string]string, len(ss))
	for _, s := range ss {
		parent[s.ID] = s.ParentSession
	}
	out := make(map[string]int, len(ss))
	for _, s := range ss {
		d, id := 0, s.ID
		for d < len(ss) {
			p, ok := parent[id]
			if !ok || p == "" || p == s.ID {
				break
			}
			if _, onBoard := parent[p]; !onBoard {
				break
			}
			d, id = d+1, p
		}
		out[s.ID] = min(d, maxDepth)
	}
	return out
}

// Moods of the bot's face. The face wears them; it never spells them out
// (the words are only its accessible label).
const (
	moodIdle     = "idle"     // opened, no turn yet
	moodThinking = "thinking" // a model turn
	moodBusy     = "busy"     // a tool call is out
	moodAsking   = "asking"   // an approval waits on the human
	moodConfused = "confused" // errorStreak 1
	moodDizzy    = "dizzy"    // errorStreak 2+
	moodDone     = "done"
	moodError    = "error"
	moodPleased  = "pleased" // 3 s after an allowed approval: set by notch.js
)

// mood is the face a session wears, as the server can know it. "pleased"
// depends on the clock, so notch.js lays it over moods that allow it.
func mood(s state.Session) string {
	switch s.Status {
	case state.StatusAttention:
		return moodAsking
	case state.StatusError:
		return moodError
	case state.StatusDone:
		return moodDone
	}
	switch {
	case s.ErrorStreak >= 2:
		return moodDizzy
	case s.ErrorStreak == 1:
		return moodConfused
	case s.Activity == nil:
		return moodIdle
	case s.Activity.Kind == state.ActivityTool:
		return moodBusy
	}
	return moodThinking
}

// moodLabel is the face's accessible name.
func moodLabel(m string) string {
	switch m {
	case moodIdle:
		return "bot waiting for its first turn"
	case moodThinking:
		return "bot thinking"
	case moodBusy:
		return "bot running a tool"
	case moodAsking:
		return "bot asking you"
	case moodConfused:
		return "bot confused by an error"
	case moodDizzy:
		return "bot dizzy from errors in a row"
	case moodDone:
		return "bot done"
	case moodError:
		return "bot failed"
	}
	return "bot"
}

// mayPlease reports whether the pleased face may replace m for 3 s after an
// allowed approval: not over a question, a failure or an error streak.
func mayPlease(m string) bool {
	return m == moodThinking || m == moodBusy || m == moodIdle || m == moodDone
}

// statusWord is the status chip's text: the legend for the tab's colours.
func statusWord(status string) string {
	switch status {
	case state.StatusWorking:
		return "working"
	case state.StatusAttention:
		return "needs you"
	case state.StatusDone:
		return "done"
	case state.StatusError:
		return "failed"
	}
	return status
}

// fmtTokens is a bare token count the way the window draws it: 850, 412k,
// 1.2M. Rounded, never padded.
func fmtTokens(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10)
	}
	if k := (n + 500) / 1000; k < 1000 {
		return strconv.FormatInt(k, 10) + "k"
	}
	m := strconv.FormatFloat(math.Round(float64(n)/1e5)/10, 'f', -1, 64)
	return m + "M"
}

// ctxFill is the bar's fill in [0, 1] and the whole percentage it stands for
// (which may pass 100: a session can run over its window).
func ctxFill(tokens, budget int64) (fill string, pct int64) {
	f := float64(tokens) / float64(budget)
	pct = int64(math.Floor(f * 100))
	return strconv.FormatFloat(math.Min(f, 1), 'f', 3, 64), pct
}

// ctxHot reports whether the bar turns amber.
func ctxHot(tokens, budget int64, hotAt float64) bool {
	return float64(tokens) >= hotAt*float64(budget)
}

// isoMs renders a host timestamp for a <time datetime>, as
// 2006-01-02T15:04:05.000Z: written digit by digit, since every row has
// one and time.Format's layout parsing was a tenth of a board's render.
func isoMs(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	var b [24]byte
	put := func(at, v, width int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, year, 4)
	b[4] = '-'
	put(5, int(month), 2)
	b[7] = '-'
	put(8, day, 2)
	b[10] = 'T'
	put(11, hour, 2)
	b[13] = ':'
	put(14, minute, 2)
	b[16] = ':'
	put(17, sec, 2)
	b[19] = '.'
	put(20, t.Nanosecond()/1e6, 3)
	b[23] = 'Z'
	return string(b[:])
}

// msAttr is a timestamp for a data attribute.
func msAttr(ms int64) string { return strconv.FormatInt(ms, 10) }

// rowID is a stable element id for a session. Session ids are arbitrary
// text; the encoding keeps the id valid and unique whatever they hold.
func rowID(sessionID string) string {
	return "row-" + base64.RawURLEncoding.EncodeToString([]byte(sessionID))
}

// rowParts are the ids of a row and of its parts, which the hub's diff
// patches one by one. They are slices of one string, built once per row.
type rowParts struct{ row, face, l1, l2, side, act string }

func partIDs(sessionID string) rowParts {
	var enc [96]byte // most ids encode here, on the stack
	rid := base64.RawURLEncoding.AppendEncode(append(enc[:0], "row-"...), []byte(sessionID))
	var b strings.Builder
	b.Grow(6*len(rid) + len("-face-l1-l2-side-act"))
	var p rowParts
	part := func(suffix string) string {
		at := b.Len()
		b.Write(rid)
		b.WriteString(suffix)
		return b.String()[at:]
	}
	p.row = part("")
	p.face = part("-face")
	p.l1 = part("-l1")
	p.l2 = part("-l2")
	p.side = part("-side")
	p.act = part("-act")
	return p
}

// rowName names a session in the labels of its buttons: its title, else its
// project, else its id.
func rowName(s state.Session) string {
	switch {
	case s.Title != "":
		return s.Title
	case s.Project != "":
		return s.Project
	}
	return s.ID
}

// settled reports whether a session may be closed out with the ✕.
func settled(s state.Session) bool { return state.Settled(s.Status) }

// urgent is the session the big bot stands for: the question waiting
// longest, else the newest failure, else the working session in the most
// trouble (then the newest), else the newest finished one.
func urgent(ss []state.Session) (state.Session, bool) {
	return urgentOf(ss, func(*state.Session) bool { return true })
}

// urgentOf is urgent among the sessions keep picks, without copying them.
func urgentOf(ss []state.Session, keep func(*state.Session) bool) (state.Session, bool) {
	better := func(a, b *state.Session) bool {
		if ra, rb := state.Relevance(a.Status), state.Relevance(b.Status); ra != rb {
			return ra < rb
		}
		switch a.Status {
		case state.StatusAttention:
			return a.Since < b.Since
		case state.StatusWorking:
			if a.ErrorStreak != b.ErrorStreak {
				return a.ErrorStreak > b.ErrorStreak
			}
		}
		return a.Since > b.Since
	}
	var best *state.Session
	for i := range ss {
		if s := &ss[i]; keep(s) && (best == nil || better(s, best)) {
			best = s
		}
	}
	if best == nil {
		return state.Session{}, false
	}
	return *best, true
}

// island is the tab's alert island per the alerts setting: the session it
// points at and its kind, or ok false when nothing is to be shown.
func island(v BoardView, alerts string) (s state.Session, ok bool) {
	if v.Unknown || alerts == "off" {
		return state.Session{}, false
	}
	return urgentOf(v.Doc.Sessions, func(s *state.Session) bool {
		if v.UnknownRows[s.ID] {
			return false // a quiet machine's last state is not current
		}
		switch s.Status {
		case state.StatusAttention, state.StatusError:
			return true
		case state.StatusDone:
			return alerts == "all"
		}
		return false
	})
}

// tabCount is one of the folded tab's counts.
type tabCount struct {
	Status string
	N      int
}

// Text is the count as the tab draws it: the done count wears a ✓.
func (c tabCount) Text() string {
	switch c.Status {
	case state.StatusDone:
		return "✓" + strconv.Itoa(c.N)
	case statusUnknown:
		return "?" + strconv.Itoa(c.N)
	}
	return strconv.Itoa(c.N)
}

// statusUnknown is the tab's count of rows whose machine has gone quiet:
// their last state is not current, so they count as neither working nor
// needing the human.
const statusUnknown = "unknown"

// TabSummary is the summary the tab draws, and the number of rows it
// counts as unknown: the document's summary, less the rows whose machine
// has gone quiet (UnknownRows), which are counted apart. With no such rows
// it is the document's own.
func TabSummary(doc state.Document, unknownRows map[string]bool) (state.Summary, int) {
	if len(unknownRows) == 0 {
		return doc.Summary, 0
	}
	known := make([]state.Session, 0, len(doc.Sessions))
	for _, s := range doc.Sessions {
		if !unknownRows[s.ID] {
			known = append(known, s)
		}
	}
	n := len(doc.Sessions) - len(known)
	if n == 0 {
		return doc.Summary, 0
	}
	sum := state.Summarize(known)
	sum.Total = len(doc.Sessions)
	return sum, n
}

// tabSummary is TabSummary of the board.
func (v BoardView) tabSummary() (state.Summary, int) { return TabSummary(v.Doc, v.UnknownRows) }

// tabCounts are the tab's non-zero counts, most urgent first: the same
// order as the summary phrase, so the legend reads like the tab's name.
// unknown rows (a quiet machine's) come last, as their own count.
func tabCounts(sum state.Summary, unknown int) []tabCount {
	var out []tabCount
	for _, c := range []tabCount{
		{state.StatusAttention, sum.Attention},
		{state.StatusError, sum.Error},
		{state.StatusWorking, sum.Working},
		{state.StatusDone, sum.Done},
		{statusUnknown, unknown},
	} {
		if c.N > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Phrase is the terse line the polite live region announces when it
// changes, e.g. "notch-web: 1 needs you, 2 working".
func (v BoardView) Phrase() string {
	sum, n := v.tabSummary()
	return summaryPhrase(sum, n, v.Unknown)
}

func summaryPhrase(sum state.Summary, unknownRows int, unknown bool) string {
	if unknown {
		return "notch-web: status unknown"
	}
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+what)
		}
	}
	add(sum.Attention, "needs you")
	add(sum.Error, "failed")
	add(sum.Working, "working")
	add(sum.Done, "done")
	add(unknownRows, "unknown")
	if len(parts) == 0 {
		return "notch-web: no sessions"
	}
	return "notch-web: " + strings.Join(parts, ", ")
}

// settings are the settings the board applies: the document's, clamped,
// or the defaults when no document has been read (a zero document carries
// no settings at all, not settings of zero).
func (v BoardView) settings() settings.Settings {
	if v.Doc.Schema == 0 {
		return settings.Defaults
	}
	return v.Doc.Settings.Clamped()
}

// boardVars is the board's custom properties as a style element of its own
// (#board-vars), so that a new scale or opacity patches this element, not
// the board. Its text is boardStyle's: numbers of the clamped settings.
func boardVars(s settings.Settings) templ.Component {
	return templ.Raw(`<style id="board-vars">#board{` + boardStyle(s) + `}</style>`)
}

// boardStyle carries the settings that apply to the whole page as CSS
// custom properties.
func boardStyle(s settings.Settings) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return "--scale:" + f(s.Scale) + ";--opacity:" + f(s.Opacity) +
		";--ghost-opacity:" + f(s.GhostOpacity) + ";--max-rows:" + strconv.Itoa(s.MaxRows)
}

// remoteOpenTitle says why a remote row's Open does nothing: the opener
// configured here acts on this machine, and the session runs on another.
const remoteOpenTitle = "This session runs on another machine, and the opener here acts on this machine only: open it there"

// resumes is when a usage limit resets, as the row writes it: "resumes
// 14:05" within 20 hours of now, "resumes Mon 09:00" later, in zone (nil:
// the host's); "" for no reset. A reset passed reads "may resume now".
func resumes(resetsMs, nowMs int64, zone *time.Location) string {
	if resetsMs <= 0 {
		return ""
	}
	if resetsMs <= nowMs {
		return "may resume now"
	}
	if zone == nil {
		zone = time.Local
	}
	at := time.UnixMilli(resetsMs).In(zone)
	if resetsMs-nowMs < 20*3600*1000 {
		return "resumes " + at.Format("15:04")
	}
	return "resumes " + at.Format("Mon 15:04")
}
