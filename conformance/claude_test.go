//go:build conformance

package conformance

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// claudeRun is a run with Claude Code set up offline: onboarding done, the
// stand-in's key approved, the project trusted.
func claudeRun(t *testing.T) *run {
	return newRun(t, "claude-code", func(r *run) {
		seed, _ := json.Marshal(map[string]any{
			"hasCompletedOnboarding": true,
			"customApiKeyResponses":  map[string]any{"approved": []string{"sk-test"}, "rejected": []string{}},
			"projects":               map[string]any{r.work: map[string]any{"hasTrustDialogAccepted": true}},
		})
		r.writeFile(filepath.Join(r.home, ".claude.json"), string(seed))
	})
}

func claudeEnv() []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + suite.model,
		"ANTHROPIC_API_KEY=sk-test",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
}

// TestClaudeHeadless runs claude -p once per scenario and asserts the
// board once it has exited: one row, settled, not removed; no orphan
// subagent row.
func TestClaudeHeadless(t *testing.T) {
	cases := []struct {
		name     string
		prompt   string
		args     []string
		wantCode int
		status   string
	}{
		{"headless_plain", "scenario:plain Say hello.", nil, 0, state.StatusDone},
		// -p cannot ask: PermissionRequest fires, then Claude Code refuses
		// the tool itself and the model answers the refusal.
		{"headless_tool_refused", "scenario:tool Create the marker file.", nil, 0, state.StatusDone},
		{"headless_tool_allowed", "scenario:tool Create the marker file.", []string{"--allowedTools", "Bash"}, 0, state.StatusDone},
		{"headless_subagent", "scenario:subagent Ask a subagent about blue.", nil, 0, state.StatusDone},
		{"headless_error400", "scenario:error400 Fail, please.", nil, 1, state.StatusError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := claudeRun(t)
			r.final = "settled 1 " + c.status
			args := append([]string{"-p", c.prompt}, c.args...)
			out, code := r.exec(2*time.Minute, claudeEnv(), "claude", args...)
			if code != c.wantCode {
				t.Errorf("claude -p exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) {
				t.Errorf("claude -p did not print the stand-in's final text:\n%s", out)
			}
			d := r.waitBoard("after claude -p exited", 10*time.Second, settled(1, c.status))
			if c.name == "headless_plain" { // tokens: the transcript's usage (Claude Code), AfterModel's (Gemini)
				if dd := r.waitBoard("the plain run's tokens", 10*time.Second, hasTokens); hasTokens(dd) == nil {
					d = dd
				}
				r.titled("after claude -p exited", d, c.prompt, true)
			}
			r.holdBoard("after claude -p exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
		})
	}
}
