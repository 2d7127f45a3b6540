//go:build conformance

package conformance

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// idle: the board shows the session (or not yet) and nothing working or
// needing the user: the agent waits at its prompt.
func idle(d state.Document) error {
	for _, s := range d.Sessions {
		if s.Status == state.StatusWorking || s.Status == state.StatusAttention {
			return errf("row %s is %q while the agent waits at its prompt", short(s.ID), s.Status)
		}
	}
	mains, subs := mainRows(d)
	if len(mains) > 1 {
		return errf("%d session rows, want at most 1", len(mains))
	}
	return noOrphans(d, subs)
}

// notBusy: after an answer of no or an interrupt, the one row neither
// works nor needs the user.
func notBusy(d state.Document) error {
	mains, subs := mainRows(d)
	if len(mains) != 1 {
		return errf("%d session rows, want 1", len(mains))
	}
	if s := mains[0]; s.Status == state.StatusWorking || s.Status == state.StatusAttention {
		return errf("row %s is %q, but the agent is idle at its prompt", short(s.ID), s.Status)
	}
	return noOrphans(d, subs)
}

// TestClaudeInteractive drives one Claude Code TUI session in tmux through
// every step — a plain turn, a subagent, an approval answered yes, one
// answered No (Esc), a turn interrupted while working — then quits, and
// checks the board after each.
func TestClaudeInteractive(t *testing.T) {
	r := claudeRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "interactive"
	// 2.1.328 starts a new user in "auto mode" (a classifier answers the
	// asks); the dialog under test is manual mode's.
	tm := r.tmux(claudeEnv(), "claude", "--permission-mode", "default")
	tm.waitScreen("Claude Code starts", 60*time.Second, shows("manual mode on"))
	tm.log("at start")
	r.waitBoard("at start", 5*time.Second, idle)

	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	d := r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	// 2.1.328's TUI writes a reply to the transcript only later (seen: not
	// 6 s after the Stop, before the next prompt): its tokens come a turn
	// late (checked after the next turn), unless the statusline is on.
	r.titled("after the plain turn", d, "scenario:plain Say hello.", false)

	tm.typeLine("scenario:subagent Ask a subagent about blue.", "UserPromptSubmit")
	// The parent answers at once (the subagent runs in the background),
	// then again when the subagent reports — or once, when the subagent
	// reported before the parent's answer. (Before any refused tool:
	// after one, Claude Code 2.1.328 leaves the Agent call out of the
	// history it sends, and the model is asked twice.)
	tm.waitScreen("the subagent turn's answer", 90*time.Second, tm.count(standin.FinalText, 2))
	tm.waitQuiet("after the subagent turn", "esc to interrupt", 30*time.Second)
	r.waitBoard("after the subagent turn", 30*time.Second, oneMain(state.StatusDone))
	r.waitBoard("the plain turn's tokens, a turn late", 15*time.Second, hasTokens)
	answers := strings.Count(tm.history(), standin.FinalText)

	tm.typeLine("scenario:tool Create the marker file.", "UserPromptSubmit")
	tm.waitScreen("the permission dialog", 60*time.Second, shows("Do you want to proceed?"))
	tm.log("permission dialog")
	r.waitBoard("at the permission dialog", 10*time.Second, oneMain(state.StatusAttention))
	seen := map[string]bool{}
	card := r.waitingCard("the card at the dialog", seen)                      // the board may answer too
	tm.confirm("Yes at the dialog", "Do you want to proceed?", 30*time.Second) // 1. Yes: the terminal answers first
	tm.waitScreen("the tool turn's answer", 60*time.Second, tm.count(standin.FinalText, answers+1))
	r.waitBoard("after yes", 10*time.Second, oneMain(state.StatusDone))
	r.waitCards("after yes", 10*time.Second, noCards)
	r.wantAnswer("a click after yes in the terminal", card, "allow", "", http.StatusConflict)

	tm.typeLine("scenario:tool Create it again.", "UserPromptSubmit")
	tm.waitScreen("the second permission dialog", 60*time.Second, shows("Do you want to proceed?"))
	r.waitBoard("at the second permission dialog", 10*time.Second, oneMain(state.StatusAttention))
	card = r.waitingCard("the card at the second dialog", seen)
	tm.keys("Escape") // No
	tm.waitScreen("the refusal", 20*time.Second, shows("Interrupted"))
	tm.log("after Esc at the dialog")
	r.waitBoard("after Esc at the dialog", 3*time.Second, notBusy)
	r.waitCards("after Esc at the dialog", 3*time.Second, noneWaiting)
	r.wantAnswer("a click after Esc in the terminal", card, "allow", "", http.StatusConflict)
	// The permission_prompt Notification comes ~6 s after the request: it
	// must not bring the ask back.
	r.holdBoard("after Esc at the dialog", 8*time.Second, notBusy)

	// Claude Code is idle at its prompt after the No: a prompt is taken
	// at once (a PermissionRequest hook still held by the host must not
	// hold it up).
	took := tm.typeLine(r.slow, "UserPromptSubmit")
	t.Logf("after Esc at the dialog, Claude Code took the next prompt in %v", took.Round(100*time.Millisecond))
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	tm.keys("Escape")
	// Esc before any output puts the prompt back into the input box (and
	// prints nothing); later, Claude Code prints "Interrupted".
	slowBack := func(s string) bool { return strings.Contains(inputBox(s), "scenario:slow") }
	tm.waitScreen("the interrupt", 20*time.Second, func(s string) bool { return slowBack(s) || tm.count("Interrupted", 2)(s) })
	tm.log("after the interrupt")
	r.waitBoard("after the interrupt", 3*time.Second, notBusy)
	if slowBack(tm.screen()) {
		tm.keys("-N", strconv.Itoa(len(r.slow)+10), "BSpace") // the slow prompt, and some
	}
	tm.waitQuiet("after the interrupt", "esc to interrupt", 30*time.Second)

	tm.exit("/exit", 30*time.Second)
	tm.log("after /exit")
	r.waitBoard("after /exit", 10*time.Second, settled(1, state.StatusDone))
	r.holdBoard("after /exit", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}
