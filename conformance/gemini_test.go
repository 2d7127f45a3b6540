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

// geminiRun is a run with Gemini CLI set up offline: API-key auth, the
// project trusted.
func geminiRun(t *testing.T) *run {
	return newRun(t, "gemini", func(r *run) {
		r.writeFile(filepath.Join(r.home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
		trusted, _ := json.Marshal(map[string]string{r.work: "TRUST_FOLDER"})
		r.writeFile(filepath.Join(r.home, ".gemini", "trustedFolders.json"), string(trusted))
	})
}

func geminiEnv() []string {
	return []string{"GOOGLE_GEMINI_BASE_URL=" + suite.model, "GEMINI_API_KEY=test"}
}

// TestGeminiHeadless runs gemini -p once per scenario.
func TestGeminiHeadless(t *testing.T) {
	cases := []struct {
		name     string
		prompt   string
		args     []string
		wantCode int
		status   string
	}{
		{"headless_plain", "scenario:plain Say hello.", nil, 0, state.StatusDone},
		{"headless_tool_allowed", "scenario:tool Create the marker file.", []string{"--allowed-tools", "run_shell_command"}, 0, state.StatusDone},
		{"headless_error400", "scenario:error400 Fail, please.", nil, 1, state.StatusError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := geminiRun(t)
			r.final = "settled 1 " + c.status
			args := append([]string{"-p", c.prompt}, c.args...)
			out, code := r.exec(2*time.Minute, geminiEnv(), "gemini", args...)
			if code != c.wantCode {
				t.Errorf("gemini -p exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) {
				t.Errorf("gemini -p did not print the stand-in's final text:\n%s", out)
			}
			d := r.waitBoard("after gemini -p exited", 10*time.Second, settled(1, c.status))
			if c.name == "headless_plain" { // tokens: the transcript's usage (Claude Code), AfterModel's (Gemini)
				if dd := r.waitBoard("the plain run's tokens", 10*time.Second, hasTokens); hasTokens(dd) == nil {
					d = dd
				}
				r.titled("after gemini -p exited", d, c.prompt, true)
			}
			r.holdBoard("after gemini -p exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
			t.Logf("gemini -p output:\n%s", out)
		})
	}
}
