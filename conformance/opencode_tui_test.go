//go:build conformance

package conformance

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"
)

// openCodeTUI starts OpenCode's TUI in tmux and waits for its prompt.
func openCodeTUI(r *run) *term { return ocTUI(r, openCode) }

// ocTUI starts an OpenCode's TUI in tmux and waits for its prompt.
// OpenCode makes a session only at the first prompt: until then the board
// has no row for it.
func ocTUI(r *run, a ocAgent) *term {
	r.t.Helper()
	tm := r.tmux(a.env(), a.name)
	tm.waitScreen(a.display+" starts", 180*time.Second, shows(a.ready))
	return tm
}

// ocType types a prompt into OpenCode's input, presses Enter once the text
// is drawn, and waits for the turn to start (session.status busy).
func (tm *term) ocType(text string) {
	tm.r.t.Helper()
	before := tm.r.count("session.status")
	if out, err := tm.cmd(nil, "send-keys", "-t", "agent", "-l", text); err != nil {
		tm.r.t.Fatalf("send-keys: %v %s", err, out)
	}
	tm.waitScreen("the prompt is typed", 20*time.Second, shows(text))
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.r.waitFor("the turn's start ("+text+")", typeLineWithin, func() bool { return tm.r.count("session.status") > before })
}

// ocQuit quits an OpenCode's TUI with ^C and waits for it to exit.
// OpenCode 1.18 exits at one. Kilo Code CLI 7.7.7 asks for a second: the
// first shows "ctrl+c again to exit" for a moment beside its input (its
// source: "Press ctrl+c again to exit"), and the second, pressed while
// that shows, quits.
func (tm *term) ocQuit(a ocAgent, step string) {
	tm.r.t.Helper()
	tm.keys("C-c")
	if a.doubleQuit {
		tm.waitScreen(step+": the second ^C's hint", 20*time.Second, shows("again to exit"))
		tm.keys("C-c")
	}
	tm.waitExit(step, 30*time.Second)
}

// titledRow is a board check: the one row has a title.
func titledRow(d state.Document) error {
	if m, _ := mainRows(d); len(m) == 1 && m[0].Title != "" {
		return nil
	}
	return errf("no title on the row")
}

// asks is a board check: the one row needs the user for tool.
func asks(tool string) func(state.Document) error {
	return func(d state.Document) error {
		if err := oneMain(state.StatusAttention)(d); err != nil {
			return err
		}
		if m, _ := mainRows(d); m[0].Approval == nil || m[0].Approval.ToolName != tool {
			return errf("approval %+v, want one for %s", m[0].Approval, tool)
		}
		return nil
	}
}

// TestOpenCodeInteractive drives one TUI session through every state the
// board shows, in one OpenCode (each start costs seconds of CPU): no row
// before the first prompt; a shell call that asks (needs you, the command
// as the reason), allowed once in the terminal (done, one step,
// approvedAt, OpenCode's title, tokens); another refused with Reject
// (rejected: no approvedAt news, the call an error); Reply and Stop from
// the board (a plain turn typed into its pane; Stop is two Escapes, the
// turn done); an API error (error); and ^C, which ends OpenCode (the
// plugin's dispose: the row settles as it was, no process record).
func TestOpenCodeInteractive(t *testing.T) { ocInteractive(t, openCode) }

// ocInteractive is TestOpenCodeInteractive for an OpenCode.
func ocInteractive(t *testing.T, a ocAgent) {
	t.Parallel()
	r := ocRun(t, a, "ask")
	r.scenario = "tui_session"
	r.final = "settled 1 " + state.StatusError
	tm := ocTUI(r, a)
	if d, err := r.board(); err == nil && len(d.Sessions) != 0 {
		t.Errorf("rows before the first prompt: %s", rowsText(d))
	}

	tm.ocType("scenario:tool Create the marker file.")
	d := r.waitBoard("at the permission prompt", 60*time.Second, asks("bash"))
	tm.waitScreen("the permission prompt", 30*time.Second, shows("Permission required", "Allow once"))
	r.orStop()
	if m, _ := mainRows(d); len(m) == 1 && m[0].Approval.Reason != "touch conformance-tool.txt" {
		t.Errorf("the ask's reason is %q, want the command", m[0].Approval.Reason)
	}
	tm.keys("Enter") // Allow once
	d = r.waitBoard("after Allow once", 60*time.Second, oneMain(state.StatusDone))
	r.orStop()
	if dd := r.waitBoard("the turn's tokens", 10*time.Second, hasTokens); hasTokens(dd) == nil {
		d = dd
	}
	// The agent's own title (Kilo's TUI sends it after the turn's idle).
	if dd := r.waitBoard("the agent's title", 10*time.Second, titledRow); titledRow(dd) == nil {
		d = dd
	}
	m, _ := mainRows(d)
	if len(m) == 1 && (m[0].Steps != 1 || m[0].ApprovedAt == nil || m[0].Title == "") {
		t.Errorf("after Allow once: steps %d, approvedAt %v, title %q: want 1, set, OpenCode's", m[0].Steps, m[0].ApprovedAt, m[0].Title)
	}
	var allowedAt int64
	if len(m) == 1 && m[0].ApprovedAt != nil {
		allowedAt = *m[0].ApprovedAt
	}

	tm.ocType("scenario:tool Create the marker file again.")
	r.waitBoard("at the second permission prompt", 60*time.Second, asks("bash"))
	tm.waitScreen("the second permission prompt", 30*time.Second, shows("Permission required", "Reject"))
	r.orStop()
	a.reject(tm)
	d = r.waitBoard("after Reject", 60*time.Second, oneMain(state.StatusDone))
	r.orStop()
	if m, _ := mainRows(d); len(m) == 1 && (m[0].ErrorStreak != 1 || m[0].ApprovedAt == nil || *m[0].ApprovedAt != allowedAt) {
		t.Errorf("after Reject: errorStreak %d, approvedAt %v: want 1 and the first Allow's", m[0].ErrorStreak, m[0].ApprovedAt)
	}

	replyAndStop(t, r, "session.status", os.Getenv("CONFORMANCE_TWO_LINES") != "", nil)
	r.orStop()

	tm.ocType("scenario:error400 Fail, please.")
	r.waitBoard("after the API error", 60*time.Second, oneMain(state.StatusError))
	r.orStop()
	// Why it stopped: session.error's words on the row (docs/agents.md).
	var why string
	r.waitFor("the row's why", 20*time.Second, func() bool {
		why = r.whyText()
		return strings.Contains(why, "scripted bad request")
	})
	t.Logf("after the API error the row says: %s", why)

	tm.ocQuit(a, "^C")
	r.waitBoard("after ^C", 10*time.Second, settled(1, state.StatusError))
	r.waitFor("the plugin's dispose", 5*time.Second, func() bool { return r.count("notch-web.dispose") == 1 })
	r.holdBoard("after ^C", 1500*time.Millisecond, settled(1, state.StatusError))
	if n := r.processRecords(); n != 0 {
		t.Errorf("%d process records: the dispose should have settled the row first", n)
	}
	r.logEvents()
	if t.Failed() {
		t.Logf("screen:\n%s", strings.TrimSpace(tm.screen()))
	}
}

var lifecycleOpenCode = lifecycleAgent{
	name: "OpenCode", prompt: "session.status", turnEnd: "session.idle",
	newRun: func(t *testing.T) *run { return opencodeRun(t, "ask") },
	start:  openCodeTUI,
	// The native opencode binary is the pane's process; its plugin runs
	// in it (a worker thread) and "notch-web hook --origin" names it.
	agent: func(r *run, tm *term) int { return tm.panePID() },
}

// TestLifecycleOpenCode: kill -9 of OpenCode mid-turn, and at its
// permission prompt, fires nothing; the host settles the row from the
// process's end.
func TestLifecycleOpenCode(t *testing.T) {
	a := lifecycleOpenCode
	t.Run("kill_mid_turn", func(t *testing.T) { t.Parallel(); killMidTurn(t, a) })
	t.Run("kill_at_permission", func(t *testing.T) { t.Parallel(); killAtAsk(t, a, "Permission required", false) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
}
