package templates

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/host/store"
	"github.com/notch-web/notch-web/internal/textrule"
)

// histDay is the fixed day of the History page's goldens, in a zone of
// its own so a local day is seen to be the page's, not UTC's.
var (
	histLoc = time.FixedZone("CET", 3600)
	histDay = time.Date(2026, 12, 3, 0, 0, 0, 0, histLoc)
)

// at is a time of histDay in ms.
func at(h, m int) int64 {
	return histDay.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute).UnixMilli()
}

// HistoryFixture is a day of three sessions on two machines, one of them
// hostile, 30 days of bars (cost reported on two), and the headline. Tests
// and the benchmark share it.
func historyFixture() HistoryView {
	hostile := "<img src=x onerror=alert(1)> \u202egnp.exe\u202c " + strings.Repeat("long ", 400)
	cost := 0.42
	bars := make([]store.DayBar, BarDays)
	for i := range bars {
		bars[i] = store.DayBar{
			Day:       histDay.AddDate(0, 0, i-BarDays+1),
			Sessions:  (i * 7) % 11,
			Turns:     (i * 13) % 40,
			WorkingMs: int64((i*37)%180) * 60000,
			WaitingMs: int64((i*11)%45) * 60000,
			Tokens:    int64((i*97)%500) * 1000,
		}
	}
	c1, c2 := 1.5, 12.25
	bars[27].CostUSD, bars[29].CostUSD = &c1, &c2
	bars[5] = store.DayBar{Day: bars[5].Day} // a day of nothing
	return HistoryView{
		Loc:   histLoc,
		NowMs: at(14, 0),
		Day:   histDay,
		Headline: store.Headline{
			WaitingMs: 23 * 60000, Waits: 4, MedianWaitMs: 3*60000 + 20000, LongestWaitMs: 14 * 60000,
			LongestMachine: "studio", LongestSession: "s-2", LongestTitle: "Fix the flaky upload test",
		},
		Spans: []store.Span{
			{Machine: store.Local, Session: "s-1", Title: "Refactor the parser", Status: "working", FromMs: at(8, 0), ToMs: at(9, 30)},
			{Machine: store.Local, Session: "s-1", Title: "Refactor the parser", Status: "attention", FromMs: at(9, 30), ToMs: at(9, 36)},
			{Machine: store.Local, Session: "s-1", Title: "Refactor the parser", Status: "working", FromMs: at(9, 36), ToMs: at(10, 40)},
			{Machine: store.Local, Session: "s-1", Title: "Refactor the parser", Status: "done", FromMs: at(10, 40), ToMs: at(11, 0)},
			{Machine: "studio", Session: "s-2", Title: "Fix the flaky upload test", Status: "working", FromMs: at(11, 0), ToMs: at(12, 0)},
			{Machine: "studio", Session: "s-2", Title: "Fix the flaky upload test", Status: "attention", FromMs: at(12, 0), ToMs: at(12, 14)},
			{Machine: "studio", Session: "s-2", Title: "Fix the flaky upload test", Status: "error", FromMs: at(12, 14), ToMs: at(12, 20)},
			{Machine: store.Local, Session: "s-3", Title: hostile, Status: "working", FromMs: at(13, 0)},
		},
		Bars: bars,
		Sessions: []HistorySession{
			{
				Session: store.Session{Machine: store.Local, ID: "s-3", Agent: "claude-code", Project: "notch-web", Cwd: "/src/notch-web", Title: hostile, StartedMs: at(13, 0), Turns: 1, WorkingMs: 60 * 60000},
				Turns:   []store.Turn{{Seq: 1, StartedMs: at(13, 0), Tools: map[string]int{"Bash": 4, "Read": 2, "<b>x</b>": 1}}},
				// A push answered on a device whose name (a hub's, fed) is hostile.
				Answers: []store.Answer{{Session: "s-3", Call: "c3", Tool: "Bash", AskedMs: at(13, 10), AnsweredMs: at(13, 11), By: "push", Device: "<b>ph</b>\u202eone " + strings.Repeat("long ", 40), Outcome: "denied"}},
			},
			{
				Session: store.Session{Machine: "studio", ID: "s-2", Agent: "codex", Project: "uploads", Title: "Fix the flaky upload test", StartedMs: at(11, 0), EndedMs: at(12, 20), Outcome: "error", Turns: 2, WorkingMs: 66 * 60000, WaitingMs: 14 * 60000, ContextTokens: 412000},
				Turns: []store.Turn{
					{Seq: 1, StartedMs: at(11, 0), EndedMs: at(11, 40), Outcome: "done", Tools: map[string]int{"shell": 9}, ContextTokens: 120000},
					{Seq: 2, StartedMs: at(11, 45), EndedMs: at(12, 20), Outcome: "error", Tools: map[string]int{"shell": 2, "apply_patch": 2}, Errors: 3, ContextTokens: 412000},
				},
				Answers: []store.Answer{{Session: "s-2", Call: "c1", Tool: "shell", AskedMs: at(12, 0), AnsweredMs: at(12, 14), By: "board", Device: "phone", Outcome: "allowed once"}},
			},
			{
				Session: store.Session{Machine: store.Local, ID: "s-1", Agent: "claude-code", Project: "parser", Title: "Refactor the parser", StartedMs: at(8, 0) - 86400000, EndedMs: at(11, 0), Outcome: "done", Turns: 3, WorkingMs: 154 * 60000, WaitingMs: 6 * 60000, ContextTokens: 88000, CostUSD: &cost},
				Turns: []store.Turn{
					{Seq: 3, StartedMs: at(9, 0), EndedMs: at(10, 40), Outcome: "done", Tools: map[string]int{"Edit": 5, "Bash": 5, "Read": 12}, ContextTokens: 88000, CostUSD: &cost},
				},
				Answers: []store.Answer{{Session: "s-1", Call: "c9", Tool: "Bash", AskedMs: at(9, 30), AnsweredMs: at(9, 36), By: "terminal", Outcome: "allowed"}},
			},
		},
		Total:    3,
		Projects: []string{"notch-web", "parser", "uploads"},
		Machines: []string{store.Local, "studio"},
		Agents:   []string{"claude-code", "codex"},
	}
}

// chartsRE are the day's timeline and the bars, golden on their own.
var chartsRE = regexp.MustCompile(`(?s)<figure class="chart tl-chart" id="hist-day".*?</figure>|<section class="bars" id="hist-bars".*?</section>`)

// The History page and each of its charts, golden, with what a user
// would notice checked whatever the goldens say.
func TestHistoryPageGolden(t *testing.T) {
	v := historyFixture()
	page := string(render(t, HistoryPage(v)))
	// The page's golden leaves out its two charts, which have their own.
	golden(t, "history_page", chartsRE.ReplaceAll([]byte(page), []byte(`<chart…/>`)))
	for _, want := range []string{
		`data-init="@get(&#39;/agents-notch/history/stream&#39;`,
		`<form class="hf" id="hist-form" method="get" action="/agents-notch/history"`,
		`Today, waiting on you`, `23 min`, `in 4 waits`, `3 min`, `14 min`, `Fix the flaky upload test · studio`,
		`role="img"`, `<title id="tl-t">Timeline of Thu 3 Dec 2026</title>`,
		`data-preserve-attr="open"`, `<caption>Turns</caption>`, `Read ×12, Bash ×5, Edit ×5`, `$0.42`, `412k`,
		`allowed once`, `<td>board · phone</td>`, `<td>terminal</td>`, `push · &lt;b&gt;ph&lt;/b&gt;`, `1 h 20 min`, `1 h so far`, `this machine`,
		`&lt;img src=x onerror=alert(1)&gt;`, `&lt;b&gt;x&lt;/b&gt; ×1`,
		`data-metric="waiting" data-alert`, `data-metric="cost"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, bad := range []string{"<img", "\u202e", "<b>x", "<b>ph", strings.Repeat("long ", 200)} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries %.40q", bad)
		}
	}
	golden(t, "history_day", render(t, HistoryDay(v)))
	golden(t, "history_bars", render(t, HistoryBars(v)))
}

// The page's own states: nothing kept yet, unavailable (with its reason,
// as text), off, no cost reported, nothing matching a search.
func TestHistoryPageStates(t *testing.T) {
	empty := HistoryView{Loc: histLoc, NowMs: at(14, 0), Day: histDay}
	tests := []struct {
		name        string
		v           HistoryView
		has, hasNot []string
	}{
		{"empty", empty, []string{`id="hist-empty"`, `Nothing kept yet`, `id="hist-form"`, `data-init=`}, []string{`role="img"`}},
		{"problem", HistoryView{Problem: "the disk is full <b>now</b>", Loc: histLoc}, []string{`id="hist-problem"`, `History unavailable`, `the disk is full &lt;b&gt;now&lt;/b&gt;`, `data-init=`}, []string{`id="hist-empty"`, `role="img"`}},
		{"off", HistoryView{Off: true}, []string{`id="hist-off"`, `No history here`}, []string{`id="hist-form"`, `data-init=`}},
	}
	nothing := historyFixture()
	nothing.Query = store.Query{Words: []string{"zebra"}, Outcome: "error"}
	nothing.Sessions, nothing.Total = nil, 0
	tests = append(tests, struct {
		name        string
		v           HistoryView
		has, hasNot []string
	}{"no_match", nothing, []string{`No session matches this search.`, `value="zebra"`, `<option value="error" selected>`, `Clear the search`, `history/stream?outcome=error&amp;q=zebra`}, []string{`id="hist-empty"`}})
	nocost := historyFixture()
	for i := range nocost.Bars {
		nocost.Bars[i].CostUSD = nil
	}
	tests = append(tests, struct {
		name        string
		v           HistoryView
		has, hasNot []string
	}{"no_cost", nocost, []string{`No cost: no agent reported one`}, []string{`data-metric="cost"`}})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(render(t, HistoryPage(tc.v)))
			for _, w := range tc.has {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %s", w)
				}
			}
			for _, w := range tc.hasNot {
				if strings.Contains(got, w) {
					t.Errorf("has %s", w)
				}
			}
		})
	}
	golden(t, "history_page_empty", render(t, HistoryPage(empty)))
	golden(t, "history_page_problem", render(t, HistoryPage(HistoryView{Problem: "the history’s file is locked by another program", Loc: histLoc})))
}

// A day of more sessions than the timeline draws: maxLanes lanes, the
// rest said and in the table.
func TestHistoryDayBounded(t *testing.T) {
	v := historyFixture()
	v.Spans = nil
	for i := range maxLanes + 5 {
		v.Spans = append(v.Spans, store.Span{Machine: store.Local, Session: "m" + string(rune('A'+i)), Status: "working", FromMs: at(1, i), ToMs: at(2, i)})
	}
	got := string(render(t, HistoryDay(v)))
	if n := strings.Count(got, `class="lane-name"`); n != maxLanes {
		t.Errorf("%d lanes drawn, want %d", n, maxLanes)
	}
	if !strings.Contains(got, "And 5 sessions more, in the table.") {
		t.Error("the sessions left out are not said")
	}
	if n := strings.Count(got, "<tr>"); n != maxLanes+5+1 {
		t.Errorf("the table has %d rows, want every band and its head", n)
	}
}

// clean: hidden characters replaced, bounded by runes, a cut said.
func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\tb", "a b"},
		{"bidi \u202eevil", "bidi \ufffdevil"},
		{"zero\u200bwidth", "zero\ufffdwidth"},
		{"ten chars!", "ten chars!"},
		{"eleven char", "eleven ch…"},
		{"ééééééééééé", "ééééééééé…"},
		{strings.Repeat("é", 1000), strings.Repeat("é", 9) + "…"},
		{string([]byte{0xff, 'a'}), "\ufffda"},
	} {
		if got := clean(tc.in, 10); got != tc.want {
			t.Errorf("clean(%.20q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFmtDur(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{{-5, "0 s"}, {0, "0 s"}, {499, "0 s"}, {45_000, "45 s"}, {59_499, "59 s"}, {59_500, "1 min"}, {12 * 60000, "12 min"}, {3600_000, "1 h"}, {3900_000, "1 h 5 min"}, {26 * 3600_000, "26 h"}} {
		if got := fmtDur(tc.ms); got != tc.want {
			t.Errorf("fmtDur(%d) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}

// BenchmarkHistoryPage renders the History page of a full list (50
// sessions, a busy day, 30 days of bars): the templates' share of the
// ≤ 50 ms page.
func BenchmarkHistoryPage(b *testing.B) {
	v := historyFixture()
	one := v.Sessions[1]
	v.Sessions = nil
	for i := range store.DefaultLimit {
		s := one
		s.Session.ID = "s-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		v.Sessions = append(v.Sessions, s)
	}
	for i := range 200 {
		v.Spans = append(v.Spans, store.Span{Machine: "studio", Session: "busy-" + string(rune('a'+i%30)), Title: "busy", Status: []string{"working", "attention", "done"}[i%3], FromMs: at(i%24, i%60), ToMs: at(i%24, i%60) + 60000})
	}
	v.Total = 100000
	b.ReportAllocs()
	for b.Loop() {
		var sink countWriter
		if err := HistoryPage(v).Render(b.Context(), &sink); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(sink))
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// A session that only sat settled through the day (done or error until it
// is closed out, days on end) is no lane of it, nor in its table; nor does
// it stretch the hours drawn.
func TestHistoryDaySettledOnly(t *testing.T) {
	v := historyFixture()
	v.Spans = append(v.Spans, store.Span{Machine: store.Local, Session: "old", Title: "Finished last week", Status: "done", FromMs: histDay.AddDate(0, 0, -7).UnixMilli()})
	got := string(render(t, HistoryDay(v)))
	if strings.Contains(got, "Finished last week") {
		t.Error("a session settled all day is drawn")
	}
	if !strings.Contains(got, `text-anchor="start">08:00</text>`) {
		t.Error("the settled session stretched the hours drawn")
	}
}

// FuzzClean: whatever a title holds, what the page shows of it is valid
// UTF-8 with no hidden character, at most max runes.
func FuzzClean(f *testing.F) {
	f.Add("plain title", 10)                                // nothing to do
	f.Add("bidi \u202eevil\u202c", 8)                       // an override, cut
	f.Add("zero\u200bwidth\ttab\x1b[31m", 40)               // hidden characters
	f.Add(string([]byte{0xe2, 0x82}), 3)                    // a rune cut short
	f.Add(strings.Repeat("\U0001F600", 500), 160)           // four-byte runes past the byte cap
	f.Add(strings.Repeat("é", 41)+string([]byte{0xc3}), 10) // the cap lands inside a rune
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 1000 {
			t.Skip()
		}
		got := clean(s, max)
		if !utf8.ValidString(got) || textrule.Has(got) {
			t.Fatalf("clean(%q, %d) = %q shows what it must not", s, max, got)
		}
		if n := utf8.RuneCountInString(got); n > max {
			t.Fatalf("clean(%q, %d) has %d runes", s, max, n)
		}
	})
}
