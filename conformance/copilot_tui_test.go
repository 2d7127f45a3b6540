//go:build conformance

package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// What Copilot CLI's TUI shows: its permission prompt's question, and its
// footer while it waits at its prompt.
const (
	copilotConfirm = "Do you want to run this command?"
	copilotIdle    = "Manual Approval"
)

// TestCopilotInteractive drives one Copilot CLI TUI session in tmux: no
// row before the first prompt (its SessionStart comes with it), a plain
// turn, its ask_user form (needs you, the question as the reason) answered
// in the terminal, a tool prompt answered Yes, one answered Esc (no hook fires: the
// session file's abort ends the ask), a model error (HTTP 400: no Stop,
// the file's session.error makes it an error), a turn interrupted with
// Ctrl-C while the model streams (no hook: the abort again), and /exit;
// the board is checked after each step.
func TestCopilotInteractive(t *testing.T) {
	r := copilotRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "interactive"
	tm := r.tmux(copilotEnv(), "copilot")
	tm.waitScreen("Copilot CLI starts", 90*time.Second, shows(copilotIdle))
	tm.log("at start")
	r.holdBoard("before the first prompt", 2*time.Second, func(d state.Document) error {
		if len(d.Sessions) != 0 {
			return errf("%d rows before any prompt (Copilot fires SessionStart with the first)", len(d.Sessions))
		}
		return nil
	})

	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	d := r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	if dd := r.waitBoard("the plain turn's tokens", 10*time.Second, hasTokens); hasTokens(dd) == nil {
		d = dd
	}
	r.titled("after the plain turn", d, "scenario:plain Say hello.", true)

	// Its ask_user (AskUserQuestion in its hooks) shows a form: the row
	// needs you with the question, answered in the terminal.
	tm.typeLine("scenario:askuser Pick a colour.", "UserPromptSubmit")
	tm.waitScreen("the question's form", 60*time.Second, shows(standin.AskQuestion, "enter accept"))
	d = r.waitBoard("at the question", 15*time.Second, oneMain(state.StatusAttention))
	if m, _ := mainRows(d); len(m) == 1 && (m[0].Approval == nil || m[0].Approval.Reason != standin.AskQuestion) {
		t.Errorf("at the question: approval %+v, want the question as its reason", m[0].Approval)
	}
	tm.keys("Enter") // the first option
	tm.waitScreen("the question's answer", 60*time.Second, func(s string) bool {
		return !strings.Contains(s, "enter accept") && tm.count(standin.FinalText, 2)(s)
	})
	r.waitBoard("after the answer", 10*time.Second, oneMain(state.StatusDone))

	tm.typeLine("scenario:tool Create the marker file.", "UserPromptSubmit")
	tm.waitScreen("the permission prompt", 60*time.Second, shows(copilotConfirm))
	tm.log("permission prompt")
	r.waitBoard("at the permission prompt", 15*time.Second, oneMain(state.StatusAttention))
	tm.keys("Enter") // 1. Yes
	tm.waitScreen("the tool turn's answer", 60*time.Second, func(s string) bool {
		return !strings.Contains(s, copilotConfirm) && tm.count(standin.FinalText, 3)(s)
	})
	r.waitBoard("after yes", 10*time.Second, oneMain(state.StatusDone))

	tm.typeLine("scenario:tool Create it again.", "UserPromptSubmit")
	tm.waitScreen("the second permission prompt", 60*time.Second, shows(copilotConfirm))
	r.waitBoard("at the second permission prompt", 15*time.Second, oneMain(state.StatusAttention))
	tm.keys("Escape")
	tm.waitScreen("the cancel", 20*time.Second, func(s string) bool {
		return strings.Contains(s, "Operation cancelled by user") && strings.Contains(footer(s), copilotIdle)
	})
	tm.log("after Esc at the permission prompt")
	r.waitBoard("after Esc at the permission prompt", 5*time.Second, notBusy)
	r.holdBoard("after Esc at the permission prompt", 2*time.Second, notBusy)

	tm.typeLine("scenario:error400 Fail, please.", "UserPromptSubmit")
	tm.waitScreen("the model error", 30*time.Second, shows("scripted bad request"))
	r.waitBoard("after the model error", 10*time.Second, oneMain(state.StatusError))
	tm.log("after the model error")
	r.holdBoard("after the model error", 2*time.Second, oneMain(state.StatusError))

	held := suite.standin.Held(r.slow)
	tm.typeLine(r.slow, "UserPromptSubmit")
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	r.waitFor("the stand-in holding the slow stream", 30*time.Second, func() bool { return suite.standin.Held(r.slow) > held })
	tm.keys("C-c")
	// Back at its prompt: the idle footer, not "Working" nor "Cancelling"
	// (a command typed while it cancels is queued, and stays queued).
	tm.waitScreen("the interrupt", 20*time.Second, func(s string) bool { return strings.Contains(footer(s), copilotIdle) })
	tm.log("after Ctrl-C")
	r.waitBoard("after Ctrl-C", 5*time.Second, notBusy)

	tm.exit("/exit", 30*time.Second)
	tm.log("after /exit")
	r.waitBoard("after /exit", 10*time.Second, settled(1, state.StatusDone))
	r.holdBoard("after /exit", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}

// lifecycleCopilot is Copilot CLI's TUI: the pane's node loader runs the
// native binary as its child, which runs the hooks (their Notch-Proc).
var lifecycleCopilot = lifecycleAgent{
	name: "GitHub Copilot CLI", newRun: copilotRun, prompt: "UserPromptSubmit", turnEnd: "Stop",
	start: func(r *run) *term {
		tm := r.tmux(copilotEnv(), "copilot")
		tm.waitScreen("Copilot CLI starts", 90*time.Second, shows(copilotIdle))
		return tm
	},
	agent: func(r *run, tm *term) int { return r.childWith(tm.panePID(), "copilot-linux-x64/copilot") },
}

// TestCopilotLifecycle: kill -9 of Copilot CLI's native binary mid-turn
// (no hook fires) settles the row error, from the process the hooks named.
func TestCopilotLifecycle(t *testing.T) {
	t.Run("kill_mid_turn", func(t *testing.T) { killMidTurn(t, lifecycleCopilot) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, lifecycleCopilot) })
}

// TestCopilotReply types a two-line reply from the board into a done
// Copilot CLI TUI: a new turn, the stand-in receives both lines; Stop ends a working
// turn done (its interrupt key is Ctrl-C: Escape does not stop a turn
// while the model streams).
func TestCopilotReply(t *testing.T) {
	r := copilotRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "reply"
	r.noRecord = true
	tm := r.tmux(copilotEnv(), "copilot")
	tm.waitScreen("Copilot CLI starts", 90*time.Second, shows(copilotIdle))
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	// A typed LF is a new line in its input: the model gets both lines.
	replyAndStop(t, r, "UserPromptSubmit", true, nil)
}
