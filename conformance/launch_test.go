//go:build conformance

package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// A session started from the board (docs/launch.md): the machine's launch
// file (written with notch-web launch) allows the project and the agent;
// POST /agents-notch/launch with a first prompt starts the real CLI in a
// window of notch-web's own tmux session; its hooks open the row, the turn
// works and finishes; Reply works on it at once (and Stop, on Claude
// Code's). A folder outside the roots and an agent not allowed are refused by the machine.

// launchAgent is one CLI as the board starts it.
type launchAgent struct {
	name   string // its registry name
	bin    string // in conformance/node_modules/.bin
	newRun func(*testing.T) *run
	env    func() []string
	prompt string         // the hook that says a prompt was taken
	ready  func(tm *term) // what a person does before the TUI takes the prompt (Codex's hooks review)
	// stop: Stop is checked on the launched row too (replyAndStop). Stop
	// on each agent is TestClaudeAnswers', TestCodexReply's and
	// TestGeminiReply's; here Claude Code's alone keeps the run lean.
	stop bool
}

var launchAgents = []launchAgent{
	{name: "claude-code", bin: "claude", newRun: claudeRun, env: claudeEnv, prompt: "UserPromptSubmit", stop: true},
	{name: "codex", bin: "codex", newRun: codexRun, env: codexEnv, prompt: "UserPromptSubmit",
		ready: func(tm *term) {
			tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
			tm.trustCodexHooks("hooks trusted")
		}},
	{name: "gemini", bin: "gemini", newRun: geminiRun, env: geminiEnv, prompt: "BeforeAgent"},
	// The others the board starts (Pi and Kilo Code CLI have no Launch in
	// their Spec: they are not started from the board).
	{name: "opencode", bin: "opencode", newRun: func(t *testing.T) *run { return opencodeRun(t, "ask") }, env: opencodeEnv, prompt: "session.status"},
	{name: "copilot", bin: "copilot", newRun: copilotRun, env: copilotEnv, prompt: "UserPromptSubmit"},
	{name: "qwen", bin: "qwen", newRun: qwenRun, env: qwenEnv, prompt: "UserPromptSubmit"},
}

func TestLaunch(t *testing.T) {
	for i, a := range launchAgents {
		t.Run(a.name, func(t *testing.T) { launchOne(t, a, i == 0) })
	}
}

// launchOne starts a from the board's route, drives its row to done, and
// replies and stops; refusals asks the machine's refusals first.
func launchOne(t *testing.T, a launchAgent, refusals bool) {
	r := a.newRun(t)
	r.final = "settled 1 " + state.StatusDone
	r.scenario = "launch"
	r.noRecord = true
	dsh := filepath.Join(r.root, "dsh")
	for _, args := range [][]string{
		{"allow-folder", r.work},
		{"allow-agent", a.name, filepath.Join(suite.bin, a.bin)},
	} {
		if out, err := r.notch(append([]string{"launch", "--dsh-home", dsh}, args...)...); err != nil {
			t.Fatalf("notch-web launch %v: %v\n%s", args, err, out)
		}
	}
	socket := r.launchTmux(a.env())

	if refusals {
		for _, c := range []struct {
			name, folder, agent string
		}{
			{"a folder outside the roots", r.home, a.name},
			{"an agent not allowed", r.work, "qwen"},
		} {
			r.wantPost(c.name, "/agents-notch/launch", map[string]string{"folder": c.folder, "agent": c.agent, "prompt": "scenario:plain Say hello."}, http.StatusForbidden)
		}
	}

	sent := time.Now()
	st, body := r.post("/agents-notch/launch", map[string]string{"folder": r.work, "agent": a.name, "prompt": "scenario:plain Say hello."})
	posted := time.Since(sent)
	var reply struct {
		Pane string `json:"pane"`
	}
	if st != http.StatusOK || json.Unmarshal([]byte(body), &reply) != nil || reply.Pane == "" {
		t.Fatalf("POST /agents-notch/launch: %d %s", st, body)
	}
	tm := &term{r: r, socket: socket, target: reply.Pane}
	r.term = tm
	if a.ready != nil {
		a.ready(tm)
	}
	var rowAt time.Duration
	// Both waits only bound a failure: OpenCode's first start runs long
	// on a busy machine (23 s beside two CPU hogs here, minutes at a load of 30).
	r.waitBoard("the launched session's row", 180*time.Second, func(d state.Document) error {
		if mains, _ := mainRows(d); len(mains) == 0 {
			return errf("no row yet")
		}
		if rowAt == 0 {
			rowAt = time.Since(sent)
		}
		return nil
	})
	tm.waitScreen("the first prompt's answer", 180*time.Second, tm.count(standin.FinalText, 1))
	r.waitBoard("the first turn done", 30*time.Second, oneMain(state.StatusDone))
	t.Logf("Start: the POST answered in %v; the row on the board %v after it", posted.Round(time.Millisecond), rowAt.Round(time.Millisecond))
	if a.stop {
		replyAndStop(t, r, a.prompt, false, nil)
		return
	}
	// Reply: the text reaches the model, and the row settles done again.
	d, _ := r.board()
	mains, _ := mainRows(d)
	from, before := len(suite.standin.Requests()), r.count(a.prompt)
	r.replyWhenReady("Reply", mains[0].ID, "scenario:plain Reply from the board")
	r.waitFor("the reply's "+a.prompt, 30*time.Second, func() bool { return r.count(a.prompt) > before })
	promptWith(t, from, "scenario:plain Reply from the board", 30*time.Second)
	r.waitBoard("after the reply", 60*time.Second, oneMain(state.StatusDone))
}

// launchTmux starts notch-web's tmux server where the run's host finds it
// (TMUX_TMPDIR is the run's), with the agent's environment env, which
// every window the host makes in it inherits, as a user's server has the
// user's; it returns the server's socket.
func (r *run) launchTmux(env []string) string {
	t := r.t
	dir := filepath.Join(r.root, fmt.Sprintf("tmux-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "default")
	tmux := exec.Command("tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "notch-web", "-x", "160", "-y", "50")
	tmux.Env = r.env(env...)
	if out, err := tmux.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", socket, "kill-server").Run() })
	return socket
}
