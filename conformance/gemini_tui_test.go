//go:build conformance

package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// TestGeminiInteractive drives one Gemini CLI TUI session in tmux: a plain
// turn, a tool confirmation answered yes, one answered Esc (no hook fires:
// the chat transcript's "Request cancelled." ends the ask), an API-error
// turn (a 400: error, not done), a turn interrupted while the model
// streams, and /quit; the board is checked after each step.
func TestGeminiInteractive(t *testing.T) {
	r := geminiRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "interactive"
	tm := r.tmux(geminiEnv(), "gemini")
	tm.waitScreen("Gemini CLI starts", 90*time.Second, shows("Type your message"))
	tm.log("at start")
	// SessionStart comes at launch: the row is there, waiting (done).
	// (Its input takes keys before it takes a prompt: on a loaded machine
	// an Enter right after the first draw was dropped for 45 s.)
	r.waitFor("SessionStart", 60*time.Second, func() bool { return r.count("SessionStart") > 0 })
	r.waitBoard("at start", 10*time.Second, oneMain(state.StatusDone))
	time.Sleep(2 * time.Second)

	tm.typeLine("scenario:plain Say hello.", "BeforeAgent")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	d := r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.titled("after the plain turn", d, "scenario:plain Say hello.", true) // AfterModel's promptTokenCount

	tm.typeLine("scenario:tool Create the marker file.", "BeforeAgent")
	tm.waitScreen("the confirmation", 60*time.Second, shows("Allow execution of"))
	tm.log("confirmation")
	r.waitBoard("at the confirmation", 15*time.Second, oneMain(state.StatusAttention))
	tm.keys("Enter") // 1. Allow once
	tm.waitScreen("the tool turn's answer", 60*time.Second, func(s string) bool {
		return !strings.Contains(s, "Allow execution of") && tm.count(standin.FinalText, 2)(s)
	})
	r.waitBoard("after yes", 10*time.Second, oneMain(state.StatusDone))

	tm.typeLine("scenario:tool Create it again.", "BeforeAgent")
	tm.waitScreen("the second confirmation", 60*time.Second, shows("Allow execution of"))
	r.waitBoard("at the second confirmation", 15*time.Second, oneMain(state.StatusAttention))
	tm.keys("Escape")
	tm.waitScreen("the cancel", 20*time.Second, shows("Request cancelled."))
	tm.log("after Esc at the confirmation")
	r.waitBoard("after Esc at the confirmation", 5*time.Second, notBusy)
	r.holdBoard("after Esc at the confirmation", 3*time.Second, notBusy)

	tm.typeLine("scenario:error400 Fail, please.", "BeforeAgent")
	r.waitBoard("after the API error", 30*time.Second, oneMain(state.StatusError))
	tm.log("after the API error")
	r.holdBoard("after the API error", 2*time.Second, oneMain(state.StatusError))

	tm.typeLine(r.slow, "BeforeAgent")
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	tm.keys("Escape")
	tm.waitScreen("the interrupt", 20*time.Second, tm.count("Request cancelled.", 2))
	tm.log("after the interrupt")
	r.waitBoard("after the interrupt", 5*time.Second, notBusy)

	tm.keys("-l", "/quit")
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.waitExit("/quit", 30*time.Second)
	tm.log("after /quit")
	r.waitBoard("after /quit", 10*time.Second, settled(1, state.StatusDone))
	r.holdBoard("after /quit", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}
