//go:build conformance

package conformance

import (
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

// opencodeRun is a run with OpenCode set up offline: its built-in
// anthropic provider pointed at the stand-in (the Messages API), the shell
// tool allowed or asked for (bash), no update check, no models.dev fetch.
// The plugin goes in with "notch-web hooks install opencode".
func opencodeRun(t *testing.T, bash string) *run {
	return newRun(t, "opencode", func(r *run) {
		cfg, _ := json.Marshal(map[string]any{
			"model":      "anthropic/claude-sonnet-4-5",
			"autoupdate": false,
			"share":      "disabled",
			"permission": map[string]any{"bash": bash},
			"provider": map[string]any{"anthropic": map[string]any{"options": map[string]any{
				"baseURL": suite.model + "/v1", "apiKey": "sk-test",
			}}},
		})
		r.writeFile(filepath.Join(r.home, ".config", "opencode", "opencode.json"), string(cfg))
	})
}

// opencodeEnv keeps OpenCode off the network: no update check, no
// models.dev catalogue (its bundled one serves), no LSP downloads.
func opencodeEnv() []string {
	return []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1"}
}

// TestOpenCodeHeadless runs opencode run once per scenario.
func TestOpenCodeHeadless(t *testing.T) {
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
			r.titled("after opencode run exited", d, standin.PlainText, true)
			if m, _ := mainRows(d); len(m) == 1 && m[0].Steps != 1 {
				t.Errorf("steps %d, want 1 (the one bash call)", m[0].Steps)
			}
		}},
		// Headless, OpenCode refuses an ask itself ("auto-rejecting"): the
		// card comes and goes, the refused call is an error, the turn ends.
		{"headless_tool_asked", "scenario:tool Create the marker file.", "ask", 0, state.StatusDone, func(t *testing.T, r *run, d state.Document) {
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
			r := opencodeRun(t, c.bash)
			r.final = "settled 1 " + c.status
			out, code := r.exec(2*time.Minute, opencodeEnv(), "opencode", "run", c.prompt)
			if code != c.wantCode {
				t.Errorf("opencode run exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) && c.bash == "allow" {
				t.Errorf("opencode run did not print the stand-in's final text:\n%s", out)
			}
			d := r.waitBoard("after opencode run exited", 10*time.Second, settled(1, c.status))
			if c.check != nil {
				c.check(t, r, d)
			}
			r.holdBoard("after opencode run exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
			t.Logf("opencode run output:\n%s", out)
		})
	}
}

// TestOpenCodeInterrupt: a slow turn shows working while the model holds
// the stream; SIGINT (^C) ends opencode run, and the row settles.
func TestOpenCodeInterrupt(t *testing.T) {
	t.Parallel()
	r := opencodeRun(t, "allow")
	r.scenario = "headless_sigint_midturn"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(suite.bin, "opencode"), "run", r.slow)
	cmd.Dir, cmd.Env = r.work, r.env(opencodeEnv()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.waitBoard("while the model holds the stream", 60*time.Second, oneMain(state.StatusWorking))
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("opencode run did not exit within 20 s of SIGINT:\n%s", out.String())
	}
	status := state.StatusError // the turn was open when the process ended
	r.final = "settled 1 " + status
	r.waitBoard("after SIGINT", settleWithin, settled(1, status))
	r.holdBoard("after SIGINT", 1500*time.Millisecond, settled(1, status))
	r.logEvents()
	t.Logf("opencode run output:\n%s", out.String())
}
