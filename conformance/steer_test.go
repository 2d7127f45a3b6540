//go:build conformance

package conformance

import (
	"cmp"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/conformance/standin"
	"github.com/notch-web/notch-web/state"
)

// Reply and Stop land only on the agent they are meant for
// (docs/terminal.md): each CLI runs in tmux as a person runs it — typed
// at a shell's prompt — and once it has gone (its own exit command, a
// kill -9 of what runs in the pane) the shell is back in front: a Reply of
// "touch MARKER" is refused 409 and the shell never runs it. A Reply over
// a half-typed draft is refused 409 and the draft stays; once the input is
// empty the model gets the reply alone.

// steerAgent is one CLI as these tests drive it from a shell.
type steerAgent struct {
	newRun func(*testing.T) *run
	env    func() []string
	argv   []string
	ready  func(*run, *term) // the TUI is up and takes a prompt
	prompt string            // the hook that says a prompt was taken
	exit   string            // its own exit command
	// typePrompt types a prompt into the TUI and waits for its hook;
	// nil: tm.typeLine with prompt.
	typePrompt func(tm *term, text string)
	turn       time.Duration // how long a plain turn may take; 0 is a minute
}

// typed types a prompt into a's TUI and waits until a took it.
func (a steerAgent) typed(tm *term, text string) {
	tm.r.t.Helper()
	if a.typePrompt != nil {
		a.typePrompt(tm, text)
		return
	}
	tm.typeLine(text, a.prompt)
}

var (
	steerClaude = steerAgent{newRun: claudeRun, env: claudeEnv, argv: []string{"claude", "--permission-mode", "default"}, prompt: "UserPromptSubmit", exit: "/exit",
		ready: func(r *run, tm *term) { tm.waitScreen("Claude Code starts", 60*time.Second, shows("manual mode on")) }}
	steerGemini = steerAgent{newRun: geminiRun, env: geminiEnv, argv: []string{"gemini"}, prompt: "BeforeAgent", exit: "/quit",
		ready: func(r *run, tm *term) {
			tm.waitScreen("Gemini CLI starts", 90*time.Second, shows("Type your message"))
			r.waitFor("SessionStart", 60*time.Second, func() bool { return r.count("SessionStart") > 0 })
			time.Sleep(2 * time.Second) // its input takes keys a moment before a prompt (TestGeminiInteractive)
		}}
	steerCodex = steerAgent{newRun: codexRun, env: codexEnv, argv: []string{"codex"}, prompt: "UserPromptSubmit", exit: "/quit",
		ready: func(r *run, tm *term) {
			tm.waitScreen("the hooks review", 120*time.Second, shows("Hooks need review", "Trust all and continue"))
			tm.trustCodexHooks("hooks trusted")
		}}
)

// shellTmux starts an interactive shell in a tmux pane of the run's own
// server (the run's environment), and types the agent's command line at
// its prompt, as a person does: the shell is the pane's process, the agent
// its foreground job.
func (r *run) shellTmux(a steerAgent) *term {
	r.t.Helper()
	bash, err := filepathLook("bash")
	if err != nil {
		r.t.Skip("no bash here")
	}
	conf := filepath.Join(r.root, "tmux.conf")
	r.writeFile(conf, "set -g history-limit 5000\n")
	tm := &term{r: r, socket: filepath.Join(r.root, "tmux.sock")}
	r.term = tm
	args := []string{"-f", conf, "new-session", "-d", "-s", "agent", "-x", "160", "-y", "50", "-c", r.work,
		bash + " --norc --noprofile -i"}
	if out, err := tm.cmd(append(a.env(), "PS1=$ "), args...); err != nil {
		r.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	r.t.Cleanup(func() {
		if r.t.Failed() {
			r.t.Logf("last screen:\n%s", tm.screen())
		}
		_, _ = tm.cmd(nil, "kill-server")
	})
	line := append([]string{filepath.Join(suite.bin, a.argv[0])}, a.argv[1:]...)
	tm.keys("-l", strings.Join(line, " "))
	tm.keys("Enter")
	a.ready(r, tm)
	return tm
}

func filepathLook(name string) (string, error) {
	for _, d := range []string{"/bin", "/usr/bin"} {
		if p := filepath.Join(d, name); exists(p) {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// shellInFront reports whether the pane's shell holds its terminal again.
func (tm *term) shellInFront() bool {
	pgrp, tpgrp, ok := groups(tm.panePID())
	return ok && tpgrp == pgrp
}

// groups reads a process's group and its terminal's foreground group
// (/proc/<pid>/stat fields 5 and 8).
func groups(pid int) (pgrp, tpgrp int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if err != nil || i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 6 {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	tpgrp, err2 := strconv.Atoi(f[5])
	return pgrp, tpgrp, err1 == nil && err2 == nil
}

// synced waits until the shell has run all that was typed into it: it
// runs one more command that makes a file.
func (tm *term) synced() {
	tm.r.t.Helper()
	probe := filepath.Join(tm.r.work, "probe-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	tm.keys("-l", "touch "+probe)
	tm.keys("Enter")
	tm.r.waitFor("the shell ran what was typed before", 10*time.Second, func() bool { return exists(probe) })
}

// rowID is the run's one session row.
func (r *run) rowID() string {
	r.t.Helper()
	d := r.waitBoard("the row", 30*time.Second, oneMain(state.StatusDone))
	mains, _ := mainRows(d)
	if len(mains) != 1 {
		r.t.FailNow()
	}
	return mains[0].ID
}

// replyGone: the agent has a turn, then goes (gone: its exit command, or
// kill -9 of the pane's foreground process group — Codex's daemon lives
// on); once the shell is back, a Reply and a Stop are refused 409,
// nothing reaches the shell, and the board draws no Reply box for the row.
func replyGone(t *testing.T, a steerAgent, gone string) {
	r := a.newRun(t)
	r.noRecord = true
	tm := r.shellTmux(a)
	a.typed(tm, "scenario:plain Say hello.")
	tm.waitScreen("the plain turn's answer", cmp.Or(a.turn, 60*time.Second), tm.count(standin.FinalText, 1))
	id := r.rowID()
	switch gone {
	case "exit":
		tm.keys("-l", a.exit)
		time.Sleep(300 * time.Millisecond)
		tm.keys("Enter")
		deadline := time.Now().Add(30 * time.Second)
		for !tm.shellInFront() && time.Now().Before(deadline) {
			if s := tm.screen(); strings.Contains(inputBox(s), a.exit) || strings.Contains(s, "> "+a.exit) || strings.Contains(s, "› "+a.exit) {
				tm.keys("Enter") // dropped as it was drawn, or taken by a completion menu (tm.exit)
			}
			time.Sleep(500 * time.Millisecond)
		}
	case "kill":
		pgrp, tpgrp, ok := groups(tm.panePID())
		if !ok || tpgrp <= 0 || tpgrp == pgrp {
			t.Fatalf("no job in front of the shell: %d %d", pgrp, tpgrp)
		}
		t.Logf("kill -9 of the pane's foreground group %d", tpgrp)
		if err := syscall.Kill(-tpgrp, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	r.waitFor("the shell back in front", 30*time.Second, tm.shellInFront)
	tm.log("the shell back")
	marker := filepath.Join(r.work, "conformance-marker")
	code, body := r.post("/agents-notch/reply", map[string]string{"sessionId": id, "text": "touch " + marker})
	if code != http.StatusConflict || !strings.Contains(body, "the agent is no longer in that pane") {
		t.Errorf("Reply once the agent has gone (%s): %d %s, want 409 the agent is no longer in that pane", gone, code, strings.TrimSpace(body))
	}
	code, body = r.post("/agents-notch/stop", map[string]string{"sessionId": id})
	if code != http.StatusConflict {
		t.Errorf("Stop once the agent has gone (%s): %d %s, want 409", gone, code, strings.TrimSpace(body))
	}
	// The row offers Reply and Stop no more (Codex's /quit ends no
	// session: only the refusal takes them away).
	r.waitFor("the board without the row's Reply box", 10*time.Second, func() bool {
		page := r.boardPage()
		return strings.Contains(page, `data-session-id="`+id+`"`) && !strings.Contains(page, `class="steer-text"`)
	})
	tm.synced()
	if exists(marker) {
		t.Errorf("the shell ran the reply: %s exists", marker)
	}
	r.logEvents()
}

// replyOverDraft: a Reply over a half-typed draft is refused 409 and the
// draft stays in the input; once the human has cleared it, a Reply
// reaches the model alone.
func replyOverDraft(t *testing.T, a steerAgent) {
	r := a.newRun(t)
	r.noRecord = true
	tm := r.shellTmux(a)
	tm.log("at start")
	tm.logEscapes("at start")
	a.typed(tm, "scenario:plain Say hello.")
	tm.waitScreen("the plain turn's answer", cmp.Or(a.turn, 60*time.Second), tm.count(standin.FinalText, 1))
	id := r.rowID()
	time.Sleep(time.Second) // the TUI settles its screen after the turn
	tm.log("empty, after a turn")
	tm.logEscapes("empty, after a turn")
	const draft = "half-typed draft"
	tm.keys("-l", draft)
	tm.waitScreen("the draft in the input", 10*time.Second, shows(draft))
	tm.log("with a draft")
	tm.logEscapes("with a draft")
	reply := "scenario:plain Please continue with the plan."
	code, body := r.post("/agents-notch/reply", map[string]string{"sessionId": id, "text": reply})
	if code != http.StatusConflict {
		t.Errorf("Reply over a draft: %d %s, want 409", code, strings.TrimSpace(body))
	}
	if !strings.Contains(tm.screen(), draft) {
		t.Errorf("the draft is gone from the input:\n%s", tm.screen())
	}
	tm.keys("-N", strconv.Itoa(len(draft)+5), "BSpace")
	tm.waitScreen("the input cleared", 10*time.Second, func(s string) bool { return !strings.Contains(s, "draft") })
	time.Sleep(500 * time.Millisecond)
	tm.log("cleared by hand")
	from := len(suite.standin.Requests())
	before := r.count(a.prompt)
	r.wantPost("Reply into the empty input", "/agents-notch/reply", map[string]string{"sessionId": id, "text": reply}, http.StatusOK)
	r.waitFor("the reply's "+a.prompt, 30*time.Second, func() bool { return r.count(a.prompt) > before })
	promptWith(t, from, reply, 30*time.Second)
	// The reply alone: one request's prompt is exactly it, and none
	// carries the draft (Codex's title helper quotes the prompt inside
	// its own words: not the model's turn).
	alone := false
	var seen []string
	for _, q := range suite.standin.Requests()[from:] {
		alone = alone || strings.TrimSpace(envDetails.ReplaceAllString(datetime.ReplaceAllString(q.Prompt, ""), "")) == reply
		if strings.Contains(q.Prompt, draft) {
			t.Errorf("the model got the draft: %q", q.Prompt)
		}
		if q.Prompt != "" {
			seen = append(seen, fmt.Sprintf("%.300q", q.Prompt))
		}
	}
	if !alone {
		t.Errorf("no request's prompt was the reply alone %q; prompts: %s", reply, strings.Join(seen, ", "))
	}
	r.logEvents()
}

// datetime is what Copilot CLI puts before every prompt it sends.
var datetime = regexp.MustCompile(`^<current_datetime>[^<]*</current_datetime>\s*`)

// envDetails is what Kilo Code CLI 7.7.7 puts after every prompt it
// sends: "<environment_details>" with the message's time and the working
// directory, to the prompt's end.
var envDetails = regexp.MustCompile(`(?s)\s*<environment_details>.*$`)

var (
	steerCopilot = steerAgent{newRun: copilotRun, env: copilotEnv, argv: []string{"copilot"}, prompt: "UserPromptSubmit", exit: "/exit",
		ready: func(r *run, tm *term) { tm.waitScreen("Copilot CLI starts", 90*time.Second, shows(copilotIdle)) }}
	steerQwen = steerAgent{newRun: qwenRun, env: qwenEnv, argv: []string{"qwen", "--approval-mode", "default"}, prompt: "UserPromptSubmit", exit: "/quit",
		ready: func(r *run, tm *term) {
			tm.waitScreen("Qwen Code starts", 90*time.Second, shows("Type your message"))
			r.waitFor("SessionStart", 60*time.Second, func() bool { return r.count("SessionStart") > 0 })
			time.Sleep(time.Second) // as qwenStart
		}}
	steerOpenCode = steerAgent{newRun: func(t *testing.T) *run { return opencodeRun(t, "ask") }, env: opencodeEnv, argv: []string{"opencode"},
		prompt: "session.status", exit: "/exit", turn: 3 * time.Minute, // its first turn runs long on a busy machine
		ready:      func(r *run, tm *term) { tm.waitScreen("OpenCode starts", 180*time.Second, shows("Ask anything")) },
		typePrompt: func(tm *term, text string) { tm.ocType(text) }}
)

// The others that take a Reply, where they run here: their own exit, and
// a kill -9.
func TestSteerGoneOpenCode(t *testing.T) {
	t.Run("exit", func(t *testing.T) { replyGone(t, steerOpenCode, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerOpenCode, "kill") })
}

func TestSteerGoneCopilot(t *testing.T) {
	t.Run("exit", func(t *testing.T) { replyGone(t, steerCopilot, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerCopilot, "kill") })
}

func TestSteerGoneQwen(t *testing.T) {
	t.Run("quit", func(t *testing.T) { replyGone(t, steerQwen, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerQwen, "kill") })
}

func TestSteerGoneClaude(t *testing.T) {
	t.Run("exit", func(t *testing.T) { replyGone(t, steerClaude, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerClaude, "kill") })
}

func TestSteerGoneGemini(t *testing.T) {
	t.Run("quit", func(t *testing.T) { replyGone(t, steerGemini, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerGemini, "kill") })
}

func TestSteerGoneCodex(t *testing.T) {
	t.Run("quit", func(t *testing.T) { replyGone(t, steerCodex, "exit") })
	t.Run("kill", func(t *testing.T) { replyGone(t, steerCodex, "kill") })
}

func TestSteerDraftClaude(t *testing.T) { replyOverDraft(t, steerClaude) }
func TestSteerDraftGemini(t *testing.T) { replyOverDraft(t, steerGemini) }
func TestSteerDraftCodex(t *testing.T)  { replyOverDraft(t, steerCodex) }

// The other three: OpenCode's, Copilot CLI's and Qwen Code's input rules.
func TestSteerDraftOpenCode(t *testing.T) { replyOverDraft(t, steerOpenCode) }
func TestSteerDraftCopilot(t *testing.T)  { replyOverDraft(t, steerCopilot) }
func TestSteerDraftQwen(t *testing.T)     { replyOverDraft(t, steerQwen) }

// logEscapes logs the screen with its escapes (colours, dim), as the
// host reads it: what tells a placeholder from typed text
// (adapters/*/testdata/screens are such screens).
func (tm *term) logEscapes(label string) {
	out, _ := tm.cmd(nil, "capture-pane", "-p", "-e", "-t", "agent")
	tm.r.t.Logf("escapes %s:\n%q", label, strings.TrimRight(out, "\n"))
}
