package templates

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/state"
)

// TestGroups covers the open board's grouping: by project in the order
// projects first appear, a subagent in its top-level session's group, the
// worst status heading each group, and done trees folded.
func TestGroups(t *testing.T) {
	s := func(id, project, status, parent string) state.Session {
		return state.Session{ID: id, Project: project, Status: status, ParentSession: parent}
	}
	type want struct {
		name          string
		worst         string
		shown, folded []int
	}
	for _, tc := range []struct {
		name string
		ss   []state.Session
		want []want
	}{
		{"empty", nil, nil},
		{
			"projects in first-seen order, worst status heads",
			[]state.Session{
				s("a", "api", "working", ""),
				s("b", "web", "done", ""),
				s("c", "api", "attention", ""),
				s("d", "web", "error", ""),
				s("e", "api", "done", ""),
				s("f", "web", "done", ""),
			},
			[]want{
				{"api", "attention", []int{0, 2, 4}, nil}, // one finished row stays in place
				{"web", "error", []int{3}, []int{1, 5}},
			},
		},
		{
			"error outranks working, working outranks done",
			[]state.Session{s("a", "x", "done", ""), s("b", "x", "working", ""), s("c", "y", "working", ""), s("d", "y", "error", ""), s("e", "x", "done", "")},
			[]want{{"x", "working", []int{1}, []int{0, 4}}, {"y", "error", []int{2, 3}, nil}},
		},
		{
			"a subagent sits with its parent, whatever its project",
			[]state.Session{s("p", "api", "working", ""), s("p/1", "elsewhere", "attention", "p")},
			[]want{{"api", "attention", []int{0, 1}, nil}},
		},
		{
			"a done parent with a working subagent stays shown, with it",
			[]state.Session{s("p", "api", "done", ""), s("p/1", "api", "working", "p")},
			[]want{{"api", "working", []int{0, 1}, nil}},
		},
		{
			"a done tree folds whole; an errored subagent keeps it shown",
			[]state.Session{
				s("p", "api", "done", ""), s("p/1", "api", "done", "p"),
				s("q", "api", "done", ""), s("q/1", "api", "error", "q"),
			},
			[]want{{"api", "error", []int{2, 3}, []int{0, 1}}},
		},
		{
			"a parent not on the board leaves its subagent to its own project",
			[]state.Session{s("x/1", "web", "working", "x")},
			[]want{{"web", "working", []int{0}, nil}},
		},
		{
			"no project is a group of its own",
			[]state.Session{s("a", "", "done", ""), s("b", "api", "working", ""), s("c", "", "done", "")},
			[]want{{"", "done", nil, []int{0, 2}}, {"api", "working", []int{1}, nil}},
		},
		{
			"a parent cycle stops",
			[]state.Session{s("a", "api", "working", "b"), s("b", "web", "working", "a")},
			nil, // checked below: it must return
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := groups(tc.ss, nil)
			if tc.name == "a parent cycle stops" {
				if n := len(got); n == 0 {
					t.Fatal("no group")
				}
				return
			}
			var gw []want
			for _, g := range got {
				gw = append(gw, want{g.Name, g.Worst, g.Shown, g.Folded})
			}
			if !reflect.DeepEqual(gw, tc.want) {
				t.Errorf("groups:\n got %+v\nwant %+v", gw, tc.want)
			}
		})
	}
}

// TestGroupIDs: a group's ids are valid and distinct whatever the project
// holds.
func TestGroupIDs(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"", "api", "a b", `"><script>`, "api-done", "ÿ/…"} {
		id := rowGroup{Name: name}.ID()
		if strings.ContainsAny(id, " \"<>/") {
			t.Errorf("%q: id %q", name, id)
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("%q and %q share %q", prev, name, id)
		}
		seen[id] = name
	}
}

// TestGroupListRender: the heading names the project and its worst status,
// the fold names its count, and a row does not repeat its group's project.
func TestGroupListRender(t *testing.T) {
	ss := []state.Session{
		{ID: "a", Project: "api", Title: "A", Status: "working", Identity: "teal", Since: 1},
		{ID: "b", Project: "api", Title: "B", Status: "done", Identity: "violet", Since: 1},
		{ID: "c", Project: "api", Title: "C", Status: "done", Identity: "coral", Since: 1},
		{ID: "d", Project: "<web>", Title: "D", Status: "attention", Identity: "pink", Since: 1},
	}
	v := BoardView{Doc: state.Document{Schema: 4, Sessions: ss}}
	var buf bytes.Buffer
	if err := groupList(ss, groups(ss, nil), v.rowCtxs(), Approvals{}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{
		`data-status="working"><span class="group-dot"`,
		`<span class="group-name">api</span>`,
		`>working</span>`,
		`aria-expanded="false" aria-controls="grp-YXBp-done">2 done</button>`,
		`<span class="group-name">&lt;web&gt;</span>`,
		`needs you</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("missing %s in\n%s", want, html)
		}
	}
	if strings.Contains(html, `class="project"`) {
		t.Errorf("a row repeats its group's project:\n%s", html)
	}
}
