//go:build conformance

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// qwenStart starts Qwen Code's TUI in tmux, asking before tools (its
// default here is "auto", an LLM classifier), ready for a prompt: the row
// is there, waiting.
func qwenStart(r *run) *term {
	tm := r.tmux(qwenEnv(), "qwen", "--approval-mode", "default")
	tm.waitScreen("Qwen Code starts", 90*time.Second, shows("Type your message"))
	r.waitFor("SessionStart", 60*time.Second, func() bool { return r.count("SessionStart") > 0 })
	r.waitBoard("at start", 10*time.Second, oneMain(state.StatusDone))
	time.Sleep(time.Second)
	return tm
}

// TestQwenInteractive drives one Qwen Code TUI session in tmux: a plain
// turn, a tool confirmation answered yes, one answered Esc (only
// idle_prompt follows: the ask ends), an API-error turn (StopFailure:
// error), a turn interrupted while the model streams (idle_prompt again),
// and /quit (SessionEnd); the board is checked after each step.
func TestQwenInteractive(t *testing.T) {
	r := qwenRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "interactive"
	tm := qwenStart(r)
	tm.log("at start")

	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	d := r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.titled("after the plain turn", d, "scenario:plain Say hello.", true)

	tm.typeLine("scenario:tool Create the marker file.", "UserPromptSubmit")
	tm.waitScreen("the confirmation", 60*time.Second, shows("Allow execution of"))
	tm.log("confirmation")
	d = r.waitBoard("at the confirmation", 15*time.Second, oneMain(state.StatusAttention))
	if mains, _ := mainRows(d); len(mains) == 1 && (mains[0].Approval == nil || mains[0].Approval.ToolName != "run_shell_command") {
		t.Errorf("at the confirmation: the row's approval is %+v, want run_shell_command's", mains[0].Approval)
	}
	tm.keys("Enter") // 1. Yes, allow once
	tm.waitScreen("the tool turn's answer", 60*time.Second, func(s string) bool {
		return !strings.Contains(s, "Allow execution of") && tm.count(standin.FinalText, 2)(s)
	})
	r.waitBoard("after yes", 10*time.Second, oneMain(state.StatusDone))
	if !exists(filepath.Join(r.work, "conformance-tool.txt")) {
		t.Errorf("after yes: the tool did not run")
	}

	tm.typeLine("scenario:tool Create it again.", "UserPromptSubmit")
	tm.waitScreen("the second confirmation", 60*time.Second, shows("Allow execution of"))
	r.waitBoard("at the second confirmation", 15*time.Second, oneMain(state.StatusAttention))
	tm.keys("Escape")
	tm.waitScreen("the refusal", 20*time.Second, func(s string) bool { return !strings.Contains(s, "Allow execution of") })
	tm.log("after Esc at the confirmation")
	r.waitBoard("after Esc at the confirmation", 5*time.Second, oneMain(state.StatusDone))
	r.holdBoard("after Esc at the confirmation", 2*time.Second, notBusy)

	tm.typeLine("scenario:error400 Fail, please.", "UserPromptSubmit")
	r.waitBoard("after the API error", 30*time.Second, oneMain(state.StatusError))
	tm.log("after the API error")
	r.holdBoard("after the API error", 2*time.Second, oneMain(state.StatusError))

	held := suite.standin.Held()
	tm.typeLine("scenario:slow Take your time.", "UserPromptSubmit")
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	r.waitFor("the stand-in holding the slow stream", 30*time.Second, func() bool { return suite.standin.Held() > held })
	tm.keys("Escape")
	r.waitBoard("after the interrupt", 5*time.Second, oneMain(state.StatusDone))
	tm.log("after the interrupt")
	r.holdBoard("after the interrupt", 2*time.Second, notBusy)

	// Qwen Code puts an interrupted prompt back in its input: clear it.
	tm.keys("C-u")
	tm.keys("-l", "/quit")
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.waitExit("/quit", 30*time.Second)
	tm.log("after /quit")
	r.waitFor("SessionEnd", 5*time.Second, func() bool { return r.count("SessionEnd") > 0 })
	r.waitBoard("after /quit", 10*time.Second, settled(1, state.StatusDone))
	r.holdBoard("after /quit", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}

// lifecycleQwen: the pane's node (the package's launcher) starts
// cli.js, which relaunches itself once more with its own node flags; the
// innermost node runs the session and its hooks (Notch-Proc names it).
var lifecycleQwen = lifecycleAgent{
	name: "Qwen Code", newRun: qwenRun, prompt: "UserPromptSubmit", turnEnd: "Stop",
	start: qwenStart,
	agent: func(r *run, tm *term) int {
		return r.childWith(r.childWith(tm.panePID(), "cli.js"), "cli.js")
	},
}

// TestQwenLifecycle: Qwen Code 0.24.4's TUI ended the ways an agent ends
// outside a test (lifecycle_test.go). Its PermissionRequest is not held
// by the board (no card): its ask is a row that needs the user.
func TestQwenLifecycle(t *testing.T) {
	a := lifecycleQwen
	t.Run("kill_mid_turn", func(t *testing.T) { killMidTurn(t, a) })
	t.Run("kill_at_confirmation", func(t *testing.T) { killAtAsk(t, a, "Allow execution of", false) })
	t.Run("kill_idle", func(t *testing.T) { killIdle(t, a) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
}

// TestQwenReply types a reply from the board into a done Qwen Code TUI: a
// new turn, the stand-in receives the text; Stop (Escape) ends a working
// turn done.
func TestQwenReply(t *testing.T) {
	r := qwenRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "reply"
	r.noRecord = true
	tm := qwenStart(r)
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	replyAndStop(t, r, "UserPromptSubmit", os.Getenv("CONFORMANCE_TWO_LINES") != "", nil)
}
