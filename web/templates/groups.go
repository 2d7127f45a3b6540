package templates

import (
	"context"
	"encoding/base64"
	"io"
	"math"
	"strconv"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/state"
)

// rowGroup is one project's rows on the open board. The board groups rows by
// project: a subagent sits in its top-level session's group (under its
// parent, as the document orders it), whatever its own cwd says.
type rowGroup struct {
	// Name is the project, "" for sessions without one.
	Name string
	// Worst is the most urgent status in the group (state.Relevance), the
	// group's heading; "unknown" when every row of it is (a quiet machine's:
	// its last state is not current, so it heads nothing).
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

// Label is the group's heading text: the project, or words for none.
func (g rowGroup) Label() string {
	if g.Name == "" {
		return "no project"
	}
	return g.Name
}

// Count is how many sessions the group holds.
func (g rowGroup) Count() int { return len(g.Shown) + len(g.Folded) }

// groups splits the document's sessions into project groups, in the order
// each project first appears (open order, so a group keeps its place while
// its sessions change). A group's worst status heads it, of the rows not
// unknown (BoardView.UnknownRows); its finished rows fold.
//
// On a hub's board with rows of several machines, host/mesh puts each row's
// machine in front of its project ("build-box · api") and the rows in
// machine order (its own first, then the others by name), so the groups are
// by machine, then project, each machine's together.
func groups(ss []state.Session, unknown map[string]bool) []rowGroup {
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
	rank := func(status string) int {
		if status == statusUnknown {
			return math.MaxInt
		}
		return state.Relevance(status)
	}
	var out []rowGroup
	byName := map[string]int{}
	for i, s := range ss {
		name := ss[top[i]].Project
		gi, ok := byName[name]
		if !ok {
			gi = len(out)
			byName[name] = gi
			out = append(out, rowGroup{Name: name})
		}
		g := &out[gi]
		status := s.Status
		if unknown[s.ID] {
			status = statusUnknown
		}
		if g.Worst == "" || rank(status) < rank(g.Worst) {
			g.Worst = status
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

// groupList is the open board's rows, grouped by project (groups). Each
// group is headed by its project and its worst status; its finished rows
// fold into a count that unfolds. Which folds are open is the viewer's own
// state: notch.js keeps it and re-applies it after every patch, as it does
// the filter.
//
// It draws every row of the board, so it is written in Go (markup.go), as
// the row is.
func groupList(ss []state.Session, gs []rowGroup, ctxs []rowCtx, approvals Approvals) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		m := newMarkup(w)
		rows := func(list []int) {
			for _, i := range list {
				writeRow(m, ss[i], ctxs[i])
				if m.err == nil && !ctxs[i].InLane && approvals.has(ss[i]) {
					m.err = approvalCards(ss[i], approvals).Render(ctx, w)
				}
				if steer, draw := approvals.steers(ss[i], ctxs[i].Door.Kind); m.err == nil && draw {
					m.err = steerBox(ss[i], steer).Render(ctx, w)
				}
			}
		}
		for _, g := range gs {
			gid := g.ID()
			m.raw(`<div class="group" id="`, gid, `" role="group" aria-labelledby="`, gid, `-h"><h2 class="group-head" id="`, gid, `-h" data-status="`)
			m.esc(g.Worst)
			m.raw(`"><span class="group-dot" aria-hidden="true"></span> <span class="group-name"`)
			if g.Name == "" {
				m.raw(` data-none`)
			}
			m.raw(`>`)
			m.esc(g.Label())
			m.raw(`</span> <span class="group-worst"><span class="sr-only">, worst: </span>`)
			m.esc(statusWord(g.Worst))
			m.raw(`</span> <span class="group-count"><span class="sr-only">, sessions: </span>`, strconv.Itoa(g.Count()), `</span></h2>`)
			if len(g.Shown) > 0 {
				m.raw(`<ul class="rows">`)
				rows(g.Shown)
				m.raw(`</ul>`)
			}
			if len(g.Folded) > 0 {
				m.raw(`<button type="button" class="fold" aria-expanded="false" aria-controls="`, gid, `-done">`,
					strconv.Itoa(len(g.Folded)), ` done</button><ul class="rows folded" id="`, gid, `-done" hidden>`)
				rows(g.Folded)
				m.raw(`</ul>`)
			}
			m.raw(`</div>`)
		}
		return m.err
	})
}
