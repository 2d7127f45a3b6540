package state

import (
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/fsx"
	"github.com/notch-web/notch-web/internal/textrule"
	"github.com/notch-web/notch-web/settings"
)

func TestSanitize(t *testing.T) {
	hostile := "x\revent: datastar-patch-signals\r\rdata: \x00\x1b[31m\u0085"
	bad := "javascript:alert(1)"
	good := "http://127.0.0.1:9/close"
	budget := int64(1000)
	st := settings.Defaults
	st.Scale, st.Screen, st.HoldMs = 9, "nine\r", 1
	d := Document{
		Schema: Schema, Plugin: Plugin + "\n", WallMs: 5, Retire: "route\r",
		FinishedURL: &good, OpenURL: &bad,
		Context:  Context{Budget: &budget, HotAt: 1.5},
		Settings: st,
		Summary:  Summary{Status: "working\r"},
	}
	for i := range MaxSessions + 5 {
		d.Sessions = append(d.Sessions, Session{
			ID: "id" + hostile, Title: hostile + strings.Repeat("é", 2*MaxTitle), Project: hostile, Cwd: hostile,
			Status: StatusWorking, Identity: "teal\n", Origin: "\r", ParentSession: hostile, Steps: i,
			Activity: &Activity{Kind: ActivityTool, Label: hostile},
			Approval: &Approval{ToolName: hostile, Reason: "col\tumn" + hostile},
		})
	}
	got := Sanitize(d)
	if len(got.Sessions) != MaxSessions {
		t.Errorf("%d sessions, want %d", len(got.Sessions), MaxSessions)
	}
	if got.Context.HotAt != DefaultHotAt || got.Context.Budget == nil || *got.Context.Budget != 1000 {
		t.Errorf("context %+v: want the budget kept and hotAt 1.5 → %v", got.Context, DefaultHotAt)
	}
	if got.Settings.Scale != 2 || got.Settings.Screen != "primary" || got.Settings.HoldMs != 500 {
		t.Errorf("settings not clamped: %+v", got.Settings)
	}
	if got.OpenURL != nil || got.FinishedURL == nil || *got.FinishedURL != good {
		t.Errorf("urls %v %v: want the http one kept and the other null", got.FinishedURL, got.OpenURL)
	}
	s := got.Sessions[0]
	for name, v := range map[string]string{
		"plugin": got.Plugin, "retire": got.Retire, "status": got.Summary.Status,
		"id": s.ID, "title": s.Title, "project": s.Project, "cwd": s.Cwd, "identity": s.Identity, "origin": s.Origin,
		"parent": s.ParentSession, "label": s.Activity.Label, "tool": s.Approval.ToolName, "reason": s.Approval.Reason,
	} {
		if textrule.Has(v) {
			t.Errorf("%s = %q still holds a control character", name, v)
		}
	}
	if !strings.Contains(s.Approval.Reason, "col umn") {
		t.Errorf("reason %q: a tab reads as a space (the one text rule)", s.Approval.Reason)
	}
	if len(s.Title) > MaxTitle || !strings.HasSuffix(s.Title, "…") {
		t.Errorf("title is %d bytes, want at most %d, cut with …", len(s.Title), MaxTitle)
	}
	if d.Sessions[0].Title == s.Title || d.Sessions[0].Activity.Label != "x\revent: datastar-patch-signals\r\rdata: \x00\x1b[31m\u0085" {
		t.Error("Sanitize must copy, not change its input")
	}
}

// A hostile followed file reaches the board sanitised; the published
// hotAt is the one the board draws.
func TestFollowerSanitises(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/state.json"
	data := `{"schema":4,"plugin":"p","wallMs":7,"context":{"budget":null,"hotAt":1.5},` +
		`"sessions":[{"id":"a","title":"x\revent: datastar-patch-signals\r\r","status":"working"}]}`
	if err := fsx.WriteFileAtomic(path, []byte(data)); err != nil {
		t.Fatal(err)
	}
	got := make(chan Document, 4)
	f := &Follower{Path: path, OnDocument: func(d Document) { got <- d }}
	runFollower(t, f)
	d := <-got
	if d.Context.HotAt != DefaultHotAt {
		t.Errorf("hotAt %v, want %v", d.Context.HotAt, DefaultHotAt)
	}
	if title := d.Sessions[0].Title; HasControl(title) || !strings.HasPrefix(title, "x\uFFFDevent") {
		t.Errorf("title %q, want its CRs replaced", title)
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("x\r\ny", 1.5)
	f.Add("\xff\x00", -1.0)
	f.Add(strings.Repeat("é", 3000), 0.5)
	f.Fuzz(func(t *testing.T, s string, hot float64) {
		d := Sanitize(Document{Plugin: s, Retire: s, Context: Context{HotAt: hot}, OpenURL: &s,
			Sessions: []Session{{ID: s, Title: s, Cwd: s, Activity: &Activity{Label: s}, Approval: &Approval{Reason: s}}}})
		for _, v := range []string{d.Plugin, d.Retire, d.Sessions[0].ID, d.Sessions[0].Title, d.Sessions[0].Cwd, d.Sessions[0].Activity.Label, d.Sessions[0].Approval.Reason} {
			if textrule.Has(v) {
				t.Fatalf("%q survived", v)
			}
		}
		if !settings.ValidHotAt(d.Context.HotAt) {
			t.Fatalf("hotAt %v", d.Context.HotAt)
		}
		if len(d.Sessions[0].Title) > MaxTitle || len(d.Sessions[0].ID) > MaxSessionID {
			t.Fatal("not cut")
		}
	})
}

// A mirrored document's times are kept in 0 … MaxAt: a five-digit year is
// clamped (the row is kept, its time drawable), and the input untouched.
func TestSanitizeClampsTimes(t *testing.T) {
	far, before := int64(MaxAt+1), int64(-5)
	d := Document{Schema: Schema, WallMs: 1 << 52, Sessions: []Session{
		{ID: "a", Status: StatusDone, Since: 1 << 50, ApprovedAt: &far},
		{ID: "b", Status: StatusDone, Since: -1, ApprovedAt: &before},
	}}
	got := Sanitize(d)
	if got.WallMs != MaxAt || got.Sessions[0].Since != MaxAt || *got.Sessions[0].ApprovedAt != MaxAt ||
		got.Sessions[1].Since != 0 || *got.Sessions[1].ApprovedAt != 0 {
		t.Errorf("times not clamped to 0 … MaxAt: wallMs %d, %+v", got.WallMs, got.Sessions)
	}
	if far != MaxAt+1 {
		t.Error("Sanitize changed its input")
	}
}
