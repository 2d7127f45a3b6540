package host

import (
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

func TestAlerter(t *testing.T) {
	t0 := time.UnixMilli(1_800_000_000_000)
	doc := func(ss ...state.Session) state.Document { return state.Document{Schema: 4, Sessions: ss} }
	s := func(id, status string) state.Session { return state.Session{ID: id, Status: status} }
	sub := func(id, status string) state.Session {
		return state.Session{ID: id, Status: status, Origin: state.OriginSubagent, ParentSession: "p"}
	}
	type step struct {
		at     time.Duration
		doc    state.Document
		alerts string
		want   string // "" no new alert; else "status session"
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"what is there at start is not news", []step{
			{0, doc(s("a", "attention"), s("b", "error")), "all", ""},
			{time.Minute, doc(s("a", "attention"), s("b", "error")), "all", ""},
		}},
		{"a rise into needs-you is an alert, once (the rising edge only)", []step{
			{0, doc(s("a", "working")), "all", ""},
			{time.Second, doc(s("a", "attention")), "all", "attention a"},
			{time.Minute, doc(s("a", "attention")), "all", ""},
			{2 * time.Minute, doc(s("a", "working")), "all", ""},
			{3 * time.Minute, doc(s("a", "attention")), "all", "attention a"},
		}},
		{"a session that opens already asking rises", []step{
			{0, doc(), "all", ""},
			{time.Second, doc(s("a", "attention")), "needs-you", "attention a"},
		}},
		{"done only with alerts all; error with needs-you; nothing with off", []step{
			{0, doc(s("a", "working"), s("b", "working"), s("c", "working")), "needs-you", ""},
			{10 * time.Second, doc(s("a", "done"), s("b", "working"), s("c", "working")), "needs-you", ""},
			{20 * time.Second, doc(s("a", "done"), s("b", "error"), s("c", "working")), "needs-you", "error b"},
			{30 * time.Second, doc(s("a", "done"), s("b", "error"), s("c", "attention")), "off", ""},
			{40 * time.Second, doc(s("a", "working"), s("b", "error"), s("c", "attention")), "all", ""},
			{50 * time.Second, doc(s("a", "done"), s("b", "error"), s("c", "attention")), "all", "done a"},
		}},
		{"never for a subagent", []step{
			{0, doc(s("p", "working"), sub("p/1", "working")), "all", ""},
			{10 * time.Second, doc(s("p", "working"), sub("p/1", "attention")), "all", ""},
			{20 * time.Second, doc(s("p", "working"), sub("p/1", "error")), "all", ""},
		}},
		{"at most one per 5 s across sessions; a rise in the gap is dropped, not delayed", []step{
			{0, doc(s("a", "working"), s("b", "working"), s("c", "working")), "all", ""},
			{time.Second, doc(s("a", "attention"), s("b", "working"), s("c", "working")), "all", "attention a"},
			{2 * time.Second, doc(s("a", "attention"), s("b", "error"), s("c", "working")), "all", ""},
			{5999 * time.Millisecond, doc(s("a", "attention"), s("b", "error"), s("c", "done")), "all", ""},
			{7 * time.Second, doc(s("a", "attention"), s("b", "error"), s("c", "done")), "all", ""},
			{7 * time.Second, doc(s("a", "working"), s("b", "error"), s("c", "done")), "all", ""},
			{8 * time.Second, doc(s("a", "attention"), s("b", "error"), s("c", "done")), "all", "attention a"},
		}},
		{"of rises at once, the most urgent", []step{
			{0, doc(s("a", "working"), s("b", "working"), s("c", "working")), "all", ""},
			{time.Second, doc(s("a", "done"), s("b", "error"), s("c", "attention")), "all", "attention c"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a Alerter
			var last Alert
			for i, st := range tc.steps {
				got := a.Observe(st.doc, st.alerts, t0.Add(st.at))
				switch {
				case st.want == "" && got != last:
					t.Errorf("step %d: alert %+v, want none new", i, got)
				case st.want != "" && (got == last || got.Status+" "+got.Session != st.want):
					t.Errorf("step %d: alert %+v, want %s", i, got, st.want)
				}
				if got.Seq < last.Seq {
					t.Errorf("step %d: seq went back: %d after %d", i, got.Seq, last.Seq)
				}
				last = got
			}
		})
	}
}
