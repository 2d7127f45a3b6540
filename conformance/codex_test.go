//go:build conformance

package conformance

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// codexRun is a run with Codex set up offline: a mock provider at the
// stand-in with retries off, the project trusted.
func codexRun(t *testing.T) *run {
	return newRun(t, "codex", func(r *run) {
		r.writeFile(filepath.Join(r.home, ".codex", "config.toml"), fmt.Sprintf(`model = "gpt-5.1-codex"
model_provider = "mock"

[model_providers.mock]
name = "stand-in"
base_url = "%s/v1"
wire_api = "responses"
env_key = "CONFORMANCE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"
`, suite.model, r.work))
	})
}

func codexEnv() []string { return []string{"CONFORMANCE_API_KEY=sk-test"} }

// TestCodexExec runs codex exec once per scenario. Untrusted hooks are
// skipped by codex exec without a word, so the run passes
// --dangerously-bypass-hook-trust (the TUI tests trust them on screen).
func TestCodexExec(t *testing.T) {
	cases := []struct {
		name     string
		prompt   string
		args     []string
		wantCode int
		status   string
	}{
		{"exec_plain", "scenario:plain Say hello.", nil, 0, state.StatusDone},
		{"exec_tool", "scenario:tool Create the marker file.", nil, 0, state.StatusDone},
		{"exec_error500", "scenario:error500 Fail, please.", nil, 1, state.StatusError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := codexRun(t)
			r.final = "settled 1 " + c.status
			args := append([]string{"exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check"}, c.args...)
			args = append(args, c.prompt)
			out, code := r.exec(2*time.Minute, codexEnv(), "codex", args...)
			if code != c.wantCode {
				t.Errorf("codex exec exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) {
				t.Errorf("codex exec did not print the stand-in's final text:\n%s", out)
			}
			r.waitBoard("after codex exec exited", 10*time.Second, settled(1, c.status))
			r.holdBoard("after codex exec exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
			t.Logf("codex exec output:\n%s", out)
		})
	}
}
