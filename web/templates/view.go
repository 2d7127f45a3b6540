// Package templates holds the templ components of notch-web's two live
// pages: the board (the folded tab and its rows, mirroring the desktop
// overlay) and the Settings pane. Components take view models and never do
// I/O; the hub renders each once per change and sends the same bytes to every
// open tab.
package templates

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// BoardView is what the board page draws.
type BoardView struct {
	// Doc is the schema-4 snapshot, exactly as state.json carries it.
	Doc state.Document
	// Unknown is rule 3: the host's heartbeat is stale (follow mode) or no
	// document has been read yet. The page then shows the unknown state,
	// never the last summary as though it were current.
	Unknown bool
	// Follow is true when the board mirrors another host's state.json.
	Follow bool
	// NowMs is the server's clock at render, for relative times; the page
	// ticks them on the client from there.
	NowMs int64
}

// PaneView is what the Settings pane draws.
type PaneView struct {
	View    settings.View
	Summary state.Summary
	Unknown bool
}

// The rest of this file turns the view models into the small facts the
// components draw. It is plain Go so the golden tests can pin it down, and it
// never reads a clock: everything that depends on "now" (relative times, the
// pleased face) is computed on the client from data attributes, so the same
// view always renders to the same bytes.

// rowCtx is what every row needs from the board around it.
type rowCtx struct {
	Budget      *int64 // nil: no real budget (rule 1), so a bare token count
	HotAt       float64
	ShowProject bool
	CanOpen     bool // the document carries an openUrl
	Depth       int  // how far under its parent the row sits (0 = top level)
}

// maxDepth caps the indentation: a subagent's subagent's subagent still reads
// as "under", without walking off the board.
const maxDepth = 3

// rowCtxs returns the context of each row of v, in the document's order.
func (v BoardView) rowCtxs() []rowCtx {
	base := rowCtx{
		Budget:      v.Doc.Context.Budget,
		HotAt:       v.Doc.Context.HotAt,
		ShowProject: v.settings().ShowProject,
		CanOpen:     v.Doc.OpenURL != nil,
	}
	// The document's context is normal already (the host's snapshot and a
	// followed document both pass state's normalContext): drawn as published.
	depth := depths(v.Doc.Sessions)
	out := make([]rowCtx, len(v.Doc.Sessions))
	for i, s := range v.Doc.Sessions {
		out[i] = base
		out[i].Depth = depth[s.ID]
	}
	return out
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

// isoMs renders a host timestamp for a <time datetime>.
func isoMs(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

// msAttr is a timestamp for a data attribute.
func msAttr(ms int64) string { return strconv.FormatInt(ms, 10) }

// rowID is a stable element id for a session. Session ids are arbitrary
// text; the encoding keeps the id valid and unique whatever they hold.
func rowID(sessionID string) string {
	return "row-" + base64.RawURLEncoding.EncodeToString([]byte(sessionID))
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
func settled(s state.Session) bool {
	return s.Status == state.StatusDone || s.Status == state.StatusError
}

// relevance orders sessions for the big bot: the human's attention first.
func relevance(status string) int {
	switch status {
	case state.StatusAttention:
		return 0
	case state.StatusError:
		return 1
	case state.StatusWorking:
		return 2
	case state.StatusDone:
		return 3
	}
	return 4
}

// urgent is the session the big bot stands for: the question waiting
// longest, else the newest failure, else the working session in the most
// trouble (then the newest), else the newest finished one.
func urgent(ss []state.Session) (state.Session, bool) {
	best := -1
	better := func(a, b state.Session) bool {
		if ra, rb := relevance(a.Status), relevance(b.Status); ra != rb {
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
	for i, s := range ss {
		if best < 0 || better(s, ss[best]) {
			best = i
		}
	}
	if best < 0 {
		return state.Session{}, false
	}
	return ss[best], true
}

// island is the tab's alert island per the alerts setting: the session it
// points at and its kind, or ok false when nothing is to be shown.
func island(v BoardView) (s state.Session, ok bool) {
	alerts := v.settings().Alerts
	if v.Unknown || alerts == "off" {
		return state.Session{}, false
	}
	var pick []state.Session
	for _, s := range v.Doc.Sessions {
		switch s.Status {
		case state.StatusAttention, state.StatusError:
			pick = append(pick, s)
		case state.StatusDone:
			if alerts == "all" {
				pick = append(pick, s)
			}
		}
	}
	return urgent(pick)
}

// Phrase is the terse line the polite live region announces when it
// changes, e.g. "notch-web: 1 needs you, 2 working".
func (v BoardView) Phrase() string { return summaryPhrase(v.Doc.Summary, v.Unknown) }

func summaryPhrase(sum state.Summary, unknown bool) string {
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

// boardStyle carries the settings that apply to the whole page as CSS
// custom properties.
func boardStyle(s settings.Settings) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return "--scale:" + f(s.Scale) + ";--opacity:" + f(s.Opacity) +
		";--ghost-opacity:" + f(s.GhostOpacity) + ";--max-rows:" + strconv.Itoa(s.MaxRows)
}

// Kinds of pane control.
const (
	kindRange  = "range"
	kindBool   = "bool"
	kindChoice = "choice"
	kindScreen = "screen"
)

// control is one of the fourteen keys as the pane draws it.
type control struct {
	Key     string
	Label   string
	Help    string
	Kind    string
	Min     float64 // kindRange: the clamp range, from settings.Range
	Max     float64
	Step    float64
	Unit    string
	Choices []choice
	// Window marks a key only the desktop window applies.
	Window bool
	// Preview names the CSS custom property of the live preview a range
	// moves while it is dragged (before anything is posted).
	Preview string
}

// choice is one value of an enumerated key.
type choice struct{ Value, Label string }

// group is a titled set of controls.
type group struct {
	ID, Title, Note string
	Controls        []control
}

// choiceLabels are the words the pane puts on enum values; the values
// themselves come from settings.Choices, so the pane can never offer one
// the host would refuse.
var choiceLabels = map[string]string{
	"top-center": "Center", "top-left": "Left", "top-right": "Right",
	"auto": "Follow the system", "on": "On", "off": "Off",
	"ghost": "Ghost", "open": "Open on hover",
	"all": "All", "needs-you": "Needs you",
}

func rangeControl(key, label, help string, step float64, unit, preview string) control {
	lo, hi, _ := settings.Range(key)
	return control{Key: key, Label: label, Help: help, Kind: kindRange, Min: lo, Max: hi, Step: step, Unit: unit, Preview: preview}
}

func choiceControl(key, label, help string) control {
	c := control{Key: key, Label: label, Help: help, Kind: kindChoice}
	for _, v := range settings.Choices(key) {
		l, ok := choiceLabels[v]
		if !ok {
			l = v
		}
		if key == "alerts" && v == "off" {
			l = "None"
		}
		c.Choices = append(c.Choices, choice{Value: v, Label: l})
	}
	return c
}

func boolControl(key, label, help string) control {
	return control{Key: key, Label: label, Help: help, Kind: kindBool}
}

func windowOnly(c control) control { c.Window = true; return c }

// paneGroups lays out the fourteen keys, each exactly once.
func paneGroups() []group {
	return []group{
		{ID: "g-look", Title: "Look", Controls: []control{
			rangeControl("scale", "Scale", "Size of the whole notch.", 0.05, "×", "--scale"),
			rangeControl("opacity", "Opacity", "How much of what is behind it the notch covers.", 0.05, "", "--opacity"),
			choiceControl("anchor", "Anchor", "Where the folded tab sits along the top edge."),
			choiceControl("motion", "Motion", "Animations; “Follow the system” honours reduced motion."),
		}},
		{ID: "g-board", Title: "Board", Controls: []control{
			rangeControl("maxRows", "Rows shown", "Rows before the list scrolls; the big bot counts as one.", 1, "", ""),
			boolControl("showProject", "Show the project", "The project name in each row's sub line (the colour chips stay)."),
			boolControl("showDone", "Show finished sessions", "Off removes done rows from the board and from its counts."),
			choiceControl("alerts", "Alert island", "All: questions, failures and finishes. Needs you: questions and failures."),
		}},
		{ID: "g-unfold", Title: "Unfolding", Controls: []control{
			choiceControl("hoverMode", "Hover", "Ghost: the tab fades and lets clicks through until the pointer rests on it."),
			rangeControl("holdMs", "Rest before opening", "How long the pointer rests on the tab before it unfolds (ghost).", 100, "ms", ""),
			boolControl("topEdgeOpens", "Top edge opens", "Pushing the pointer against the top edge over the tab opens it at once."),
			rangeControl("ghostOpacity", "Ghost opacity", "How faint the tab goes while it steps aside.", 0.01, "", ""),
		}},
		{ID: "g-window", Title: "Desktop window", Note: "These apply to the desktop window only; a browser tab ignores them.", Controls: []control{
			{Key: "screen", Label: "Screen", Help: `"primary", "cursor" (the screen the pointer is on) or a display number, 1-based.`, Kind: kindScreen, Window: true},
			windowOnly(boolControl("hideFullscreen", "Hide over full-screen apps", "The window hides itself while a full-screen app is in front.")),
		}},
	}
}

// fmtValue renders a setting's value the way the pane shows it.
func fmtValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case bool:
		if x {
			return "on"
		}
		return "off"
	case string:
		return x
	case nil:
		return ""
	}
	return ""
}

// withUnit appends a control's unit to a value.
func withUnit(c control, v any) string {
	s := fmtValue(v)
	switch c.Unit {
	case "":
		return s
	case "×":
		return s + "×"
	}
	return s + " " + c.Unit
}

// rangeValue is a numeric setting as an input's value attribute.
func rangeValue(v any) string { return fmtValue(v) }

// numAttr renders a bound or step for an input attribute.
func numAttr(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// keyWarnings are the warnings about one key.
func keyWarnings(ws []settings.Warning, key string) []settings.Warning {
	var out []settings.Warning
	for _, w := range ws {
		if w.Key == key {
			out = append(out, w)
		}
	}
	return out
}

// sourceTitle explains a layer in words.
func sourceTitle(src string) string {
	switch src {
	case settings.SourceRow:
		return "set by the plugin row in cordis.patch.yml"
	case settings.SourcePane:
		return "set here, in the pane"
	}
	return "the default"
}

// postSetting is the Datastar expression that posts exactly one key.
// Keys are the fixed identifiers of settings.Keys, never user text.
func postSetting(key, value string) string {
	return "@post('/agents-notch/settings', {payload: {" + key + ": " + value + "}})"
}

// The Datastar expressions of the pane's controls.
func onRange(key string) string  { return postSetting(key, "+el.value") }
func onBool(key string) string   { return postSetting(key, "el.checked") }
func onChoice(key string) string { return postSetting(key, "el.value") }
func onReset(key string) string  { return postSetting(key, "null") }

// onScreen posts only what the host will take (the same grammar as
// settings.ParseValue); anything else stays here with its reason shown.
func onScreen() string {
	return "el.checkValidity() && " + postSetting("screen", "el.value.trim()")
}

// screenPattern is settings' display grammar as an HTML pattern: "primary",
// "cursor" or "1" … "64" without leading zeros.
const screenPattern = `\s*(primary|cursor|[1-9]|[1-5][0-9]|6[0-4])\s*`

// screenReason is what the host says of a display it refuses.
const screenReason = `Want "primary", "cursor" or a display number 1 … 64.`

// budgetText describes the row's context budget.
func budgetText(c settings.RowContext) string {
	if c.Budget == nil {
		return "not known: rows show a bare token count, no bar and no percentage"
	}
	return groupThousands(*c.Budget) + " tokens; the bar turns amber at " +
		strconv.FormatFloat(c.HotAt*100, 'f', -1, 64) + "%"
}

// retireText describes how settled rows leave.
func retireText(r string) string {
	if r == "timer" {
		return "timer: a finished or failed row leaves after a while, since the harness's close-out is unavailable"
	}
	return "route: a finished or failed row stays until it is closed out (the ✕, or the harness)"
}

func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// anyStored reports whether the pane layer holds anything to reset.
func (v PaneView) anyStored() bool { return len(v.View.Stored) > 0 }

// Phrase is the pane's line for the polite live region.
func (v PaneView) Phrase() string { return summaryPhrase(v.Summary, v.Unknown) }
