//go:build conformance

package conformance

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// qwenRun is a run with Qwen Code set up offline: OpenAI-compatible auth
// (the stand-in's Chat Completions, from qwenEnv).
func qwenRun(t *testing.T) *run {
	return newRun(t, "qwen", func(r *run) {
		r.writeFile(filepath.Join(r.home, ".qwen", "settings.json"), `{"security":{"auth":{"selectedType":"openai"}}}`)
	})
}

func qwenEnv() []string {
	return []string{"OPENAI_BASE_URL=" + suite.model + "/v1", "OPENAI_API_KEY=test", "OPENAI_MODEL=standin",
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
}

// TestQwenHeadless runs qwen -p once per scenario. Headless, Qwen Code
// 0.24.4 leaves its shell tool out unless it is allowed (--allowed-tools,
// or --approval-mode yolo): the tool scenario without that is answered
// with text. An API error fires no StopFailure and no
// SessionEnd headless: the row's error is the host seeing the process go
// with the turn open.
func TestQwenHeadless(t *testing.T) {
	cases := []struct {
		name     string
		prompt   string
		args     []string
		wantCode int
		status   string
		tool     bool // the shell tool ran
		step     int  // the script's step of the turn's last request (its tokens)
	}{
		{"headless_plain", "scenario:plain Say hello.", nil, 0, state.StatusDone, false, 0},
		{"headless_tool_allowed", "scenario:tool Create the marker file.", []string{"--approval-mode", "yolo"}, 0, state.StatusDone, true, 1},
		// --allowed-tools run_shell_command offers the tool, but touch is
		// an edit, which headless default mode denies by rule: no hook says
		// so (no PreToolUse, no PermissionDenied); the model is told, the
		// turn ends done.
		{"headless_tool_denied", "scenario:tool Create the marker file.", []string{"--allowed-tools", "run_shell_command"}, 0, state.StatusDone, false, 1},
		{"headless_tool_not_offered", "scenario:tool Create the marker file.", nil, 0, state.StatusDone, false, 0},
		{"headless_error400", "scenario:error400 Fail, please.", nil, 1, state.StatusError, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := qwenRun(t)
			r.final = "settled 1 " + c.status
			args := append([]string{"-p", c.prompt}, c.args...)
			out, code := r.exec(2*time.Minute, qwenEnv(), "qwen", args...)
			if code != c.wantCode {
				t.Errorf("qwen -p exited %d, want %d:\n%s", code, c.wantCode, out)
			}
			if c.wantCode == 0 && !strings.Contains(out, standin.FinalText) {
				t.Errorf("qwen -p did not print the stand-in's final text:\n%s", out)
			}
			if ran := exists(filepath.Join(r.work, "conformance-tool.txt")); ran != c.tool {
				t.Errorf("the shell tool ran: %v, want %v", ran, c.tool)
			}
			if c.tool && (r.count("PreToolUse") == 0 || r.count("PostToolUse") == 0) {
				t.Errorf("a tool ran without its PreToolUse and PostToolUse: %v", r.events())
			}
			d := r.waitBoard("after qwen -p exited", 10*time.Second, settled(1, c.status))
			if c.status == state.StatusDone { // Stop's input_tokens: the last request's prompt
				r.titled("after qwen -p exited", d, c.prompt, true)
				want := int64(standin.InputTokens(c.step))
				if mains, _ := mainRows(d); len(mains) == 1 && mains[0].ContextTokens != want {
					t.Errorf("contextTokens %d, want %d (the turn's last request)", mains[0].ContextTokens, want)
				}
			}
			r.holdBoard("after qwen -p exited", 1500*time.Millisecond, settled(1, c.status))
			r.logEvents()
			t.Logf("qwen -p output:\n%s", out)
		})
	}
}

// TestQwenSubagent: the agent tool (headless, yolo) runs a subagent, whose
// SubagentStart and SubagentStop carry agent_id: a row of its own under
// the session's, done with it.
func TestQwenSubagent(t *testing.T) {
	r := qwenRun(t)
	r.scenario = "headless_subagent"
	r.final = "settled 1 " + state.StatusDone
	out, code := r.exec(2*time.Minute, qwenEnv(), "qwen", "-p", "scenario:subagent Ask a helper.", "--approval-mode", "yolo")
	if code != 0 || !strings.Contains(out, standin.FinalText) {
		t.Errorf("qwen -p exited %d:\n%s", code, out)
	}
	d := r.waitBoard("after qwen -p exited", 10*time.Second, func(d state.Document) error {
		if err := settled(1, state.StatusDone)(d); err != nil {
			return err
		}
		mains, subs := mainRows(d)
		if len(subs) != 1 || subs[0].ParentSession != mains[0].ID || subs[0].Title != "general-purpose" {
			return errf("want one general-purpose subagent row under the session's: %s", rowsText(d))
		}
		return nil
	})
	t.Logf("rows: %s", rowsText(d))
	r.logEvents()
}
