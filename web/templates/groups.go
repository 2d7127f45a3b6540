package templates

import (
	"encoding/base64"
	"strconv"

	"github.com/notch-web/notch-web/state"
)

// rowGroup is one project's rows on the open board. The board groups rows by
// project: a subagent sits in its top-level session's group (under its
// parent, as the document orders it), whatever its own cwd says.
type rowGroup struct {
	// Name is the project, "" for sessions without one.
	Name string
	// Worst is the most urgent status in the group (state.Relevance), the
	// group's heading.
	Worst string
	// Shown are the rows drawn in the group, and Folded the finished ones
	// folded into a count that unfolds: a done session whose subagents are
	// all done too, with them, once there are minFold such rows. Both are
	// indices into the document's sessions, in its order.
	Shown, Folded []int
}

// ID is the group's element id: stable for a project, valid whatever the
// project's name holds.
func (g rowGroup) ID() string { return "grp-" + base64.RawURLEncoding.EncodeToString([]byte(g.Name)) }

// FoldID is the id of the list of the group's folded rows.
func (g rowGroup) FoldID() string { return g.ID() + "-done" }

// Label is the group's heading text: the project, or words for none.
func (g rowGroup) Label() string {
	if g.Name == "" {
		return "no project"
	}
	return g.Name
}

// FoldWord is the fold's button text, e.g. "3 done".
func (g rowGroup) FoldWord() string { return strconv.Itoa(len(g.Folded)) + " done" }

// Count is how many sessions the group holds.
func (g rowGroup) Count() int { return len(g.Shown) + len(g.Folded) }

// groups splits the document's sessions into project groups, in the order
// each project first appears (open order, so a group keeps its place while
// its sessions change). A group's worst status heads it; its finished rows
// fold.
func groups(ss []state.Session) []rowGroup {
	index := make(map[string]int, len(ss)) // session id → its position
	for i, s := range ss {
		index[s.ID] = i
	}
	// parentOf is a session's parent when the parent is on the board (and is
	// not the session itself); -1 for a top-level row.
	parentOf := func(i int) int {
		p := ss[i].ParentSession
		if p == "" || p == ss[i].ID {
			return -1
		}
		if j, ok := index[p]; ok {
			return j
		}
		return -1
	}
	// top is the session's top-level ancestor (a cycle stops the walk).
	top := make([]int, len(ss))
	for i := range ss {
		t := i
		for n := 0; n < len(ss); n++ {
			p := parentOf(t)
			if p < 0 {
				break
			}
			t = p
		}
		top[i] = t
	}
	// A tree folds when every row in it is done.
	live := make([]bool, len(ss)) // by top-level index: something in the tree is not done
	for i, s := range ss {
		if s.Status != state.StatusDone {
			live[top[i]] = true
		}
	}
	var out []rowGroup
	byName := map[string]int{}
	for i, s := range ss {
		name := ss[top[i]].Project
		gi, ok := byName[name]
		if !ok {
			gi = len(out)
			byName[name] = gi
			out = append(out, rowGroup{Name: name, Worst: s.Status})
		}
		g := &out[gi]
		if state.Relevance(s.Status) < state.Relevance(g.Worst) {
			g.Worst = s.Status
		}
		if live[top[i]] {
			g.Shown = append(g.Shown, i)
		} else {
			g.Folded = append(g.Folded, i)
		}
	}
	// A lone finished row stays in place: "1 done" would take a line to
	// hide one.
	for gi := range out {
		if g := &out[gi]; len(g.Folded) > 0 && len(g.Folded) < minFold {
			g.Shown = mergeOrder(g.Shown, g.Folded)
			g.Folded = nil
		}
	}
	return out
}

// minFold is the fewest finished rows a group folds into a count.
const minFold = 2

// mergeOrder merges two ascending lists of indices into one.
func mergeOrder(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
