//go:build conformance

package conformance

import (
	"cmp"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// ocAgent is OpenCode or a fork of it (Kilo Code CLI), as these tests
// drive it: the same plugin, events and database (adapters/internal/
// ocplugin), its own command, config file and environment.
type ocAgent struct {
	name    string // install name and command: opencode, kilo
	display string
	config  string // its config file under HOME
	env     func() []string
	ready   string // what its TUI shows once it takes a prompt
	// untitled: its headless run makes no title (Kilo Code CLI 7.7.7's
	// "kilo run" sends no session.updated, though its TUI titles the
	// session): the row keeps none there.
	untitled bool
	// within bounds one headless run (0: 2 min).
	within time.Duration
	// reject refuses the permission prompt on screen with the agent's
	// own keys.
	reject func(tm *term)
	// doubleQuit: its TUI quits at a second ^C (ocQuit).
	doubleQuit bool
	// rejectedExit is its headless run's exit status after it refused an
	// ask itself: OpenCode 1.18's 0; Kilo 7.7.7's 1 ("run ended with an
	// auto-rejected permission; pass --auto for autonomous use").
	rejectedExit int
}

var (
	openCode = ocAgent{name: "opencode", display: "OpenCode", config: ".config/opencode/opencode.json", env: opencodeEnv, ready: "Ask anything",
		reject: openCodeReject}
	kiloCode = ocAgent{name: "kilo", display: "Kilo Code CLI", config: ".config/kilo/kilo.json", env: kiloEnv, ready: "Ask anything",
		untitled: true, within: 4 * time.Minute, reject: kiloReject, doubleQuit: true,
		rejectedExit: 1}
)

// openCodeReject: OpenCode 1.18's dialog is Allow once, Allow always,
// Reject in a row; Right twice from Allow once, each key once the TUI
// drew it, then Enter.
func openCodeReject(tm *term) {
	tm.keys("Right")
	time.Sleep(500 * time.Millisecond)
	tm.keys("Right")
	time.Sleep(500 * time.Millisecond)
	tm.keys("Enter")
}

// kiloReject: Kilo Code CLI 7.7.7's Reject opens a second stage, "Reject
// permission" with a box to "Tell Kilo what to do differently" (enter
// confirm, esc cancel); Esc at the dialog is its Reject (escapeKey
// "reject" in its source). Esc, then Enter with the box empty once the
// stage is on screen: a reject with no message, as OpenCode's.
func kiloReject(tm *term) {
	tm.r.t.Helper()
	tm.keys("Escape")
	tm.waitScreen("Kilo's Reject stage", 30*time.Second, shows("Reject permission", "Tell Kilo what to do differently"))
	tm.log("Kilo's Reject stage")
	tm.keys("Enter")
}

// opencodeRun is a run with OpenCode set up offline (ocRun).
func opencodeRun(t *testing.T, bash string) *run { return ocRun(t, openCode, bash) }

// ocRun is a run with an OpenCode set up offline: its built-in
// anthropic provider pointed at the stand-in (the Messages API), the shell
// tool allowed or asked for (bash), no update check, no models.dev fetch.
// The plugin goes in with "notch-web hooks install <name>".
func ocRun(t *testing.T, a ocAgent, bash string) *run {
	return newRun(t, a.name, func(r *run) {
		c := map[string]any{
			"model":      "anthropic/claude-sonnet-4-5",
			"autoupdate": false,
			"share":      "disabled",
			"permission": map[string]any{"bash": bash},
			"provider": map[string]any{"anthropic": map[string]any{"options": map[string]any{
				"baseURL": suite.model + "/v1", "apiKey": "sk-test",
			}}},
		}
		cfg, _ := json.Marshal(c)
		r.writeFile(filepath.Join(r.home, a.config), string(cfg))
	})
}

// opencodeEnv keeps OpenCode off the network: no update check, no
// models.dev catalogue (its bundled one serves), no LSP downloads.
func opencodeEnv() []string {
	return []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1"}
}

// kiloEnv keeps Kilo Code CLI off the network, as opencodeEnv OpenCode.
func kiloEnv() []string {
	return []string{"KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_LSP_DOWNLOAD=1",
		"KILO_DISABLE_SHARE=1", "KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_PRESENCE=1", "KILO_DISABLE_CODEBASE_INDEXING=1"}
}

// TestOpenCodeHeadless runs opencode run once per scenario.
func TestOpenCodeHeadless(t *testing.T) { ocHeadless(t, openCode) }

// ocHeadless runs "<agent> run" once per scenario.
func ocHeadless(t *testing.T, a ocAgent) {
	cases := []struct {
		name     string
		prompt   string
		bash     string
		wantCode int
		status   string
		check    func(t *testing.T, r *run, d state.Document)
	}{
		// A plain turn's facts come with this one (each opencode run costs
		// seconds of CPU): OpenCode's own title (the stand-in's answer to its
		// title request) and the context tokens.
		{"headless_tool_allowed", "scenario:tool Create the marker file.", "allow", 0, state.StatusDone, func(t *testing.T, r *run, d state.Document) {
			if dd := r.waitBoard("the run's tokens", 10*time.Second, hasTokens); hasTokens(dd) == nil {
				d = dd
			}
			want := standin.PlainText
			if a.untitled {
				want = ""
			}
			r.titled("after the run exited", d, want, true)
			if m, _ := mainRows(d); len(m) == 1 && m[0].Steps != 1 {
				t.Errorf("steps %d, want 1 (the one bash call)", m[0].Steps)
			}
		}},
		// Headless, OpenCode refuses an ask itself ("auto-rejecting"): the
		// card comes and goes, the refused call is an error, the turn ends.
		{"headless_tool_asked", "scenario:tool Create the marker file.", "ask", a.rejectedExit, state.StatusDone, func(t *testing.T, r *run, d state.Document) {
			if r.count("permission.asked") != 1 || r.count("permission.replied") != 1 {
				t.Errorf("want one permission.asked and one permission.replied; hooks: %v", r.events())
			}
			if m, _ := mainRows(d); len(m) == 1 && (m[0].Approval != nil || m[0].ErrorStreak != 1) {
				t.Errorf("approval %+v, errorStreak %d: want none and 1 (the refused call)", m[0].Approval, m[0].ErrorStreak)
			}
		}},
		{"headless_error400", "scenario:error400 Fail, please.", "allow", 1, state.StatusError, nil},
		{"headless_subagent", "scenario:subagent Ask a helper.", "allow", 0, state.StatusDone, func(t *testing.T, r *run, d state.Document) {
			mains, subs := mainRows(d)
			if len(subs) != 1 || len(mains) != 1 || subs[0].ParentSession != mains[0].ID || subs[0].Status != state.StatusDone {
				t.Errorf("want one done subagent row under the session's: %s", rowsText(d))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := ocRun(t, a, c.bash)
			r.final = "settled 1 " + c.status
			within := cmp.Or(a.within, 2*time.Minute)
			out, code := r.exec(within, a.env(), a.name, "run", c.prompt)
			if code != c.wantCode {
				t.Errorf("%s run exited %d, want %d:\n%s", a.name, code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) && c.bash == "allow" {
				t.Errorf("%s run did not print the stand-in's final text:\n%s", a.name, out)
			}
			d := r.waitBoard("after the run exited", 10*time.Second, settled(1, c.status))
			if c.check != nil {
				c.check(t, r, d)
			}
			r.holdBoard("after the run exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
			t.Logf("%s run output:\n%s", a.name, out)
		})
	}
}

// TestOpenCodeInterrupt: a slow turn shows working while the model holds
// the stream; SIGINT (^C) ends opencode run, and the row settles.
func TestOpenCodeInterrupt(t *testing.T) { ocInterrupt(t, openCode) }

// ocInterrupt: SIGINT to "<agent> run" mid-turn.
func ocInterrupt(t *testing.T, a ocAgent) {
	t.Parallel()
	r := ocRun(t, a, "allow")
	r.scenario = "headless_sigint_midturn"
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(a.within, 2*time.Minute)+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(suite.bin, a.name), "run", r.slow)
	cmd.Dir, cmd.Env = r.work, r.env(a.env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitBoard("while the model holds the stream", cmp.Or(a.within/2, 60*time.Second), oneMain(state.StatusWorking))
	r.waitFor("the model holding the slow turn", cmp.Or(a.within/2, 60*time.Second), func() bool { return suite.standin.Held(r.slow) > 0 })
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("%s run did not exit within 20 s of SIGINT:\n%s", a.name, out.String())
	}
	status := state.StatusError // the turn was open when the process ended
	r.final = "settled 1 " + status
	r.waitBoard("after SIGINT", settleWithin, settled(1, status))
	r.holdBoard("after SIGINT", 1500*time.Millisecond, settled(1, status))
	r.logEvents()
	t.Logf("%s run output:\n%s", a.name, out.String())
}
