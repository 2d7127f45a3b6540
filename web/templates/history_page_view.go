package templates

import (
	"cmp"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/state"
)

// PageHistory names the History page (data-page).
const PageHistory = "history"

// HistoryView is the History page's view model (GET /agents-notch/history
// without session=): what the store answered for the page's query, as of
// NowMs in Loc. Like the board's, it never reads a clock: the same view
// renders to the same bytes.
type HistoryView struct {
	// Launch: the viewer may start sessions (its role): the page shows
	// Resume on the sessions of agents that resume by id.
	Launch bool
	// Off: this notch-web keeps no history (no store: a follower).
	Off bool
	// Problem is why the history is unavailable (store.Problem), "" when
	// it is there.
	Problem string

	Query store.Query
	Loc   *time.Location
	NowMs int64
	// Day is the day the pictures and the headline are of: the query's
	// day, else today (local midnight in Loc).
	Day      time.Time
	Headline store.Headline
	Spans    []store.Span   // the day's bands, from store.Day
	Bars     []store.DayBar // the last BarDays days, oldest first
	// ByAgent is the same days' tokens and cost per agent (store.AgentDays),
	// nil where the store keeps none.
	ByAgent  []store.AgentDay
	Sessions []HistorySession
	Total    int // sessions that match the query (Sessions is one page of them)

	// The filters' choices, from store.Facets.
	Projects, Machines, Agents []string
}

// HistorySession is one listed session with what its unfolding shows.
type HistorySession struct {
	Session store.Session
	Turns   []store.Turn
	Answers []store.Answer
}

// BarDays is how many days the bars show.
const BarDays = 30

// Bounds on hostile text: a title in the list, a label in a chart, any other
// field (project, machine, agent, tool, by).
const (
	maxListText  = 160
	maxLabelText = 44
	maxFieldText = 60
	// maxLanes is how many sessions the timeline draws; its table lists
	// every band.
	maxLanes = 40
)

// Empty reports a store that holds nothing yet (its own state on the page,
// which is not "nothing matches").
func (v HistoryView) Empty() bool {
	return v.Total == 0 && len(v.Machines) == 0 && len(v.Projects) == 0 && len(v.Agents) == 0
}

// Filtered reports whether the query narrows the list.
func (v HistoryView) Filtered() bool {
	q := v.Query
	return len(q.Words) > 0 || !q.Day.IsZero() || q.Project != "" || q.Machine != "" || q.Agent != "" || q.Outcome != ""
}

// today is the local midnight of NowMs.
func (v HistoryView) today() time.Time { return midnight(time.UnixMilli(v.NowMs).In(v.loc())) }

func (v HistoryView) loc() *time.Location {
	if v.Loc == nil {
		return time.UTC
	}
	return v.Loc
}

func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// dayName is the day the headline is of, in words: "Today", or its date.
func (v HistoryView) dayName() string {
	if v.Day.Equal(v.today()) {
		return "Today"
	}
	return v.Day.Format("Mon 2 Jan 2006")
}

// clean is outside text as the page shows it: hidden characters (controls,
// bidi overrides, zero-width marks; internal/textrule) replaced, at most max
// runes, an ellipsis where it was cut.
func clean(s string, max int) string {
	cut := false
	if len(s) > 4*max {
		// A megabyte title costs no more than its shown part.
		i := 4 * max
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	s = textrule.Replace(strings.ReplaceAll(s, "\t", " "), utf8.RuneError)
	if !cut && utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s + "…"
}

// project is a session's project, else its cwd's last segment (the
// board's rule, state.ProjectFromCwd).
func project(s store.Session) string {
	if s.Project != "" {
		return s.Project
	}
	return state.ProjectFromCwd(s.Cwd)
}

// machineName is a machine as the page names it.
func machineName(m string) string {
	if m == store.Local || m == "" {
		return "this machine"
	}
	return clean(m, maxFieldText)
}

// sessionName names a session: its title, else its project, else its id.
func sessionName(title, project, id string, max int) string {
	switch {
	case strings.TrimSpace(title) != "":
		return clean(title, max)
	case project != "":
		return clean(project, max)
	}
	return clean(id, max)
}

// hsID is a listed session's element id, stable across renders (the live
// patches morph by it) and valid whatever the machine and id hold.
func hsID(machine, id string) string {
	h := fnv.New64a()
	h.Write([]byte(machine))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return "hs-" + strconv.FormatUint(h.Sum64(), 36)
}

// fmtDur is a span of time in words: 45 s, 12 min, 1 h 5 min.
func fmtDur(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	s := (ms + 500) / 1000
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + " s"
	case s < 3600:
		return strconv.FormatInt((s+30)/60, 10) + " min"
	}
	m := (s + 30) / 60
	if m%60 == 0 {
		return strconv.FormatInt(m/60, 10) + " h"
	}
	return strconv.FormatInt(m/60, 10) + " h " + strconv.FormatInt(m%60, 10) + " min"
}

// fmtCost is a cost an agent reported, in dollars; nil is "—" (no agent
// reported one: we never price a session ourselves).
func fmtCost(c *float64) string {
	if c == nil {
		return "—"
	}
	if *c < 10 {
		return "$" + strconv.FormatFloat(*c, 'f', 2, 64)
	}
	return "$" + strconv.FormatFloat(*c, 'f', 0, 64)
}

// clock is a time of the day in Loc; with the date when it is not day's.
func (v HistoryView) clock(ms int64, day time.Time) string {
	if ms == 0 {
		return "—"
	}
	t := time.UnixMilli(ms).In(v.loc())
	if midnight(t).Equal(day) {
		return t.Format("15:04")
	}
	if t.Year() == day.Year() {
		return t.Format("2 Jan 15:04")
	}
	return t.Format("2 Jan 2006 15:04")
}

// started is a session's or a turn's start as the list shows it: the time
// alone today, with the date before.
func (v HistoryView) started(ms int64) string { return v.clock(ms, v.today()) }

// sessionOutcome is a session's outcome in a word.
func sessionOutcome(s store.Session) string {
	switch {
	case s.Outcome != "":
		return clean(s.Outcome, maxFieldText)
	case s.EndedMs == 0:
		return "open"
	}
	return "ended"
}

// duration is a session's length: to its end, or so far.
func (v HistoryView) duration(started, ended int64) string {
	if started == 0 {
		return "—"
	}
	if ended == 0 {
		return fmtDur(v.NowMs-started) + " so far"
	}
	return fmtDur(ended - started)
}

// toolsUsed is a turn's tools, the most used first: "Bash ×4, Read ×2".
func toolsUsed(tools map[string]int) string {
	if len(tools) == 0 {
		return "—"
	}
	names := make([]string, 0, len(tools))
	for n, c := range tools {
		if c > 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "—"
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(tools[b], tools[a]), cmp.Compare(a, b))
	})
	var b strings.Builder
	for i, n := range names {
		if i == 12 {
			b.WriteString(", and " + strconv.Itoa(len(names)-12) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(clean(n, maxFieldText) + " ×" + strconv.Itoa(tools[n]))
	}
	return b.String()
}

// waited is how long an answer kept the agent waiting on the human.
// answeredBy is an answer's By cell: how it was answered and, where one is
// known, the device it was answered on ("board · phone", "push · ntfy
// phone"); the terminal and a hold's end have none. A device's name is
// text someone gave (or another machine sent), shown bounded like any.
func answeredBy(a store.Answer) string {
	by := orDash(clean(a.By, maxFieldText))
	if a.Device == "" {
		return by
	}
	return by + " · " + clean(a.Device, maxFieldText)
}

func waited(a store.Answer) string {
	if a.AnsweredMs == 0 || a.AskedMs == 0 {
		return "—"
	}
	return fmtDur(a.AnsweredMs - a.AskedMs)
}

// pct is a fraction of a chart's width, as an SVG length.
func pct(f float64) string {
	return strconv.FormatFloat(math.Round(f*100000)/1000, 'f', -1, 64) + "%"
}

// px is a length in user units.
func px(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) }

// Lane is one session's row of the timeline.
type lane struct {
	Machine, Session, Name string
	Bands                  []band
	WaitMs                 int64
	Y                      int
}

// band is one status of a lane, placed along the day.
type band struct {
	Status string
	X, W   string // percentages of the day
	FromMs int64
	ToMs   int64
}

// Timeline geometry, in px: each lane has its label over its bands.
const (
	laneH    = 30
	axisH    = 18
	bandTopY = 14
)

// dayBounds are the day's start and end in ms (a day of 23 or 25 hours on
// a clock change is what it is).
func (v HistoryView) dayBounds() (from, to int64) {
	return v.Day.UnixMilli(), v.Day.AddDate(0, 0, 1).UnixMilli()
}

// minWindow is the least stretch of the day the timeline draws.
const minWindow = 2 * time.Hour

// window is the stretch of the day the timeline draws: the hours its
// work and waits fall in, whole hours, at least minWindow, so a
// wait of a few minutes is seen; the whole day when there is nothing.
func (v HistoryView) window() (from, to int64) {
	dayFrom, dayTo := v.dayBounds()
	lo, hi := dayTo, dayFrom
	for _, s := range v.Spans {
		if !active(s.Status) {
			continue
		}
		lo = min(lo, max(s.FromMs, dayFrom))
		hi = max(hi, min(v.spanEnd(s), dayTo))
	}
	if hi <= lo {
		return dayFrom, dayTo
	}
	hour := int64(time.Hour / time.Millisecond)
	lo = dayFrom + (lo-dayFrom)/hour*hour
	hi = dayFrom + (hi-dayFrom+hour-1)/hour*hour
	if w := minWindow.Milliseconds(); hi-lo < w {
		lo = max(dayFrom, hi-w)
		hi = min(dayTo, lo+w)
	}
	return lo, hi
}

// spanEnd is a span's end: a still-open span runs to now (or the day's end).
func (v HistoryView) spanEnd(s store.Span) int64 {
	_, to := v.dayBounds()
	if s.ToMs != 0 {
		return s.ToMs
	}
	return min(max(v.NowMs, s.FromMs), to)
}

// active reports whether a band is work or a wait: the bands that make a
// session part of a day. A settled session stays done (or error) until it
// is closed out, days on end; that is no part of the day's work.
func active(status string) bool { return status == "working" || status == "attention" }

// DaySpans are the day's bands of the sessions that worked or waited that
// day: what the timeline draws and its table lists.
func (v HistoryView) DaySpans() []store.Span {
	worked := map[[2]string]bool{}
	for _, s := range v.Spans {
		if active(s.Status) {
			worked[[2]string{s.Machine, s.Session}] = true
		}
	}
	var out []store.Span
	for _, s := range v.Spans {
		if worked[[2]string{s.Machine, s.Session}] {
			out = append(out, s)
		}
	}
	return out
}

// lanes groups the day's spans by session, in the order they first
// appear, at most maxLanes of them; more says how many were left out.
func (v HistoryView) lanes() (ls []lane, more int) {
	from, to := v.window()
	length := float64(to - from)
	at := map[string]int{}
	for _, s := range v.DaySpans() {
		k := s.Machine + "\x00" + s.Session
		i, ok := at[k]
		if !ok {
			if len(ls) == maxLanes {
				at[k] = -1
				more++
				continue
			}
			i = len(ls)
			at[k] = i
			name := sessionName(s.Title, "", s.Session, maxLabelText)
			if s.Machine != store.Local && s.Machine != "" {
				name += " · " + clean(s.Machine, 20)
			}
			ls = append(ls, lane{Machine: s.Machine, Session: s.Session, Name: name, Y: axisH + i*laneH})
		}
		if i < 0 {
			continue
		}
		a, b := max(s.FromMs, from), min(v.spanEnd(s), to)
		if b <= a {
			continue
		}
		x, w := float64(a-from)/length, float64(b-a)/length
		// The shortest band still shows (a half-minute wait is a pixel at
		// most otherwise); the table has it exactly.
		w = max(w, 0.004)
		x = min(x, 1-w)
		ls[i].Bands = append(ls[i].Bands, band{Status: spanStatus(s.Status), X: pct(x), W: pct(w), FromMs: a, ToMs: b})
		if s.Status == "attention" {
			ls[i].WaitMs += b - a
		}
	}
	return ls, more
}

// spanStatus is one of the statuses the stylesheet colours.
func spanStatus(s string) string {
	switch s {
	case "working", "attention", "done", "error":
		return s
	}
	return "idle"
}

// spanWord is a band's status in words, as the legend says it.
func spanWord(s string) string {
	switch s {
	case "attention":
		return "needs you"
	case "idle":
		return "other"
	}
	return s
}

// timelineHeight is the timeline's height for n lanes.
func timelineHeight(n int) string { return strconv.Itoa(axisH + max(n, 1)*laneH) }

// hourTick is one mark of the timeline's axis; a minor one loses its
// label on a narrow page.
type hourTick struct {
	X      string
	Label  string
	Anchor string
	Minor  bool
}

// hourTicks mark the window's hours, every one to six of them so there
// are at most nine.
func (v HistoryView) hourTicks() []hourTick {
	from, to := v.window()
	hour := time.Hour.Milliseconds()
	step := int64(1)
	for _, s := range []int64{1, 2, 3, 4, 6} {
		step = s
		if (to-from)/hour/s <= 8 {
			break
		}
	}
	var ts []hourTick
	for i, t := 0, from; t <= to; i, t = i+1, t+step*hour {
		f := float64(t-from) / float64(to-from)
		a := "middle"
		switch {
		case t == from:
			a = "start"
		case t+step*hour > to:
			a = "end"
		}
		ts = append(ts, hourTick{X: pct(f), Label: time.UnixMilli(t).In(v.loc()).Format("15:04"), Anchor: a, Minor: i%2 == 1})
	}
	return ts
}

// nowX is where now falls on the day drawn, ok false when it is not today.
func (v HistoryView) nowX() (string, bool) {
	from, to := v.window()
	if v.NowMs < from || v.NowMs >= to {
		return "", false
	}
	return pct(float64(v.NowMs-from) / float64(to-from)), true
}

// metric is one of the per-day bar charts.
type metric struct {
	ID, Name string
	// Unit says what a value counts, for the table's head.
	Unit   string
	Alert  bool // drawn in the alert colour (the waits on you)
	Values []float64
	Known  []bool // false: nothing reported that day (cost)
	Format func(float64) string
}

// metrics are the per-day charts; cost only when some agent reported one.
func (v HistoryView) metrics() []metric {
	n := len(v.Bars)
	mk := func(id, name, unit string, f func(store.DayBar) float64, format func(float64) string) metric {
		m := metric{ID: id, Name: name, Unit: unit, Values: make([]float64, n), Known: make([]bool, n), Format: format}
		for i, b := range v.Bars {
			m.Values[i], m.Known[i] = f(b), true
		}
		return m
	}
	count := func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	minutes := func(x float64) string { return strconv.FormatFloat(math.Round(x), 'f', 0, 64) }
	ms := []metric{
		mk("sessions", "Sessions", "sessions", func(b store.DayBar) float64 { return float64(b.Sessions) }, count),
		mk("turns", "Turns", "turns", func(b store.DayBar) float64 { return float64(b.Turns) }, count),
		mk("working", "Minutes working", "minutes", func(b store.DayBar) float64 { return float64(b.WorkingMs) / 60000 }, minutes),
		mk("waiting", "Minutes waiting on you", "minutes", func(b store.DayBar) float64 { return float64(b.WaitingMs) / 60000 }, minutes),
		mk("tokens", "Tokens", "tokens", func(b store.DayBar) float64 { return float64(b.Tokens) }, func(x float64) string { return fmtTokens(int64(x)) }),
	}
	ms[3].Alert = true
	cost := metric{ID: "cost", Name: "Cost reported", Unit: "dollars", Values: make([]float64, n), Known: make([]bool, n), Format: func(x float64) string { return fmtCost(&x) }}
	any := false
	for i, b := range v.Bars {
		if b.CostUSD != nil {
			cost.Values[i], cost.Known[i], any = *b.CostUSD, true, true
		}
	}
	if any {
		ms = append(ms, cost)
	}
	return ms
}

// costReported reports whether any day of the bars has a cost.
func (v HistoryView) costReported() bool {
	for _, b := range v.Bars {
		if b.CostUSD != nil {
			return true
		}
	}
	return false
}

// Bar chart geometry, in px.
const barsH = 56

// bar is one day's bar of a metric.
type bar struct {
	X, W string
	Y, H string
	Day  string
}

// total is a metric's sum over the days.
func (m metric) total() float64 {
	t := 0.0
	for i, x := range m.Values {
		if m.Known[i] {
			t += x
		}
	}
	return t
}

// bars places a metric's bars: each day a slot of the width, the tallest
// day the chart's height.
func (m metric) bars(days []store.DayBar) []bar {
	top := 0.0
	for _, x := range m.Values {
		top = max(top, x)
	}
	n := len(m.Values)
	if n == 0 || top <= 0 {
		return nil
	}
	slot := 1 / float64(n)
	var bs []bar
	for i, x := range m.Values {
		if !m.Known[i] || x <= 0 {
			continue
		}
		h := max(x/top*barsH, 1.5)
		bs = append(bs, bar{X: pct(float64(i)*slot + slot*0.12), W: pct(slot * 0.76), Y: px(barsH - h), H: px(h), Day: days[i].Day.Format("Mon 2 Jan")})
	}
	return bs
}

// most is a metric's largest day in words, for its caption.
func (m metric) most(days []store.DayBar) string {
	best := -1
	for i, x := range m.Values {
		if m.Known[i] && x > 0 && (best < 0 || x > m.Values[best]) {
			best = i
		}
	}
	if best < 0 {
		return "none"
	}
	return m.Format(m.Values[best]) + " on " + days[best].Day.Format("2 Jan")
}

// cell is a metric's value of one day, for its table.
func (m metric) cell(i int) string {
	if !m.Known[i] {
		return "—"
	}
	return m.Format(m.Values[i])
}

// barsRange names the bars' days: "4 Nov – 3 Dec".
func (v HistoryView) barsRange() string {
	if len(v.Bars) == 0 {
		return ""
	}
	return v.Bars[0].Day.Format("2 Jan") + " – " + v.Bars[len(v.Bars)-1].Day.Format("2 Jan")
}

// pageLink is the page's URL for the same query at another offset.
func (v HistoryView) pageLink(offset int) string {
	q := v.Query
	q.Offset = max(offset, 0)
	return historyURL(q)
}

// historyURL is the History page's URL for a query.
func historyURL(q store.Query) string {
	if enc := q.Values().Encode(); enc != "" {
		return "/agents-notch/history?" + enc
	}
	return "/agents-notch/history"
}

// StreamURL is the page's live stream for its query.
func (v HistoryView) StreamURL() string {
	q := v.Query
	if enc := q.Values().Encode(); enc != "" {
		return "/agents-notch/history/stream?" + enc
	}
	return "/agents-notch/history/stream"
}

// historyStreamInit opens the History page's stream. Unlike the board's
// it closes while the tab is hidden (a history nobody sees needs no
// renders); reopened, its first patch is the page as of then.
func historyStreamInit(url string) string {
	return "@get('" + url + "', {retry: 'always', retryMaxCount: 1000000, retryMaxWait: 5000})"
}

// shown says which of the total the list shows: "1–50 of 212".
func (v HistoryView) shown() string {
	if v.Total == 0 {
		return "No sessions"
	}
	a, b := v.Query.Offset+1, v.Query.Offset+len(v.Sessions)
	if b < a {
		return "None here of " + strconv.Itoa(v.Total)
	}
	return strconv.Itoa(a) + "–" + strconv.Itoa(b) + " of " + strconv.Itoa(v.Total)
}

// dayValue is the day filter's value.
func (v HistoryView) dayValue() string {
	if v.Query.Day.IsZero() {
		return ""
	}
	return v.Query.Day.Format("2006-01-02")
}

// option is one choice of a filter.
type option struct {
	Value, Label string
}

// choices are a filter's options: any, then each value.
func choices(values []string, label func(string) string) []option {
	os := []option{{"", "any"}}
	for _, x := range values {
		if len(os) > 200 {
			break
		}
		os = append(os, option{x, label(x)})
	}
	return os
}

func fieldLabel(s string) string { return clean(s, maxFieldText) }

// agentLabel is an agent's name as people say it, else (an agent this
// build does not know, from another machine's store) its word as stored.
func agentLabel(s string) string {
	if n := agentName(s); n != "" {
		return n
	}
	return fieldLabel(s)
}

// outcomeChoices are the outcome filter's options.
func outcomeChoices() []option {
	os := []option{{"", "any"}}
	for _, o := range store.Outcomes {
		os = append(os, option{o, o})
	}
	return os
}

// hasChoice reports whether value is among the options (a value the facets
// do not list still shows, so the form says what the page is filtered by).
func hasChoice(os []option, value string) bool {
	return slices.ContainsFunc(os, func(o option) bool { return o.Value == value })
}

// maxTableRows bounds the day's table (a day of a thousand bands is read
// in the JSON).
const maxTableRows = 500

func joinWords(ws []string) string { return strings.Join(ws, " ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func waitsWord(n int) string {
	if n == 0 {
		return "no waits"
	}
	return "in " + plural(n, "wait", "waits")
}

func lanesWord(n int) string { return plural(n, "session", "sessions") }

func turnsWord(n int) string { return plural(n, "turn", "turns") }

// bandY and bandH draw the waits on you the full height of the lane, work
// and errors a little less, and a settled session as a thin line.
func bandY(laneY int, status string) string {
	switch status {
	case "attention":
		return strconv.Itoa(laneY + bandTopY)
	case "done", "idle":
		return strconv.Itoa(laneY + bandTopY + 5)
	}
	return strconv.Itoa(laneY + bandTopY + 2)
}

func bandH(status string) string {
	switch status {
	case "attention":
		return "12"
	case "done", "idle":
		return "2"
	}
	return "8"
}

// outcomeStatus is the status colour of an outcome word.
func outcomeStatus(o string) string {
	switch o {
	case "done", "error":
		return o
	case "open":
		return "working"
	}
	return "idle"
}

func turnEnd(v HistoryView, t store.Turn) string {
	if t.EndedMs == 0 {
		return "open"
	}
	return v.clock(t.EndedMs, midnight(time.UnixMilli(t.StartedMs).In(v.loc())))
}

func turnOutcome(t store.Turn) string {
	switch {
	case t.Outcome != "":
		return clean(t.Outcome, maxFieldText)
	case t.EndedMs == 0:
		return "open"
	}
	return "ended"
}

func tokensCell(n int64) string {
	if n <= 0 {
		return "—"
	}
	return fmtTokens(n)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// agentSeries is one agent in the per-agent charts: its place in the
// palette (its order among the agents seen), its name and totals.
type agentSeries struct {
	Agent, Name string
	Hue         string // ag-0 … ag-5
	Tokens      int64
	HasTokens   bool
	Cost        float64
	HasCost     bool
}

// agentMeasure is one per-agent chart: tokens, or cost.
type agentMeasure struct {
	ID, Name string
	Word     string        // "tokens", "cost": the table's heads
	Series   []agentSeries // the agents that told this measure
	// Days[i][j] is Series[j]'s value on day i (0: none told that day).
	Days   [][]float64
	Format func(float64) string
}

// agentSeriesAll are the agents of the per-agent days, in name order,
// with their totals over the days.
func (v HistoryView) agentSeriesAll() []agentSeries {
	idx := map[string]int{}
	var out []agentSeries
	for _, d := range v.ByAgent {
		for _, u := range d.Agents {
			i, ok := idx[u.Agent]
			if !ok {
				i = len(out)
				idx[u.Agent] = i
				out = append(out, agentSeries{Agent: u.Agent, Name: agentLabel(u.Agent)})
			}
			if u.Tokens != nil {
				out[i].Tokens += *u.Tokens
				out[i].HasTokens = true
			}
			if u.CostUSD != nil {
				out[i].Cost += *u.CostUSD
				out[i].HasCost = true
			}
		}
	}
	slices.SortFunc(out, func(a, b agentSeries) int { return strings.Compare(a.Agent, b.Agent) })
	for i := range out {
		out[i].Hue = "ag-" + strconv.Itoa(i%6)
	}
	return out
}

// agentMeasures are the per-agent charts: tokens where some agent told
// tokens, cost where some told cost (an agent that told only one is in
// that one's chart alone: nothing is priced, nothing guessed).
func (v HistoryView) agentMeasures() []agentMeasure {
	all := v.agentSeriesAll()
	mk := func(id, name string, has func(agentSeries) bool, val func(store.AgentUse) (float64, bool), format func(float64) string) (agentMeasure, bool) {
		m := agentMeasure{ID: id, Name: name, Word: strings.TrimSuffix(id, "-agent"), Format: format}
		col := map[string]int{}
		for _, a := range all {
			if has(a) {
				col[a.Agent] = len(m.Series)
				m.Series = append(m.Series, a)
			}
		}
		if len(m.Series) == 0 {
			return m, false
		}
		for _, d := range v.ByAgent {
			row := make([]float64, len(m.Series))
			for _, u := range d.Agents {
				if j, ok := col[u.Agent]; ok {
					if x, told := val(u); told {
						row[j] = x
					}
				}
			}
			m.Days = append(m.Days, row)
		}
		return m, true
	}
	var out []agentMeasure
	if m, ok := mk("tokens-agent", "Tokens used, by agent", func(a agentSeries) bool { return a.HasTokens },
		func(u store.AgentUse) (float64, bool) {
			if u.Tokens == nil {
				return 0, false
			}
			return float64(*u.Tokens), true
		}, func(x float64) string { return fmtTokens(int64(x)) }); ok {
		out = append(out, m)
	}
	if m, ok := mk("cost-agent", "Cost reported, by agent", func(a agentSeries) bool { return a.HasCost },
		func(u store.AgentUse) (float64, bool) {
			if u.CostUSD == nil {
				return 0, false
			}
			return *u.CostUSD, true
		}, func(x float64) string { return fmtCost(&x) }); ok {
		out = append(out, m)
	}
	return out
}

// total is a series' total in the measure's words.
func (m agentMeasure) total(j int) string {
	t := 0.0
	for _, d := range m.Days {
		t += d[j]
	}
	return m.Format(t)
}

// stackBar is one agent's part of one day's bar.
type stackBar struct {
	X, W, Y, H string
	Hue        string
}

// bars stacks each day's agents, the fullest day the chart's height.
func (m agentMeasure) bars() []stackBar {
	top := 0.0
	for _, d := range m.Days {
		s := 0.0
		for _, x := range d {
			s += x
		}
		top = max(top, s)
	}
	n := len(m.Days)
	if n == 0 || top <= 0 {
		return nil
	}
	slot := 1 / float64(n)
	var out []stackBar
	for i, d := range m.Days {
		y := float64(barsH)
		for j, x := range d {
			if x <= 0 {
				continue
			}
			h := max(x/top*barsH, 1.5)
			y -= h
			out = append(out, stackBar{X: pct(float64(i)*slot + slot*0.12), W: pct(slot * 0.76), Y: px(y), H: px(h), Hue: m.Series[j].Hue})
		}
	}
	return out
}

// cell is one agent's value on one day, for the table: "—" where it told
// none that day.
func (m agentMeasure) cell(i, j int) string {
	if m.Days[i][j] <= 0 {
		return "—"
	}
	return m.Format(m.Days[i][j])
}

// desc is a per-agent chart's words for a screen reader: each agent's
// total, and where the days are.
func (m agentMeasure) desc() string {
	var b strings.Builder
	for j, a := range m.Series {
		b.WriteString(a.Name + " " + m.total(j) + "; ")
	}
	return b.String() + "the table after the charts has each day."
}
