package ledger

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

// step is one moment of a book's life: a reading arriving (when r is set),
// then what the book shows at now.
type step struct {
	now  time.Time
	r    *Reading
	want []want // the figures, in order
}

type want struct {
	machine string
	pct     float64
	state   State
	age     time.Duration
}

func rd(machine, account, window string, pct float64, asOf, resets time.Time) *Reading {
	return &Reading{Agent: "codex", Account: account, Window: window, UsedPct: pct, AsOf: asOf, ResetsAt: resets, Machine: machine}
}

func TestBookRules(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"a figure past its reset is shown reset, never its old percentage", []step{
			{now: at(0), r: rd("a", "", "primary", 40, at(0), at(30)), want: []want{{"a", 40, Fresh, 0}}},
			{now: at(29), want: []want{{"a", 40, Stale, 29 * time.Minute}}},
			{now: at(30), want: []want{{"a", 40, Reset, 30 * time.Minute}}},
		}},
		{"a figure with no reading for longer than the cadence is stale, with its age", []step{
			{now: at(0), r: rd("a", "", "primary", 10, at(0), at(600))},
			{now: at(10), want: []want{{"a", 10, Fresh, 10 * time.Minute}}},
			{now: at(11), want: []want{{"a", 10, Stale, 11 * time.Minute}}},
			{now: at(12), r: rd("a", "", "primary", 12, at(12), at(600)), want: []want{{"a", 12, Fresh, 0}}},
		}},
		{"the freshest reading wins, whatever order they arrive in", []step{
			{now: at(5), r: rd("a", "", "primary", 50, at(5), at(600))},
			{now: at(6), r: rd("a", "", "primary", 30, at(2), at(600)), want: []want{{"a", 50, Fresh, time.Minute}}},
		}},
		{"the same account from two machines is one figure, the freshest machine's", []step{
			{now: at(0), r: rd("a", "acct", "primary", 20, at(0), at(600))},
			{now: at(1), r: rd("b", "acct", "primary", 25, at(1), at(600)), want: []want{{"b", 25, Fresh, 0}}},
			{now: at(2), r: rd("a", "acct", "primary", 21, at(0), at(600)), want: []want{{"b", 25, Fresh, time.Minute}}},
		}},
		{"without an account, each machine's figure is its own", []step{
			{now: at(0), r: rd("a", "", "primary", 20, at(0), at(600))},
			{now: at(1), r: rd("b", "", "primary", 25, at(1), at(600)), want: []want{{"a", 20, Fresh, time.Minute}, {"b", 25, Fresh, 0}}},
		}},
		{"a machine whose clock runs 10 minutes ahead is corrected by when it sent", []step{
			{now: at(0), r: &Reading{Agent: "codex", Account: "acct", Window: "primary", UsedPct: 60, AsOf: at(10), Sent: at(10), ResetsAt: at(600), Machine: "fast"},
				want: []want{{"fast", 60, Fresh, 0}}},
			// A right machine's reading a minute later wins over it.
			{now: at(1), r: rd("right", "acct", "primary", 61, at(1), at(600)), want: []want{{"right", 61, Fresh, 0}}},
		}},
		{"an as-of in the future (no send time) is taken as now", []step{
			{now: at(0), r: rd("a", "", "primary", 5, at(30), at(600)), want: []want{{"a", 5, Fresh, 0}}},
		}},
		{"a reading that arrives after its reset is shown reset", []step{
			{now: at(40), r: rd("a", "", "primary", 99, at(20), at(30)), want: []want{{"a", 99, Reset, 20 * time.Minute}}},
		}},
		{"percentages are kept within 0 … 100", []step{
			{now: at(0), r: rd("a", "", "primary", 130, at(0), time.Time{}), want: []want{{"a", 100, Fresh, 0}}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBook()
			for i, s := range c.steps {
				if s.r != nil {
					b.Add(*s.r, s.now)
				}
				if s.want == nil {
					continue
				}
				got := b.Figures(s.now)
				if len(got) != len(s.want) {
					t.Fatalf("step %d: %d figures, want %d: %+v", i, len(got), len(s.want), got)
				}
				for j, w := range s.want {
					g := got[j]
					if g.Machine != w.machine || g.UsedPct != w.pct || g.State != w.state || g.Age != w.age {
						t.Errorf("step %d figure %d: %s %v%% %s age %v, want %s %v%% %s age %v", i, j, g.Machine, g.UsedPct, g.State, g.Age, w.machine, w.pct, w.state, w.age)
					}
				}
			}
		})
	}
}

func TestBookLevelsOncePerWindow(t *testing.T) {
	b := NewBook()
	type arrival struct {
		pct    float64
		resets time.Time
		want   float64 // the level pushed, 0: none
	}
	arrivals := []arrival{
		{50, at(300), 0},
		{81, at(300), 80},
		{85, at(300), 0}, // 80 % was pushed for this window
		{96, at(300), 95},
		{97, at(300), 0},
		{10, at(600), 0},  // a new window
		{99, at(600), 95}, // the highest level reached, once
		{82, at(900), 80},
	}
	for i, a := range arrivals {
		_, evs := b.Add(*rd("a", "", "primary", a.pct, at(i+1), a.resets), at(i+1))
		var got float64
		for _, e := range evs {
			if e.Kind == Crossed {
				got = e.Level
			}
		}
		if got != a.want {
			t.Errorf("arrival %d (%v%%): pushed level %v, want %v", i, a.pct, got, a.want)
		}
	}
}

func TestBookLevelsPerAgent(t *testing.T) {
	b := NewBook()
	b.Levels = func(agent string) []float64 {
		if agent == "codex" {
			return []float64{50}
		}
		return nil
	}
	if _, evs := b.Add(*rd("a", "", "primary", 55, at(0), at(60)), at(0)); len(evs) != 1 || evs[0].Level != 50 {
		t.Errorf("codex at 55%% with a level of 50: %+v, want one push at 50", evs)
	}
	r := *rd("a", "", "five_hour", 99, at(0), at(60))
	r.Agent = "claude-code"
	if _, evs := b.Add(r, at(0)); len(evs) != 0 {
		t.Errorf("an agent with no levels pushed: %+v", evs)
	}
}

func TestBookLimitEnds(t *testing.T) {
	b := NewBook()
	b.Add(*rd("a", "", "primary", 100, at(0), at(30)), at(0))
	if evs := b.Step(at(29)); len(evs) != 0 {
		t.Fatalf("before the reset: %+v", evs)
	}
	if got := b.NextChange(at(20)); !got.Equal(at(30)) {
		t.Errorf("NextChange at 20 min = %v, want the reset at %v", got, at(30))
	}
	evs := b.Step(at(30))
	if len(evs) != 1 || evs[0].Kind != Ended || evs[0].Figure.State != Reset {
		t.Fatalf("at the reset: %+v, want one Ended with the figure reset", evs)
	}
	if evs := b.Step(at(31)); len(evs) != 0 {
		t.Errorf("the end was told twice: %+v", evs)
	}
	// A window not used up ends without a word.
	b.Add(*rd("b", "", "primary", 70, at(40), at(50)), at(40))
	if evs := b.Step(at(60)); len(evs) != 0 {
		t.Errorf("a window not used up told an end: %+v", evs)
	}
}

func TestBookNextChange(t *testing.T) {
	b := NewBook()
	if got := b.NextChange(at(0)); !got.IsZero() {
		t.Errorf("an empty book changes at %v, want never", got)
	}
	b.Add(*rd("a", "", "primary", 10, at(0), at(60)), at(0))
	if got, want := b.NextChange(at(0)), at(10).Add(time.Nanosecond); !got.Equal(want) {
		t.Errorf("NextChange = %v, want the figure going stale at %v", got, want)
	}
	if got := b.NextChange(at(11)); !got.Equal(at(60)) {
		t.Errorf("NextChange once stale = %v, want the reset at %v", got, at(60))
	}
	if got := b.NextChange(at(61)); !got.IsZero() {
		t.Errorf("NextChange past the reset = %v, want never", got)
	}
	p1, p2 := b.Phase(at(1)), b.Phase(at(11))
	if p1 == p2 {
		t.Errorf("Phase did not move when the figure went stale")
	}
	if b.Phase(at(11)) != b.Phase(at(12)) {
		t.Errorf("Phase moved with nothing but the age")
	}
}

func TestBookRefuses(t *testing.T) {
	b := NewBook()
	for _, r := range []Reading{
		{Window: "primary", UsedPct: 1, AsOf: at(0)},
		{Agent: "codex", UsedPct: 1, AsOf: at(0)},
		{Agent: "codex", Window: "primary", UsedPct: 1},
	} {
		if ok, _ := b.Add(r, at(0)); ok {
			t.Errorf("took %+v", r)
		}
	}
}

func TestBookBounded(t *testing.T) {
	b := NewBook()
	for i := range maxFigures + 10 {
		b.Add(Reading{Agent: "codex", Machine: "m" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Window: "primary", UsedPct: 1, AsOf: at(i)}, at(i))
	}
	if n := len(b.Figures(at(1000))); n != maxFigures {
		t.Errorf("%d figures kept, want %d", n, maxFigures)
	}
}

// A usage limit a session stopped on ends at its reset, once per agent
// and machine, with the later of two resets; one past, too far ahead, or
// that a used-up window of the agent says already is not kept, and a
// window's end in the same step tells it instead.
func TestBookStoppedLimitEnds(t *testing.T) {
	b := NewBook()
	if b.Stopped("codex", "a", at(-1), at(0)) || b.Stopped("codex", "a", at(0), at(0)) {
		t.Error("a reset already come was kept")
	}
	if b.Stopped("codex", "a", at(0).Add(9*24*time.Hour), at(0)) || b.Stopped("", "a", at(30), at(0)) {
		t.Error("a reset past a week and a day, or of no agent, was kept")
	}
	if !b.Stopped("codex", "a", at(30), at(0)) || !b.Stopped("codex", "a", at(45), at(1)) {
		t.Fatal("a limit, then a later one, not kept")
	}
	if b.Stopped("codex", "a", at(40), at(2)) {
		t.Error("an earlier reset replaced the later")
	}
	if !b.Stopped("codex", "b", at(30), at(0)) || !b.Stopped("claude-code", "a", at(30), at(0)) {
		t.Error("another machine's or agent's limit not kept")
	}
	if got := b.NextChange(at(0)); !got.Equal(at(30)) {
		t.Errorf("NextChange = %v, want the first reset at %v", got, at(30))
	}
	if evs := b.Step(at(29)); len(evs) != 0 {
		t.Fatalf("before the resets: %+v", evs)
	}
	evs := b.Step(at(30))
	if len(evs) != 2 || evs[0].Figure.Agent != "claude-code" || evs[1].Figure.Machine != "b" {
		t.Fatalf("at 30 min: %+v, want claude-code's and codex on b's ends", evs)
	}
	for _, e := range evs {
		if e.Kind != Ended || e.Figure.Window != StoppedWindow || e.Figure.State != Reset || !e.Figure.ResetsAt.Equal(at(30)) {
			t.Errorf("an end: %+v", e)
		}
	}
	if evs := b.Step(at(44)); len(evs) != 0 {
		t.Errorf("codex on a before its later reset: %+v", evs)
	}
	if evs := b.Step(at(45)); len(evs) != 1 || evs[0].Figure.Machine != "a" {
		t.Errorf("codex on a at its later reset: %+v", evs)
	}
	if evs := b.Step(at(90)); len(evs) != 0 {
		t.Errorf("an end told twice: %+v", evs)
	}

	// A used-up window resetting within a minute says it: one end.
	b.Add(*rd("a", "", "primary", 100, at(100), at(130)), at(100))
	if b.Stopped("codex", "a", at(130).Add(20*time.Second), at(101)) {
		t.Error("a limit a used-up window already tells was kept")
	}
	// One heard before the window was used up: the window's end tells it.
	c := NewBook()
	c.Stopped("codex", "a", at(130), at(99))
	c.Add(*rd("a", "", "primary", 100, at(100), at(130)), at(100))
	if evs := c.Step(at(130)); len(evs) != 1 || evs[0].Figure.Window != "primary" {
		t.Errorf("a window's and a session's end at one reset: %+v, want the window's alone", evs)
	}
	// Forgetting a machine forgets its limits.
	c.Stopped("codex", "z", at(200), at(150))
	c.Forget("z")
	if evs := c.Step(at(300)); len(evs) != 0 {
		t.Errorf("a forgotten machine's limit ended: %+v", evs)
	}
}
