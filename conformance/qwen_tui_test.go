//go:build conformance

package conformance

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
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

	held := suite.standin.Held(r.slow)
	tm.typeLine(r.slow, "UserPromptSubmit")
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	r.waitFor("the stand-in holding the slow stream", 30*time.Second, func() bool { return suite.standin.Held(r.slow) > held })
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
// by the board (installed without --approvals): its ask is a row that
// needs the user.
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

// TestQwenApprovals answers Qwen Code's permission asks from the board
// (hooks install qwen --approvals): its PermissionRequest hook is held
// before its dialog shows, and the board's decision is the hook's answer.
// An Allow POSTed as the board's button does runs the tool; a Deny with a
// reason reaches the model as the call's result; when the hold ends (10 s)
// the dialog shows, the card stops offering an answer, and once the human
// answered there a click is told 409. The board is checked after each.
func TestQwenApprovals(t *testing.T) {
	r := qwenRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "approvals"
	if out, err := r.notch("hooks", "install", "qwen", "--url", r.proxy, "--approvals"); err != nil {
		t.Fatalf("hooks install qwen --approvals: %v\n%s", err, out)
	}
	tm := qwenStart(r)
	marker := filepath.Join(r.work, "conformance-tool.txt")

	// a. Allow once, from the board: while the hook is held, Qwen Code
	// draws no dialog of its own (why answering is opt-in).
	from := len(suite.standin.Requests())
	tm.typeLine("scenario:tool Create the marker file.", "UserPromptSubmit")
	card := r.waitingCard("the card to allow", map[string]bool{})
	r.waitBoard("at the card", 5*time.Second, oneMain(state.StatusAttention))
	time.Sleep(time.Second)
	if s := tm.screen(); strings.Contains(s, "Allow execution of") {
		t.Errorf("Qwen Code shows its dialog while its hook is held:\n%s", s)
	}
	tm.log("while the hook is held")
	clicked := time.Now()
	r.wantAnswer("Allow once", card, "allow", "", http.StatusNoContent)
	r.waitBoard("after Allow from the board", 10*time.Second, func(d state.Document) error {
		if err := oneMain(state.StatusWorking)(d); err != nil && r.count("Stop") == 0 {
			return err
		}
		return nil
	})
	if res, ok := resultWith(t, from, "Exit Code: 0", 30*time.Second); ok {
		t.Logf("the model got the tool's result %v after the click: %q", time.Since(clicked).Round(100*time.Millisecond), res.Text)
	}
	tm.waitScreen("the tool turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	if !exists(marker) {
		t.Errorf("allowed from the board, but the tool did not run: no %s", filepath.Base(marker))
	}
	r.waitBoard("after the allowed turn", 10*time.Second, approvedRow)
	r.waitCards("after Allow from the board", 10*time.Second, noCards)
	r.wantAnswer("Allow replayed", card, "allow", "", http.StatusForbidden) // the nonce is spent

	// b. Deny with a reason, from the board: Qwen Code sends the reason to
	// the model as the refused call's result, and the turn goes on.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	reason := "Not now: use the staging copy (" + strconv.FormatInt(time.Now().UnixNano()%1e6, 36) + ")"
	from = len(suite.standin.Requests())
	tm.typeLine("scenario:tool Create it again.", "UserPromptSubmit")
	card = r.waitingCard("the card to deny", map[string]bool{})
	r.wantAnswer("Deny with a reason", card, "deny", reason, http.StatusNoContent)
	if res, ok := resultWith(t, from, reason, 30*time.Second); ok {
		t.Logf("the model got the refusal: tool result(%s, is_error=%v): %q", res.ID, res.IsError, res.Text)
	}
	tm.waitScreen("the denied turn's answer", 60*time.Second, tm.count(standin.FinalText, 2))
	if exists(marker) {
		t.Errorf("denied from the board, but the tool ran: %s exists", filepath.Base(marker))
	}
	r.waitBoard("after Deny from the board", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after Deny from the board", 10*time.Second, noCards)

	// c. Nobody answers on the board: the hold ends, Qwen Code shows its
	// dialog, the card says to answer there (a click is 409), and once
	// the human said yes in the terminal the card says so (409 still).
	tm.typeLine("scenario:tool Create it a third time.", "UserPromptSubmit")
	card = r.waitingCard("the card left alone", map[string]bool{})
	tm.waitScreen("the dialog once the hold ended", 30*time.Second, shows("Allow execution of"))
	tm.log("the dialog after the hold")
	r.waitCards("after the hold", 5*time.Second, noneWaiting)
	r.wantAnswer("Allow after the hold", card, "allow", "", http.StatusConflict)
	tm.keys("Enter") // 1. Yes, allow once
	r.waitCards("answered in the terminal", 10*time.Second, func(cs []boardCard) error {
		if len(cs) == 1 && cs[0].State == "answered" {
			return nil
		}
		return errf("no card that says it was answered")
	})
	if st, body := r.answer(card, "deny", "too late"); st != http.StatusConflict || !strings.Contains(body, "terminal") {
		t.Errorf("a click after the terminal's answer: %d %q, want 409 (answered in the terminal)", st, strings.TrimSpace(body))
	}
	tm.waitScreen("the third turn's answer", 60*time.Second, tm.count(standin.FinalText, 3))
	if !exists(marker) {
		t.Errorf("allowed in the terminal, but the tool did not run: no %s", filepath.Base(marker))
	}
	r.waitBoard("after yes in the terminal", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after yes in the terminal", 10*time.Second, noCards)

	tm.keys("-l", "/quit")
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.waitExit("/quit", 30*time.Second)
	r.waitBoard("after /quit", 10*time.Second, settled(1, state.StatusDone))
	r.logEvents()
}
