//go:build conformance

package conformance

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// TestCodexInteractive drives one Codex TUI session in tmux: the hooks
// are trusted on Codex's own review screen ("t" trusts all), then a plain
// turn, an approval answered yes, one answered Esc, a turn interrupted
// while working, and /quit; the board is checked after each step (one row:
// the title helper thread's notify makes none).
func TestCodexInteractive(t *testing.T) {
	if os.Getenv("CONFORMANCE_CODEX_TUI") == "" {
		// Under the suite's tmux, Codex 0.169 sat at "Waiting for startup"
		// after the first prompt and never showed its hooks review (run
		// by hand, Enter there opened it and "t" trusted all; see
		// docs/conformance.md). Until that is understood, opt in.
		t.Skip("the Codex TUI run is opt-in (CONFORMANCE_CODEX_TUI=1): its hooks review does not come up under the suite's tmux yet")
	}
	r := codexRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "interactive"
	tm := r.tmux(codexEnv(), "codex")
	tm.waitScreen("Codex starts", 60*time.Second, shows("Ask Codex to do anything"))
	tm.log("at start")
	r.waitBoard("at start", 5*time.Second, idle)

	// Codex 0.169 holds the first prompt ("Waiting for startup") until
	// the untrusted hooks are dealt with; its question is not drawn, and
	// Enter opens the review table, where "t" trusts them all.
	tm.cmd(nil, "send-keys", "-t", "agent", "-l", "scenario:plain Say hello.")
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.waitScreen("waiting for startup", 30*time.Second, shows("Waiting for startup"))
	tm.keys("Enter")
	tm.waitScreen("the hooks review", 30*time.Second, shows("trust all"))
	tm.log("hooks review")
	tm.keys("t")
	tm.waitScreen("hooks trusted", 10*time.Second, func(s string) bool { return !strings.Contains(s, "trust all") })
	tm.keys("Escape")
	if !strings.Contains(tm.history(), standin.FinalText) {
		if strings.Contains(inputBox(tm.screen()), "scenario:plain") {
			tm.keys("Enter")
		} else {
			tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
		}
	}
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.holdBoard("after the plain turn", 2*time.Second, oneMain(state.StatusDone))

	tm.typeLine("scenario:tool Create the marker file.", "UserPromptSubmit")
	tm.waitScreen("the approval", 60*time.Second, shows("Would you like to run"))
	tm.log("approval")
	r.waitBoard("at the approval", 10*time.Second, oneMain(state.StatusAttention))
	tm.keys("y")
	tm.waitScreen("the tool turn's answer", 60*time.Second, tm.count(standin.FinalText, 2))
	r.waitBoard("after yes", 10*time.Second, oneMain(state.StatusDone))
	r.holdBoard("after yes", 2*time.Second, oneMain(state.StatusDone))

	tm.typeLine("scenario:tool Create it again.", "UserPromptSubmit")
	tm.waitScreen("the second approval", 60*time.Second, tm.count("Would you like to run", 2))
	r.waitBoard("at the second approval", 10*time.Second, oneMain(state.StatusAttention))
	tm.keys("Escape")
	tm.waitScreen("the refusal", 20*time.Second, func(s string) bool { return !strings.Contains(s, "Would you like to run") })
	tm.log("after Esc at the approval")
	r.waitBoard("after Esc at the approval", 5*time.Second, notBusy)
	r.holdBoard("after Esc at the approval", 3*time.Second, notBusy)

	tm.typeLine("scenario:slow Take your time.", "UserPromptSubmit")
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	tm.keys("Escape")
	tm.waitScreen("the interrupt", 20*time.Second, tm.count("interrupted", 2))
	tm.log("after the interrupt")
	r.waitBoard("after the interrupt", 5*time.Second, notBusy)

	tm.typeLine("/quit", "SessionEnd")
	tm.waitExit("/quit", 30*time.Second)
	tm.log("after /quit")
	r.waitBoard("after /quit", 10*time.Second, settled(1, state.StatusDone))
	r.holdBoard("after /quit", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}
