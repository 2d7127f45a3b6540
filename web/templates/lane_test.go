package templates

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/state"
)

// laneBoard is a hub's board ("desk") with rows of another machine
// ("build") and of a quiet one ("gone"): five rows wait on the human — one
// a subagent of a working session, one a Claude Code Bash with its card —
// in the order they opened, not the order they began to wait.
func laneBoard() BoardView {
	const m = 60_000
	ask := func(id, title, project string, since int64, tool, reason string) state.Session {
		return state.Session{ID: id, Title: title, Project: project, Status: state.StatusAttention, Since: since, Identity: "teal",
			Approval: &state.Approval{ToolName: tool, Reason: reason}}
	}
	rows := []state.Session{
		ask("cc", "Refactor auth", "desk · api", t0-4*m, "Bash", "rm -rf build/"),
		{ID: "lead", Title: "Port the parser", Project: "desk · parser", Status: state.StatusWorking, Since: t0 - 30*m, Identity: "violet"},
		ask("sub", "explore tests", "desk · parser", t0-9*m, "Read", "<b>secrets</b>"),
		{ID: "idle", Title: "Docs", Project: "desk · docs", Status: state.StatusDone, Since: t0 - m, Identity: "lime"},
		ask("build/x", "Release notes", "build · web", t0-2*m, "write_file", ""),
		ask("build/y", "", "build", t0-4*m, "", "needs a decision"),
		ask("gone/z", "Old", "gone (unknown) · web", t0-60*m, "Bash", ""),
		ask("mine2", "Bump deps", "desk · api", t0-m/2, "Edit", "go.mod"),
	}
	rows[2].ParentSession, rows[2].Origin = "lead", state.OriginSubagent
	doc := state.Document{Schema: 4, Sessions: rows, Summary: state.Summarize(rows)}
	return BoardView{
		Doc: doc, NowMs: t0, Machine: "desk",
		RemoteRows:  map[string]bool{"build/x": true, "build/y": true, "gone/z": true},
		UnknownRows: map[string]bool{"gone/z": true},
		Approvals: Approvals{
			Agents: map[string]string{"cc": "claude-code", "build/x": "gemini"},
			Cards: map[string][]ApprovalCard{"cc": {{Key: "k1", Session: "cc", Agent: "claude-code", Tool: "Bash", Detail: "rm -rf build/",
				Nonce: "n1", State: CardWaiting}}},
		},
	}
}

var laneItemRE = regexp.MustCompile(`<li class="lane-item" id="[^"]*" data-session-id="([^"]*)"`)

func TestLane(t *testing.T) {
	got := render(t, Board(laneBoard()))
	var order []string
	for _, m := range laneItemRE.FindAllSubmatch(got, -1) {
		order = append(order, string(m[1]))
	}
	// oldest first; build/y and cc began together: the board's order (this
	// machine's first); the quiet machine's row is not current, so not in it
	if want := []string{"sub", "cc", "build/y", "build/x", "mine2"}; !slices.Equal(order, want) {
		t.Errorf("lane order %v, want %v", order, want)
	}
	lane := got[bytes.Index(got, []byte(`id="lane"`)):bytes.Index(got, []byte(`id="dash-head"`))]
	rows := got[bytes.Index(got, []byte(`id="dash-head"`)):]
	for _, want := range []string{
		`<span class="lane-count"><span class="sr-only">: </span>5</span>`,
		// a subagent's wait is its parent's: named by it
		`<span class="lane-name">Port the parser</span> <span class="lane-sub"><span aria-hidden="true">↳</span> subagent explore tests</span>`,
		// machine and project apart, the agent, what it asks (as text)
		`<span class="lane-machine"><span class="sr-only">on </span>build</span> <span class="lane-project"><span class="sr-only">in </span>web</span> <span class="agent" title="Gemini CLI">`,
		`<span class="reason">&lt;b&gt;secrets&lt;/b&gt;</span>`,
		// the card answers in the lane
		`aria-controls="lane-row-Y2M-cards"`, `<ul class="lane-cards" id="lane-row-Y2M-cards"><li class="cards" id="row-Y2M-cards"`,
		// Gemini CLI's row has no card to answer here: it says where
		`Answer in Gemini CLI`,
	} {
		if !bytes.Contains(lane, []byte(want)) {
			t.Errorf("lane lacks %q", want)
		}
	}
	// a machine alone (a session with no project) names no project
	if bytes.Contains(lane, []byte(`<span class="sr-only">in </span>build<`)) {
		t.Error("the machine repeated as a project")
	}
	if bytes.Contains(rows, []byte(`id="card-k1"`)) || bytes.Count(got, []byte(`id="card-k1"`)) != 1 {
		t.Error("the card is drawn under its row as well as in the lane")
	}
	// the parent waits behind its subagent
	if !bytes.Contains(rows, []byte(`<span class="blocked">its subagent waits on you <time class="wait" datetime="`+isoMs(t0-9*60_000)+`"></time></span>`)) {
		t.Error("the parent of a waiting subagent does not say so")
	}
	// the quiet machine's row keeps its place in the groups
	if !bytes.Contains(rows, []byte(`data-session-id="gone/z"`)) {
		t.Error("the quiet machine's row left the groups")
	}
	golden(t, "board_lane", lanePart(got))
}

// lanePart is the lane and the tab of a board, for the lane's golden.
func lanePart(b []byte) []byte {
	tab := b[bytes.Index(b, []byte(`<button id="tab"`)):]
	tab = tab[:bytes.Index(tab, []byte(`</button>`))+len(`</button>`)]
	lane := b[bytes.Index(b, []byte(`<section id="lane"`)):]
	lane = lane[:bytes.Index(lane, []byte(`</section>`))+len(`</section>`)]
	return append(append(tab, '\n'), lane...)
}

// TestLaneNothing: no lane without a wait, while the host is unknown (its
// rows are not current), or when every waiting row is a quiet machine's;
// and then the cards stay under their rows.
func TestLaneNothing(t *testing.T) {
	for name, v := range map[string]BoardView{
		"none waits": func() BoardView {
			v := laneBoard()
			for i := range v.Doc.Sessions {
				v.Doc.Sessions[i].Status, v.Doc.Sessions[i].Approval = state.StatusWorking, nil
			}
			return v
		}(),
		"host unknown": func() BoardView { v := laneBoard(); v.Unknown = true; return v }(),
		"only a quiet machine waits": func() BoardView {
			v := laneBoard()
			for _, s := range v.Doc.Sessions {
				v.UnknownRows[s.ID] = true
			}
			return v
		}(),
	} {
		got := render(t, Board(v))
		if bytes.Contains(got, []byte(`id="lane"`)) || bytes.Contains(got, []byte(`class="blocked"`)) {
			t.Errorf("%s: a lane", name)
		}
		if strings.Contains(name, "quiet") && !bytes.Contains(got, []byte(`id="card-k1"`)) {
			t.Errorf("%s: the card went", name)
		}
	}
}

// TestLaneClock: the lane's order and markup do not depend on the render's
// clock — the waits are ticked on the client from when they began, so a
// board rendered a minute later is the same bytes and sends no patch.
func TestLaneClock(t *testing.T) {
	a := laneBoard()
	b := laneBoard()
	b.NowMs += 60_000
	if !bytes.Equal(render(t, Board(a)), render(t, Board(b))) {
		t.Error("the board changed with the clock alone")
	}
}

func TestUnlabelled(t *testing.T) {
	for _, c := range []struct{ project, machine, want string }{
		{"desk · api", "desk", "api"},
		{"desk (unknown) · api", "desk", "api"},
		{"desk (clock +5m) · a · b", "desk", "a · b"},
		{"desk", "desk", ""},
		{"desk (unknown)", "desk", ""},
		{"desktop · api", "desk", "desktop · api"},
		{"api", "", "api"},
		{"api", "desk", "api"},
	} {
		if got := unlabelled(c.project, c.machine); got != c.want {
			t.Errorf("unlabelled(%q, %q) = %q, want %q", c.project, c.machine, got, c.want)
		}
	}
}
