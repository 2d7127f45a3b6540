package push

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.Local)

func ms(t time.Time) int64 { return t.UnixMilli() }

// harness drives the rules with a clock of its own.
type harness struct {
	t    *testing.T
	r    *rules
	now  time.Time
	rows []Row
}

func newHarness(t *testing.T, chans ...ChannelConfig) *harness {
	if len(chans) == 0 {
		chans = []ChannelConfig{{Send: []string{KindNeedsYou}}}
	}
	h := &harness{t: t, now: t0}
	h.r = newRules(10*time.Second, t0, chans, func(r Row, kind string, now time.Time) Message {
		return Message{Tag: r.ID, Kind: kind, Title: r.Title, Body: r.Body, At: now}
	})
	return h
}

func (h *harness) set(id, status string, since time.Time) {
	for i := range h.rows {
		if h.rows[i].ID == id {
			h.rows[i].Status, h.rows[i].Since = status, ms(since)
			return
		}
	}
	h.rows = append(h.rows, Row{ID: id, Status: status, Since: ms(since), Title: "title " + id})
}

func (h *harness) remove(id string) {
	h.rows = slices.DeleteFunc(h.rows, func(r Row) bool { return r.ID == id })
}

// at steps the rules at t0+d and returns the ops as words.
func (h *harness) at(d time.Duration, looking bool) []string {
	h.now = t0.Add(d)
	ops, _ := h.r.step(h.now, h.rows, looking)
	var out []string
	for _, o := range ops {
		if o.msg != nil {
			out = append(out, fmt.Sprintf("%d send %s %s", o.ch, o.msg.Kind, o.msg.Tag))
		} else {
			out = append(out, fmt.Sprintf("%d withdraw %s", o.ch, o.withdraw))
		}
	}
	return out
}

func (h *harness) want(d time.Duration, looking bool, want ...string) {
	h.t.Helper()
	got := h.at(d, looking)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		h.t.Errorf("at +%s: ops %q, want %q", d, got, want)
	}
}

const s = time.Second

func TestNeedsYouIsPushedAfterTheDelayOnce(t *testing.T) {
	h := newHarness(t)
	h.set("a", "working", t0.Add(1*s))
	h.want(1*s, false)
	h.set("a", "attention", t0.Add(2*s))
	h.want(2*s, false)
	h.want(11*s, false) // 9 s in: not yet
	h.want(12*s, false, "0 send needs-you a")
	h.want(20*s, false) // still waiting: no second push
	h.set("a", "working", t0.Add(21*s))
	h.want(21*s, false, "0 withdraw a") // answered: gone
	h.set("a", "attention", t0.Add(30*s))
	h.want(40*s, false, "0 send needs-you a") // a new ask is a new state
}

func TestAnAskAnsweredWithinTheDelaySendsNothing(t *testing.T) {
	h := newHarness(t)
	h.set("a", "attention", t0.Add(1*s))
	h.want(1*s, false)
	h.set("a", "working", t0.Add(5*s))
	h.want(5*s, false)
	h.want(30*s, false)
}

func TestNothingIsPushedWhileSomeoneLooks(t *testing.T) {
	h := newHarness(t)
	h.set("a", "attention", t0.Add(1*s))
	h.want(11*s, true)  // due while looked at: seen
	h.want(20*s, false) // and not sent once nobody looks
	h.set("b", "attention", t0.Add(21*s))
	h.want(31*s, false, "0 send needs-you b")
}

func TestRowsFromBeforeTheStartAreNotPushed(t *testing.T) {
	h := newHarness(t)
	h.set("old", "attention", t0.Add(-time.Minute))
	h.want(0, false)
	h.want(time.Minute, false)
}

func TestAGoneRowIsWithdrawn(t *testing.T) {
	h := newHarness(t)
	h.set("a", "attention", t0)
	h.want(10*s, false, "0 send needs-you a")
	h.remove("a")
	h.want(11*s, false, "0 withdraw a")
	h.want(12*s, false)
}

func TestKindsAndQuietHoursPerChannel(t *testing.T) {
	quiet := Quiet{From: 11*60 + 30, To: 12*60 + 30} // 11:30–12:30 local: t0 is 12:00
	h := newHarness(t,
		ChannelConfig{Send: []string{KindNeedsYou}},
		ChannelConfig{Send: []string{KindNeedsYou, KindFailed, KindFinished}},
		ChannelConfig{Send: []string{KindNeedsYou}, Quiet: quiet},
	)
	h.set("a", "error", t0)
	h.set("b", "done", t0)
	h.set("c", "attention", t0)
	h.want(10*s, false, "0 send needs-you c", "1 send summary summary")
}

func TestASubagentIsPushedOnlyWhenItNeedsYou(t *testing.T) {
	h := newHarness(t, ChannelConfig{Send: Kinds})
	h.rows = []Row{{ID: "sub", Status: "error", Since: ms(t0), Sub: true}, {ID: "sub2", Status: "attention", Since: ms(t0), Sub: true}}
	h.want(10*s, false, "0 send needs-you sub2")
}

func TestABurstIsOneSummaryAndIsWithdrawnWhenAllAreAnswered(t *testing.T) {
	h := newHarness(t)
	h.set("a", "attention", t0)
	h.want(10*s, false, "0 send needs-you a")
	// b and c come due inside the burst gap after a's push: one summary
	// at the gap's end.
	h.set("b", "attention", t0.Add(1*s))
	h.set("c", "attention", t0.Add(1500*time.Millisecond))
	h.want(11*s, false)
	h.want(11500*time.Millisecond, false)
	_, next := h.r.step(h.now, h.rows, false)
	if want := t0.Add(13 * s); !next.Equal(want) {
		t.Errorf("next step at %s, want the gap's end %s", next, want)
	}
	h.want(13*s, false, "0 send summary summary")
	h.set("b", "working", t0.Add(14*s))
	h.want(14*s, false) // c still waits: the summary stays
	h.remove("c")
	h.want(15*s, false, "0 withdraw summary")
}

func TestAnAskAnsweredBeforeItsBurstFlushSendsNothing(t *testing.T) {
	h := newHarness(t)
	h.set("a", "attention", t0)
	h.want(10*s, false, "0 send needs-you a")
	h.set("b", "attention", t0.Add(1*s))
	h.want(11*s, false)
	h.set("b", "working", t0.Add(12*s))
	h.want(12*s, false)
	h.want(13*s, false)
}

func TestNextIsTheEarliestDue(t *testing.T) {
	h := newHarness(t)
	h.set("a", "attention", t0.Add(3*s))
	h.set("b", "attention", t0.Add(1*s))
	_, next := h.r.step(t0.Add(2*s), h.rows, false)
	if want := t0.Add(11 * s); !next.Equal(want) {
		t.Errorf("next %s, want %s", next, want)
	}
	h.rows = nil
	if _, next := h.r.step(t0.Add(3*s), h.rows, false); !next.IsZero() {
		t.Errorf("nothing due, yet next is %s", next)
	}
}

func TestSummaryWords(t *testing.T) {
	var p []pendingMsg
	for i, k := range []string{KindNeedsYou, KindNeedsYou, KindFailed, KindFinished, KindNeedsYou, KindNeedsYou, KindNeedsYou} {
		p = append(p, pendingMsg{row: Row{ID: fmt.Sprint(i)}, msg: Message{Kind: k, Title: fmt.Sprintf("t%d", i)}})
	}
	m := summaryOf(p, t0)
	if want := "7 sessions: 5 need you, 1 failed, 1 finished"; m.Title != want {
		t.Errorf("title %q, want %q", m.Title, want)
	}
	if want := "t0; t1; t2; t3; t4; and 2 more"; m.Body != want {
		t.Errorf("body %q, want %q", m.Body, want)
	}
	if m.Tag != SummaryTag || m.Mint != nil {
		t.Errorf("a summary is tagged %q and has no buttons: %+v", SummaryTag, m)
	}
}

func TestQuietIn(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.Local) }
	night := Quiet{From: 22 * 60, To: 7 * 60}
	for _, c := range []struct {
		q    Quiet
		t    time.Time
		want bool
	}{
		{night, at(23, 0), true}, {night, at(3, 0), true}, {night, at(7, 0), false}, {night, at(12, 0), false},
		{night, at(22, 0), true}, {Quiet{}, at(3, 0), false},
		{Quiet{From: 9 * 60, To: 17 * 60}, at(12, 0), true}, {Quiet{From: 9 * 60, To: 17 * 60}, at(17, 0), false},
	} {
		if got := c.q.In(c.t); got != c.want {
			t.Errorf("%s in %s: %v, want %v", c.t.Format("15:04"), c.q, got, c.want)
		}
	}
}

func TestCutLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines\r\n\tand tab", "two lines and tab"},
		{"bidi \u202eevil\u202c here", "bidi evil here"},
		{"\x1b[31mred\x1b[0m", "[31mred [0m"},
		{strings.Repeat("é", 100), strings.Repeat("é", 18) + "…"},
	} {
		if got := cutLine(c.in, 40); got != c.want {
			t.Errorf("cutLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A second summary replaces the first on the phone (one tag), so it names
// the first one's rows that still wait as well as its own; it is withdrawn
// only once none of them waits.
func TestASecondSummaryKeepsTheFirstOnesRows(t *testing.T) {
	h := newHarness(t)
	h.set("x", "attention", t0)
	h.want(10*s, false, "0 send needs-you x")
	h.set("a", "attention", t0.Add(1*s))
	h.set("b", "attention", t0.Add(1*s))
	h.want(11*s, false)
	h.want(13*s, false, "0 send summary summary")
	h.set("c", "attention", t0.Add(10*s))
	h.set("d", "attention", t0.Add(10*s))
	h.now = t0.Add(20 * s)
	ops, _ := h.r.step(h.now, h.rows, false)
	if len(ops) != 1 || ops[0].msg == nil || ops[0].msg.Tag != SummaryTag {
		t.Fatalf("ops %+v, want one summary", ops)
	}
	m := ops[0].msg
	if m.Title != "4 sessions: 4 need you" || !strings.Contains(m.Body, "title a") || !strings.Contains(m.Body, "title d") {
		t.Errorf("the second summary: %q / %q, want all four rows that wait", m.Title, m.Body)
	}
	if got := slices.Sorted(slices.Values(ops[0].rows)); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("the second summary is about %q", got)
	}
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"c", nil}, {"d", nil}, // a and b still wait: the summary stays
		{"a", nil},
		{"b", []string{"0 withdraw summary"}},
	} {
		h.set(c.id, "working", t0.Add(30*s))
		h.want(30*s, false, c.want...)
	}
}

// A row that never ran a turn is not finished: a new session's row starts
// as done, and is pushed only once a turn of it ends.
func TestANewSessionIsNotFinished(t *testing.T) {
	h := newHarness(t, ChannelConfig{Send: []string{KindFinished}})
	h.rows = append(h.rows, Row{ID: "new", Status: "done", Since: ms(t0.Add(1 * s)), Title: "new"})
	h.want(20*s, false)
	h.rows[0].Ran = true
	h.set("new", "working", t0.Add(21*s))
	h.want(21*s, false)
	h.set("new", "done", t0.Add(22*s))
	h.want(32*s, false, "0 send finished new")
}

// A change of the channels file keeps a channel that stays, with what it
// sent (its withdrawal still goes, at its new place); a channel removed is
// forgotten; a new delay applies to what is not yet due.
func TestReconfigureKeepsWhatStays(t *testing.T) {
	h := newHarness(t)
	h.r.reconfigure(10*time.Second, []string{"a", "b"}, []ChannelConfig{{Send: []string{KindNeedsYou}}, {Send: []string{KindNeedsYou}}})
	h.set("x", "attention", t0)
	h.want(10*s, false, "0 send needs-you x", "1 send needs-you x")
	h.set("y", "attention", t0.Add(20*s))
	// b goes first now, a is removed, c is new; the delay is 30 s.
	h.r.reconfigure(30*time.Second, []string{"c", "b"}, []ChannelConfig{{Send: []string{KindNeedsYou}}, {Send: []string{KindNeedsYou}}})
	h.want(20*s, false)
	h.want(40*s, false) // y's old due: not yet, under the new delay
	h.want(50*s, false, "0 send needs-you y", "1 send needs-you y")
	h.set("x", "working", t0.Add(51*s))
	h.want(51*s, false, "1 withdraw x") // b, at its new place; a is gone
}
