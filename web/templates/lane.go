package templates

import (
	"strings"

	"github.com/notch-web/notch-web/state"
)

// laneEntry is one entry of the "Waiting on you" lane: a row that needs
// the human (state.Queue), with what the lane says of it.
type laneEntry struct {
	S state.Session
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

// ID is the entry's element id.
func (e laneEntry) ID() string { return "lane-" + rowID(e.S.ID) }

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
		s := ss[w.Index]
		e := laneEntry{S: s, Agent: v.Approvals.Agents[s.ID], FromMs: w.FromMs, Cards: v.Approvals.has(s)}
		e.Machine = v.machineOf(s.ID)
		e.Project = unlabelled(s.Project, e.Machine)
		if w.Top != w.Index {
			top := ss[w.Top]
			e.Top = &top
			if !state.Waiting(top) {
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
	return rowName(e.S)
}
