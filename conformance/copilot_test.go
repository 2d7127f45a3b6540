//go:build conformance

package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// GitHub Copilot CLI 1.0.102 runs here on its own provider setting: the
// stand-in's Anthropic Messages API (COPILOT_PROVIDER_TYPE=anthropic), and
// COPILOT_OFFLINE=true, so it needs no GitHub sign-in and calls no GitHub
// host. Its npm package is a Node loader that runs a native binary, which
// unpacks its JavaScript into a cache on first run (235 MB): one cache,
// under node_modules, serves every run.

// copilotCache is the unpacked Copilot CLI every run shares, unpacked once.
var copilotCache = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(suite.repo, "conformance", "node_modules", ".cache", "notch-copilot")
	cmd := exec.Command(filepath.Join(suite.bin, "copilot"), "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "COPILOT_CACHE_HOME=" + dir, "COPILOT_SEA_EXTRACT_ONLY=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", errf("unpacking Copilot CLI: %v\n%s", err, out)
	}
	return dir, nil
})

// copilotRun is a run with Copilot CLI set up offline: its project folder
// trusted (else the TUI asks first), its first-launch tips seen.
func copilotRun(t *testing.T) *run {
	if _, err := os.Stat(filepath.Join(suite.bin, "copilot")); err != nil {
		t.Fatal("copilot is not installed (run make conformance, which installs the pinned CLIs in conformance/)")
	}
	if _, err := copilotCache(); err != nil {
		t.Fatal(err)
	}
	return newRun(t, "copilot", func(r *run) {
		cfg, _ := json.Marshal(map[string]any{"firstLaunchAt": "2026-12-01T00:00:00.000Z", "appTipShown": true, "trustedFolders": []string{r.work}})
		r.writeFile(filepath.Join(r.home, ".copilot", "config.json"), string(cfg))
	})
}

func copilotEnv() []string {
	cache, _ := copilotCache()
	return []string{
		"COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_BASE_URL=" + suite.model,
		"COPILOT_PROVIDER_API_KEY=test",
		"COPILOT_MODEL=claude-sonnet-4-5",
		"COPILOT_CACHE_HOME=" + cache,
	}
}

// TestCopilotHeadless runs copilot -p once per scenario: a plain turn
// (titled from the prompt, its context from the session file), a tool
// allowed (--allow-all-tools) and one not (-p denies it at once, after the
// permission prompt's Notification), a subagent (task: its own row under
// the session's), and a model error (HTTP 400: no Stop, SessionEnd
// "error").
func TestCopilotHeadless(t *testing.T) {
	cases := []struct {
		name     string
		prompt   string
		args     []string
		wantCode int
		rows     int // session rows (a subagent's is under its session's)
		status   string
	}{
		{"headless_plain", "scenario:plain Say hello.", nil, 0, 1, state.StatusDone},
		{"headless_tool_allowed", "scenario:tool Create the marker file.", []string{"--allow-all-tools"}, 0, 1, state.StatusDone},
		{"headless_tool_denied", "scenario:tool Create the marker file.", nil, 0, 1, state.StatusDone},
		{"headless_subagent", "scenario:subagent Ask a helper.", []string{"--allow-all-tools"}, 0, 1, state.StatusDone},
		{"headless_error400", "scenario:error400 Fail, please.", nil, 1, 1, state.StatusError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := copilotRun(t)
			r.final = "settled " + string(rune('0'+c.rows)) + " " + c.status
			args := append([]string{"-p", c.prompt}, c.args...)
			out, code := r.exec(2*time.Minute, copilotEnv(), "copilot", args...)
			if code != c.wantCode {
				t.Errorf("copilot -p exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) {
				t.Errorf("copilot -p did not print the stand-in's final text:\n%s", out)
			}
			_, err := os.Stat(filepath.Join(r.work, "conformance-tool.txt"))
			if ran := err == nil; ran != (c.name == "headless_tool_allowed") {
				t.Errorf("the tool ran: %v", ran)
			}
			d := r.waitBoard("after copilot -p exited", 10*time.Second, settled(c.rows, c.status))
			if c.name == "headless_plain" {
				if dd := r.waitBoard("the plain run's tokens", 10*time.Second, hasTokens); hasTokens(dd) == nil {
					d = dd
				}
				r.titled("after copilot -p exited", d, c.prompt, true)
				if got, want := ctxOf(d), int64(standin.InputTokens(0)); got != want {
					t.Errorf("contextTokens %d, want %d (the stand-in's prompt size)", got, want)
				}
			}
			if _, subs := mainRows(d); c.name == "headless_subagent" && (len(subs) != 1 || subs[0].Status != state.StatusDone) {
				t.Errorf("subagent rows %+v, want one, done", subs)
			}
			if c.name == "headless_tool_denied" && r.count("Notification(permission_prompt)") == 0 {
				t.Error("no Notification for the permission prompt -p denied")
			}
			r.holdBoard("after copilot -p exited", 1500*time.Millisecond, settled(c.rows, c.status))
			r.logEvents()
			t.Logf("copilot -p output:\n%s", out)
		})
	}
}
