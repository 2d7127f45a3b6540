package templates

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/notch-web/notch-web/state"
)

// laneEntry is one entry of the "Waiting on you" lane: a row that needs
// the human (state.Queue), with what the lane says of it.
type laneEntry struct {
	S *state.Session
	// Top is the top-level session a subagent works for, whose wait it
	// is (nil for a session that is its own top).
	Top *state.Session
	// Machine is the machine the session runs on, "" on a board of one
	// machine; Project its project without the machine's label.
	Machine, Project string
	// Agent is the agent whose hooks drive the row ("" for a harness's).
	Agent string
	// FromMs is when the wait began: the lane's "4m" is ticked from it on
	// the client (never re-rendered by the server for the clock).
	FromMs int64
	// Cards reports whether the row's approval cards (or where to answer)
	// are drawn in the entry rather than under the row.
	Cards bool
}

// lane is the board's queue of who waits (state.Queue over the rows,
// leaving out a quiet machine's), each entry as the lane draws it, and the
// top-level rows that wait behind a waiting subagent, with the oldest such
// wait's start. Nothing while the host is unknown: its rows are not
// current (docs/contract.md rule 3).
func (v BoardView) lane() (out []laneEntry, blocked map[string]int64) {
	if v.Unknown {
		return nil, nil
	}
	ss := v.Doc.Sessions
	var skip func(string) bool
	if len(v.UnknownRows) > 0 {
		skip = func(id string) bool { return v.UnknownRows[id] }
	}
	for _, w := range state.Queue(ss, skip, v.NowMs) {
		s := &ss[w.Index]
		e := laneEntry{S: s, Agent: v.Approvals.Agents[s.ID], FromMs: w.FromMs, Cards: v.Approvals.has(*s)}
		e.Machine = v.machineOf(s.ID)
		e.Project = unlabelled(s.Project, e.Machine)
		if w.Top != w.Index {
			top := &ss[w.Top]
			e.Top = top
			if !state.Waiting(*top) {
				if blocked == nil {
					blocked = map[string]int64{}
				}
				if _, ok := blocked[top.ID]; !ok {
					blocked[top.ID] = w.FromMs // the queue is oldest first
				}
			}
		}
		out = append(out, e)
	}
	return out, blocked
}

// inLane reports whether the row's cards are drawn in the lane (so not
// under the row): a row that waits, of a machine that is not quiet, on a
// board whose host is current.
func (v BoardView) inLane(s state.Session) bool {
	return !v.Unknown && state.Waiting(s) && !v.UnknownRows[s.ID]
}

// machineOf is the machine a row's session runs on: on a hub's board,
// another machine's row is keyed "machine/session" (host/mesh), and this
// machine's rows are Machine's; "" on a board of one machine.
func (v BoardView) machineOf(id string) string {
	if v.RemoteRows[id] {
		if m, _, ok := strings.Cut(id, "/"); ok {
			return m
		}
	}
	return v.Machine
}

// unlabelled is a project without the label a hub's board puts in front
// of it ("build-box · api", "build-box (unknown) · api"): the lane names
// the machine apart.
func unlabelled(project, machine string) string {
	if machine == "" || !strings.HasPrefix(project, machine) {
		return project
	}
	rest := project[len(machine):]
	if rest != "" && !strings.HasPrefix(rest, " · ") && !strings.HasPrefix(rest, " (") {
		return project // another name that starts alike
	}
	_, p, _ := strings.Cut(rest, " · ")
	return p // "" for the machine alone: a session with no project
}

// laneName is how an entry names its session: a subagent by the session
// it works for, then itself.
func (e laneEntry) laneName() string {
	if e.Top != nil {
		return rowName(*e.Top)
	}
	return rowName(*e.S)
}

// laneList is the "Waiting on you" lane above the groups: every row that
// needs the human, on every machine, oldest wait first (BoardView.lane),
// each with its wait, machine, project, agent and what it asks, and its
// approval cards, which answer there (they are not drawn again under the
// row). The groups below keep their order: the lane is the one place
// ordered by wait. The wait is a <time> notch.js ticks from when it began;
// the server draws the lane again only when a wait begins or ends.
//
// Its head folds and unfolds the entry's cards, or, for a row with none,
// goes to the row. Which entries are folded, and the keys that walk the
// lane (j / k, o, Esc, ?), are the viewer's own, in notch.js.
//
// It is written in Go (markup.go), as the row is: through templ its
// entries cost half a board's render again.
func laneList(v BoardView, entries []laneEntry) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if len(entries) == 0 {
			return nil
		}
		m := newMarkup(w)
		m.raw(`<section id="lane" class="lane" aria-labelledby="lane-h"><h2 class="lane-head" id="lane-h"><span class="lane-title">Waiting on you</span> `,
			`<span class="lane-count"><span class="sr-only">: </span>`, strconv.Itoa(len(entries)), `</span> <span class="lane-order">oldest first</span> `,
			`<button type="button" class="lane-keys" id="lane-keys" aria-haspopup="dialog" aria-keyshortcuts="?" title="Keys (?)"><span aria-hidden="true">?</span>`,
			`<span class="sr-only">Keyboard keys</span></button></h2><ol class="lane-list">`)
		for _, e := range entries {
			writeLaneItem(m, e)
			if e.Cards && m.err == nil {
				m.err = approvalCards(*e.S, v.Approvals).Render(ctx, w)
				m.raw(`</ul>`)
			}
			m.raw(`</li>`)
		}
		m.raw(`</ol></section>`)
		return m.err
	})
}

// writeLaneItem writes an entry up to its cards: the item, its head, and
// the list its cards go in (left open for them) when it has any.
func writeLaneItem(m *markup, e laneEntry) {
	id := "lane-" + rowID(e.S.ID)
	m.raw(`<li class="lane-item" id="`, id, `" data-session-id="`)
	m.esc(e.S.ID)
	m.raw(`" data-status="attention" data-identity="`)
	m.esc(e.S.Identity)
	m.raw(`"`)
	if e.Top != nil {
		m.raw(` data-subagent`)
	}
	m.raw(`><button type="button" class="lane-go"`)
	if e.Cards {
		m.raw(` aria-expanded="true" aria-controls="`, id, `-cards"`)
	}
	m.raw(`><span class="lane-wait"><span class="sr-only">waiting </span><time class="wait" datetime="`, isoMs(e.FromMs),
		`"></time></span> <span class="lane-name">`)
	m.esc(e.laneName())
	m.raw(`</span> `)
	if e.Top != nil {
		m.raw(`<span class="lane-sub"><span aria-hidden="true">↳</span> subagent `)
		m.esc(rowName(*e.S))
		m.raw(`</span> `)
	}
	m.raw(`<span class="lane-where">`)
	if e.Machine != "" {
		m.raw(`<span class="lane-machine"><span class="sr-only">on </span>`)
		m.esc(e.Machine)
		m.raw(`</span> `)
	}
	if e.Project != "" {
		m.raw(`<span class="lane-project"><span class="sr-only">in </span>`)
		m.esc(e.Project)
		m.raw(`</span> `)
	}
	if name := agentName(e.Agent); name != "" {
		m.raw(`<span class="agent" title="`, name, `"><span class="agent-mark" aria-hidden="true">`, agentMark(e.Agent),
			`</span><span class="agent-name">`, name, `</span></span>`)
	}
	m.raw(`</span> <span class="lane-ask"><span class="ask">asks</span> `)
	if a := e.S.Approval; a != nil {
		if a.ToolName != "" {
			m.raw(`<span class="tool">`)
			m.esc(a.ToolName)
			m.raw(`</span> `)
		}
		if a.Reason != "" {
			m.raw(`<span class="reason">`)
			m.esc(a.Reason)
			m.raw(`</span>`)
		}
	}
	m.raw(`</span></button>`)
	if e.Cards {
		m.raw(` <ul class="lane-cards" id="`, id, `-cards">`)
	}
}
