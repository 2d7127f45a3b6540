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

// TestCodexInteractive drives one Codex TUI session in tmux: the hooks
// are trusted on Codex's own review screen ("Trust all and continue"),
// then a plain turn, an approval answered yes, one answered Esc (the
// Interrupt hook), a turn interrupted while working, and /quit (which
// only disconnects from Codex's app-server: no SessionEnd); the board
// is checked after each step (one row: the title helper thread's notify
// makes none). Every process Codex started (its app-server daemons, in
// sessions of their own) is ended at cleanup (killStrays).
func TestCodexInteractive(t *testing.T) {
	r := codexRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "interactive"
	tm := r.tmux(codexEnv(), "codex")
	// Codex 0.169 draws its prompt at once, then starts its app-server
	// daemon and only then asks about the untrusted hooks: a prompt typed
	// before the question waits ("Waiting for startup") behind it.
	tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
	tm.log("hooks review")
	r.waitBoard("at start", 5*time.Second, idle)
	tm.trustCodexHooks("hooks trusted") // 2. Trust all and continue
	if conf, err := os.ReadFile(filepath.Join(r.home, ".codex", "config.toml")); err != nil || !strings.Contains(string(conf), "trusted_hash") {
		t.Fatalf("Codex recorded no trusted hook (%v):\n%s", err, conf)
	}
	tm.typeLine("scenario:plain Say hello.", "UserPromptSubmit")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	d := r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.titled("after the plain turn", d, "scenario:plain Say hello.", false) // Codex's usage is in its rollout, not read
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
	// (The first approval's question is redrawn as "You approved …":
	// the screen, not the history, says when the second is up.)
	tm.waitScreen("the second approval", 60*time.Second, shows("Would you like to run"))
	r.waitBoard("at the second approval", 10*time.Second, oneMain(state.StatusAttention))
	tm.keys("Escape")
	tm.waitScreen("the refusal", 20*time.Second, func(s string) bool { return !strings.Contains(s, "Would you like to run") })
	if r.count("Interrupt") == 0 {
		r.waitFor("the Interrupt hook", 10*time.Second, func() bool { return r.count("Interrupt") > 0 })
	}
	tm.log("after Esc at the approval")
	r.waitBoard("after Esc at the approval", 5*time.Second, notBusy)
	r.holdBoard("after Esc at the approval", 3*time.Second, notBusy)

	tm.typeLine(r.slow, "UserPromptSubmit")
	r.waitBoard("while the model streams", 30*time.Second, oneMain(state.StatusWorking))
	tm.keys("Escape")
	tm.waitScreen("the interrupt", 20*time.Second, tm.count("interrupted", 2))
	tm.log("after the interrupt")
	r.waitBoard("after the interrupt", 5*time.Second, notBusy)

	// Codex 0.169's TUI is a client of its app-server daemon: /quit
	// disconnects ("Any running work continues"; codex resume reconnects)
	// and fires no SessionEnd. The thread is idle, so the row stays done.
	tm.keys("-l", "/quit")
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.waitExit("/quit", 30*time.Second)
	tm.log("after /quit")
	r.waitBoard("after /quit", 10*time.Second, settled(1, state.StatusDone))
	r.holdBoard("after /quit", 1500*time.Millisecond, settled(1, state.StatusDone))
	r.logEvents()
}
