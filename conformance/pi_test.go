//go:build conformance

package conformance

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// piRun is a run with Pi set up offline: its built-in anthropic provider
// routed to the stand-in (models.json's baseUrl; the Messages API), the
// model chosen in settings.json. The extension goes in with "notch-web
// hooks install pi".
func piRun(t *testing.T) *run {
	return newRun(t, "pi", func(r *run) {
		r.writeFile(filepath.Join(r.home, ".pi", "agent", "models.json"),
			`{"providers":{"anthropic":{"baseUrl":"`+suite.model+`","apiKey":"sk-test"}}}`)
		r.writeFile(filepath.Join(r.home, ".pi", "agent", "settings.json"),
			`{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5","quietStartup":true,"enableInstallTelemetry":false}`)
	})
}

// piEnv keeps Pi off the network: no update check, no telemetry.
func piEnv() []string {
	return []string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "ANTHROPIC_API_KEY=sk-test"}
}

// TestPiHeadless runs pi -p once per scenario: a turn with a tool call
// (Pi asks no permission: the call runs), and a model error.
func TestPiHeadless(t *testing.T) {
	cases := []struct {
		name     string
		prompt   string
		wantCode int
		status   string
		check    func(t *testing.T, r *run, d state.Document)
	}{
		{"headless_tool", "scenario:tool Create the marker file.", 0, state.StatusDone, func(t *testing.T, r *run, d state.Document) {
			r.titled("after pi -p exited", d, "scenario:tool Create the marker file.", true)
			if m, _ := mainRows(d); len(m) == 1 && m[0].Steps != 1 {
				t.Errorf("steps %d, want 1 (the one bash call)", m[0].Steps)
			}
			if !exists(filepath.Join(r.work, "conformance-tool.txt")) {
				t.Error("the tool did not run")
			}
		}},
		{"headless_error400", "scenario:error400 Fail, please.", 1, state.StatusError, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := piRun(t)
			r.final = "settled 1 " + c.status
			out, code := r.exec(3*time.Minute, piEnv(), "pi", "-p", c.prompt)
			if code != c.wantCode {
				t.Errorf("pi -p exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			d := r.waitBoard("after pi -p exited", 10*time.Second, settled(1, c.status))
			if c.check != nil {
				c.check(t, r, d)
			}
			r.holdBoard("after pi -p exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
			t.Logf("pi -p output:\n%s", out)
		})
	}
}

// TestPiInterrupt: SIGINT to pi -p while the model holds the stream.
func TestPiInterrupt(t *testing.T) {
	t.Parallel()
	r := piRun(t)
	r.scenario = "headless_sigint_midturn"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(suite.bin, "pi"), "-p", r.slow)
	cmd.Dir, cmd.Env = r.work, r.env(piEnv()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitBoard("while the model holds the stream", 90*time.Second, oneMain(state.StatusWorking))
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("pi -p did not exit within 20 s of SIGINT:\n%s", out.String())
	}
	// Pi 0.73.1's pi -p on SIGINT exits with no event (no agent_end, no
	// session_shutdown): the process's end settles the row, the open turn
	// as an error.
	d := r.waitBoard("after SIGINT", settleWithin, func(d state.Document) error {
		if s := rowStatus(d); s == "" || s == state.StatusWorking {
			return errf("the row is %q", s)
		}
		return nil
	})
	r.final = "settled 1 " + rowStatus(d)
	r.logEvents()
	t.Logf("after SIGINT: %s\npi -p output:\n%s", rowsText(d), out.String())
}

// rowStatus is the one main row's status.
func rowStatus(d state.Document) string {
	if m, _ := mainRows(d); len(m) == 1 {
		return m[0].Status
	}
	return ""
}

// piTUI starts Pi's TUI in tmux and waits for its session's start.
func piTUI(r *run) *term {
	r.t.Helper()
	tm := r.tmux(piEnv(), "pi")
	r.waitFor("session_start", 120*time.Second, func() bool { return r.count("session_start") > 0 })
	r.waitBoard("at start", 10*time.Second, oneMain(state.StatusDone))
	tm.waitScreen("Pi starts", 60*time.Second, shows("claude-sonnet-4-5"))
	return tm
}

// TestPiInteractive drives one Pi TUI session in tmux: the row at start
// (done), a plain turn (title, tokens), a tool turn (one step: Pi asks
// nothing), Reply and Stop from the board (Escape interrupts Pi), an API
// error (error), and /quit (the extension's session_shutdown: the row
// settles as it was).
func TestPiInteractive(t *testing.T) {
	t.Parallel()
	r := piRun(t)
	r.scenario = "tui_session"
	r.final = "settled 1 " + state.StatusError
	tm := piTUI(r)

	tm.typeLine("scenario:plain Say hello.", "before_agent_start")
	tm.waitScreen("the plain turn's answer", 60*time.Second, tm.count(standin.FinalText, 1))
	d := r.waitBoard("after the plain turn", 10*time.Second, oneMain(state.StatusDone))
	r.titled("after the plain turn", d, "scenario:plain Say hello.", true)
	r.orStop()

	tm.typeLine("scenario:tool Create the marker file.", "before_agent_start")
	d = r.waitBoard("after the tool turn", 60*time.Second, func(d state.Document) error {
		if err := oneMain(state.StatusDone)(d); err != nil {
			return err
		}
		if m, _ := mainRows(d); m[0].Steps < 1 {
			return errf("steps %d", m[0].Steps)
		}
		return nil
	})
	r.orStop()

	replyAndStop(t, r, "before_agent_start", false, nil)
	r.orStop()

	tm.typeLine("scenario:error400 Fail, please.", "before_agent_start")
	r.waitBoard("after the API error", 60*time.Second, oneMain(state.StatusError))
	r.orStop()

	tm.keys("-l", "/quit")
	time.Sleep(300 * time.Millisecond)
	tm.keys("Enter")
	tm.waitExit("/quit", 30*time.Second)
	r.waitBoard("after /quit", 10*time.Second, settled(1, state.StatusError))
	r.waitFor("the extension's session_shutdown", 5*time.Second, func() bool { return r.count("session_shutdown") == 1 })
	r.holdBoard("after /quit", 1500*time.Millisecond, settled(1, state.StatusError))
	r.logEvents()
	if t.Failed() {
		t.Logf("screen:\n%s", strings.TrimSpace(tm.screen()))
	}
}

var lifecyclePi = lifecycleAgent{
	name: "Pi", prompt: "before_agent_start", turnEnd: "agent_end",
	newRun: piRun,
	start:  piTUI,
	// The pane's process is pi's node, which runs the extension in itself;
	// "notch-web hook --origin" names it.
	agent: func(r *run, tm *term) int { return tm.panePID() },
}

// TestLifecyclePi: kill -9 of Pi mid-turn fires nothing; the host settles
// the row from the process's end. A host restarted while a turn ends
// reads how it ended from Pi's session file.
func TestLifecyclePi(t *testing.T) {
	a := lifecyclePi
	t.Run("kill_mid_turn", func(t *testing.T) { t.Parallel(); killMidTurn(t, a) })
	t.Run("restart_while_turn_ends", func(t *testing.T) { restartWhileTurnEnds(t, a) })
}

// steerPi is Pi as the steer tests drive it from a shell.
var steerPi = steerAgent{newRun: piRun, env: piEnv, argv: []string{"pi"}, prompt: "before_agent_start", exit: "/quit",
	ready: func(r *run, tm *term) {
		r.waitFor("session_start", 120*time.Second, func() bool { return r.count("session_start") > 0 })
		tm.waitScreen("Pi starts", 60*time.Second, shows("claude-sonnet-4-5"))
	}}

// TestSteerDraftPi: a Reply over a draft in Pi's input is refused (409)
// and the draft stays; into the emptied input the model gets the reply.
func TestSteerDraftPi(t *testing.T) { replyOverDraft(t, steerPi) }

// TestSteerGonePi: once Pi has gone (its /quit, a kill -9), a Reply is
// refused and the shell runs nothing.
func TestSteerGonePi(t *testing.T) {
	t.Run("exit", func(t *testing.T) { t.Parallel(); replyGone(t, steerPi, "exit") })
	t.Run("kill", func(t *testing.T) { t.Parallel(); replyGone(t, steerPi, "kill") })
}
