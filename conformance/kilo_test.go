//go:build conformance

package conformance

import (
	"testing"
	"time"
)

// Kilo Code CLI 7.7.7 is an OpenCode fork, and these are the OpenCode
// scenarios (ocAgent) run against kilo: the same plugin, events and
// database, its own command, config and environment, and its own keys
// where they differ (its Reject, its double ^C). They run in make
// conformance: the whole of them took 6.5 minutes on 2 cores at a load
// average of 8, and 29 at 25–40, where each kilo start took 1–3 minutes
// (docs/agents.md says what each proves).

// TestKiloHeadless runs kilo run once per scenario.
func TestKiloHeadless(t *testing.T) { ocHeadless(t, kiloCode) }

// TestKiloInterrupt: SIGINT to kilo run mid-turn.
func TestKiloInterrupt(t *testing.T) { ocInterrupt(t, kiloCode) }

// TestKiloInteractive drives one TUI session through every state, as
// TestOpenCodeInteractive.
func TestKiloInteractive(t *testing.T) { ocInteractive(t, kiloCode) }

// TestKiloApprovals answers Kilo's permission asks from the board and in
// its TUI, as TestOpenCodeApprovals.
func TestKiloApprovals(t *testing.T) { ocApprovals(t, kiloCode) }

// steerKilo is Kilo's TUI started from a shell (steer_test.go).
var steerKilo = steerAgent{newRun: func(t *testing.T) *run { return ocRun(t, kiloCode, "ask") }, env: kiloEnv, argv: []string{"kilo"},
	prompt: "session.status", exit: "/exit", turn: 4 * time.Minute,
	ready:      func(r *run, tm *term) { tm.waitScreen("Kilo Code CLI starts", 300*time.Second, shows(kiloCode.ready)) },
	typePrompt: func(tm *term, text string) { tm.ocType(text) }}

// TestSteerDraftKilo: a Reply over a half-typed draft in Kilo's input is
// refused 409 (OpenCode's rule, adapters/opencode/input.go, read on
// Kilo's screens: adapters/kilo/testdata/screens).
func TestSteerDraftKilo(t *testing.T) { replyOverDraft(t, steerKilo) }

// TestSteerGoneKilo: Reply and Stop once Kilo has gone from its pane
// (its own /exit, a kill -9 of what runs in the pane) are refused, and
// the shell never runs the reply.
func TestSteerGoneKilo(t *testing.T) {
	t.Run("exit", func(t *testing.T) { replyGone(t, steerKilo, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerKilo, "kill") })
}

var lifecycleKilo = lifecycleAgent{
	name: "Kilo Code CLI", prompt: "session.status", turnEnd: "session.idle",
	newRun: func(t *testing.T) *run { return ocRun(t, kiloCode, "ask") },
	start:  func(r *run) *term { return ocTUI(r, kiloCode) },
	// The pane's process is kilo's node launcher (bin/kilo), which spawns
	// the native binary (bin/.kilo) and waits on it; the plugin runs in
	// the native one, and "notch-web hook --origin" names it.
	agent: func(r *run, tm *term) int { return r.childWith(tm.panePID(), ".kilo") },
}

// TestLifecycleKilo: kill -9 of Kilo's native process mid-turn and at its
// permission prompt; a host restarted while a turn ends.
func TestLifecycleKilo(t *testing.T) {
	a := lifecycleKilo
	t.Run("kill_mid_turn", func(t *testing.T) { t.Parallel(); killMidTurn(t, a) })
	t.Run("kill_at_permission", func(t *testing.T) { t.Parallel(); killAtAsk(t, a, "Permission required", false) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
}
