package templates

import (
	"strconv"
	"strings"
	"time"

	"github.com/notch-web/notch-web/host/window"
	"github.com/notch-web/notch-web/settings"
	"github.com/notch-web/notch-web/state"
)

// PaneView is what the Settings pane draws.
type PaneView struct {
	View settings.View
	// Summary is the tab's (TabSummary): rows of a quiet machine are left
	// out of it and counted in UnknownRows.
	Summary     state.Summary
	UnknownRows int
	Unknown     bool
	// Window is the desktop window's supervisor as it stands (State "off"
	// without --window).
	Window window.Status
	// Machines are the other machines (many machines, host/mesh); nil when
	// this notch-web is no hub: the pane then has no Machines group.
	Machines []Machine
	// Pushes are the push channels (host/push), read-only; nil when this
	// notch-web pushes nothing (it follows another host).
	Pushes *Pushes
	// Devices are the paired browsers (the gate's device store).
	Devices []DeviceRow
	// HookFaults are the banners of the agents' hooks: gone from a
	// settings file, or a hook channel gone silent (none: nothing wrong).
	HookFaults []HookFault
}

// HookFault is one banner of the hooks' health, on the pane.
type HookFault struct {
	Agent     string // the agent's install name ("claude-code"), which Reinstall takes
	Text      string // what is wrong, when, and the command that fixes it
	Reinstall bool   // offer the one-click Reinstall (this machine's browser only)
}

// Pushes is the pane's Pushes group.
type Pushes struct {
	Problem  string // what is wrong with notify.json, "" for nothing
	Channels []PushChannel
}

// PushChannel is one channel as the pane lists it: where it goes, never
// its token, topic or path.
type PushChannel struct {
	Name, Type, Where string
	Send              []string
	Quiet             string
	Secret            bool
}

// pushLine is a channel's details in words.
func pushLine(c PushChannel) string {
	parts := []string{c.Type}
	if c.Where != "" {
		parts = append(parts, c.Where)
	}
	if len(c.Send) > 0 {
		parts = append(parts, "sends: "+strings.Join(c.Send, ", "))
	}
	if c.Quiet != "" {
		parts = append(parts, "quiet "+c.Quiet)
	}
	if c.Secret {
		parts = append(parts, "token set")
	}
	return strings.Join(parts, " · ")
}

// Machine is one other machine as the pane lists it.
type Machine struct {
	Name       string
	Present    bool  // its presence is live
	LastSeenMs int64 // its last presence (0: never seen)
	Sessions   int   // rows of its latest board
	Paired     bool  // paired with this hub: it can be revoked
}

// machineSessions is a machine's row count in words.
func machineSessions(n int) string {
	if n == 1 {
		return "1 session"
	}
	return strconv.Itoa(n) + " sessions"
}

// revokeClick asks before revoking the machine of the row clicked; the
// name comes from the row's data attribute, never from the script's text.
const revokeClick = `confirm('Revoke ' + el.closest('.machine').dataset.machine + '? It is disconnected at once and must pair again to come back.') && @post('/agents-notch/machines/revoke', {payload: {machine: el.closest('.machine').dataset.machine}})`

// windowState is the window's state as the pane's "Desktop window" group
// draws it: the clock-free lead of its words, with the moments notch.js
// finishes them from ("running since 10:42", "crashed; restarting in
// 12 s", "quit from the tray; back at 11:42").
type windowState struct {
	State, Lead     string
	SinceMs, NextMs string // "" when unknown
	// CanStart is whether Start now has something to do: a wait or a
	// quit hold to end.
	CanStart bool
}

func (v PaneView) window() windowState {
	ms := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	w := v.Window
	if w.State == "" {
		w.State = window.Off // no supervisor at all
	}
	return windowState{
		State: string(w.State), Lead: w.Lead(), SinceMs: ms(w.Since), NextMs: ms(w.Next),
		CanStart: w.State == window.Waiting || w.State == window.Quit,
	}
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
	// Overlay marks a key that applies where the board floats over other
	// apps — the desktop window and the pop-out — and not in a browser tab,
	// where the board is a page (it opens unfolded; a click folds it).
	Overlay bool
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

func overlayOnly(c control) control { c.Overlay = true; return c }

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
		{ID: "g-unfold", Title: "Unfolding", Note: "These apply where the board floats over other apps: the desktop window and the pop-out. In a browser tab the board is a page: it opens unfolded, and a click or Enter on its tab folds and unfolds it.", Controls: []control{
			overlayOnly(choiceControl("hoverMode", "Hover", "Ghost: the tab fades and lets clicks through until the pointer rests on it.")),
			overlayOnly(rangeControl("holdMs", "Rest before opening", "How long the pointer rests on the tab before it unfolds (ghost).", 100, "ms", "")),
			overlayOnly(boolControl("topEdgeOpens", "Top edge opens", "Pushing the pointer against the top edge over the tab opens it at once.")),
			overlayOnly(rangeControl("ghostOpacity", "Ghost opacity", "How faint the tab goes while it steps aside.", 0.01, "", "")),
		}},
		{ID: "g-window", Title: "Desktop window", Note: "The settings below apply to the desktop window only; a browser tab ignores them.", Controls: []control{
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
func (v PaneView) Phrase() string { return summaryPhrase(v.Summary, v.UnknownRows, v.Unknown) }
