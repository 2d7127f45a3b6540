//go:build conformance

package conformance

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// term is an agent's TUI running in a tmux server of its own (a private
// socket), read with capture-pane and typed into with send-keys.
type term struct {
	r      *run
	socket string
	// target is the pane the term reads and types into ("": the session
	// "agent"; a pane id for a session started from the board).
	target string
}

// tgt is the term's tmux target.
func (tm *term) tgt() string {
	if tm.target != "" {
		return tm.target
	}
	return "agent"
}

// tmux starts argv (an agent CLI in conformance/node_modules/.bin) in a new
// detached tmux session in the project, 160×50, with the run's environment
// and extra; the pane stays after the program exits so its last screen can
// be read.
func (r *run) tmux(extra []string, argv ...string) *term {
	r.t.Helper()
	conf := filepath.Join(r.root, "tmux.conf")
	r.writeFile(conf, "set -g remain-on-exit on\nset -g history-limit 5000\n")
	tm := &term{r: r, socket: filepath.Join(r.root, "tmux.sock")}
	r.term = tm
	argv[0] = filepath.Join(suite.bin, argv[0])
	args := append([]string{"-f", conf, "new-session", "-d", "-s", "agent", "-x", "160", "-y", "50", "-c", r.work}, argv...)
	if out, err := tm.cmd(extra, args...); err != nil {
		r.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	r.t.Cleanup(func() {
		if r.t.Failed() {
			r.t.Logf("last screen:\n%s", tm.screen())
		}
		_, _ = tm.cmd(nil, "kill-server")
	})
	return tm
}

func (tm *term) cmd(extra []string, args ...string) (string, error) {
	c := exec.Command("tmux", append([]string{"-S", tm.socket}, args...)...)
	c.Env = tm.r.env(extra...)
	out, err := c.CombinedOutput()
	return string(out), err
}

// screen is what the pane shows now.
func (tm *term) screen() string { return tm.capture(false) }

// history is the screen with the scrollback above it (which also holds
// stale copies of redrawn parts: count answers there, never the input).
func (tm *term) history() string { return tm.capture(true) }

func (tm *term) capture(history bool) string {
	args := []string{"capture-pane", "-p", "-J", "-t", tm.tgt()}
	if history {
		args = append(args, "-S", "-")
	}
	out, err := tm.cmd(nil, args...)
	if err != nil {
		return "(capture-pane: " + err.Error() + ")"
	}
	return out
}

// typeLineWithin is how long a typed prompt may take to reach its hook: a
// generous deadline, not a measure — OpenCode 1.18's first prompt on a
// machine at a load of 20–30 sent its session.status after 45 s (the turn
// then ran and the restart's check held).
const typeLineWithin = 3 * time.Minute

// typeLine types a prompt and presses Enter, and waits until the agent
// has taken it: its hook for a submitted prompt (event) arrives. A TUI
// that is still closing a turn can drop an Enter: while the text is still
// in the input box, Enter is pressed again. It fails the test when the
// prompt is not taken within typeLineWithin, and returns how long it took.
func (tm *term) typeLine(text, event string) time.Duration {
	tm.r.t.Helper()
	before := tm.r.count(event)
	start := time.Now()
	if out, err := tm.cmd(nil, "send-keys", "-t", tm.tgt(), "-l", text); err != nil {
		tm.r.t.Fatalf("send-keys: %v %s", err, out)
	}
	// Enter on its own, once the text is drawn in the input: a burst
	// reads as a paste (Gemini CLI drops an Enter that comes with it).
	for i := 0; i < 50 && !strings.Contains(inputBox(tm.screen()), text); i++ {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	tm.keys("Enter")
	lastEnter := time.Now()
	for tm.r.count(event) == before {
		if time.Since(start) > typeLineWithin {
			tm.r.t.Errorf("%q was not taken (no %s) within %v:\n%s", text, event, typeLineWithin, tm.screen())
			return time.Since(start)
		}
		if time.Since(lastEnter) > 5*time.Second && strings.Contains(inputBox(tm.screen()), text) {
			tm.keys("Enter")
			lastEnter = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start)
}

// waitQuiet waits until the footer (below the input box) no longer says
// busy — Claude Code says "esc to interrupt" while a turn runs, and lists
// running subagents under it — so the next prompt is not typed into a turn
// that is still closing.
func (tm *term) waitQuiet(step, busy string, within time.Duration) {
	tm.r.t.Helper()
	tm.waitScreen(step, within, func(s string) bool { return !strings.Contains(footer(s), busy) })
}

// footer is the screen below the input box's last rule.
func footer(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "────") {
			return strings.Join(lines[i+1:], "\n")
		}
	}
	return ""
}

// inputBox is where a TUI keeps the line being typed: between the last two
// rules (Claude Code draws ──── above and below it), else the last three
// lines of the screen.
func inputBox(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	var rules []int
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "────") || strings.HasPrefix(t, "╭──") || strings.HasPrefix(t, "╰──") {
			rules = append(rules, i)
		}
	}
	if n := len(rules); n >= 2 {
		return strings.Join(lines[rules[n-2]+1:rules[n-1]], "\n")
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, "\n")
}

// keys sends tmux key names (Enter, Escape, C-c, …).
func (tm *term) keys(keys ...string) {
	tm.r.t.Helper()
	if out, err := tm.cmd(nil, append([]string{"send-keys", "-t", tm.tgt()}, keys...)...); err != nil {
		tm.r.t.Fatalf("send-keys: %v %s", err, out)
	}
}

// confirm presses Enter at a dialog until it is gone: a TUI under load can
// drop an Enter that comes as the dialog is drawn (seen with Claude Code
// 2.1.328 at a load average of 19: the dialog stayed, and the next prompt's
// typing went into it). An Enter after the dialog went lands in an empty
// input box, where it does nothing. It fails the test when the dialog is
// still there after within.
func (tm *term) confirm(step, dialog string, within time.Duration) {
	tm.r.t.Helper()
	deadline := time.Now().Add(within)
	for {
		tm.keys("Enter")
		pressed := time.Now()
		for time.Since(pressed) < 5*time.Second {
			if !strings.Contains(tm.screen(), dialog) {
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			tm.r.t.Errorf("%s: the dialog is still there after %v of Enter:\n%s", step, within, tm.screen())
			return
		}
		tm.r.t.Logf("%s: the dialog is still there 5 s after Enter: pressing it again", step)
	}
}

// exited reports whether the program in the pane has exited.
func (tm *term) exited() bool {
	out, _ := tm.cmd(nil, "display-message", "-p", "-t", tm.tgt(), "#{pane_dead}")
	return strings.TrimSpace(out) == "1"
}

// waitScreen waits until the screen satisfies ok, failing the test with
// the screen at the deadline. It returns the screen.
func (tm *term) waitScreen(step string, within time.Duration, ok func(screen string) bool) (string, bool) {
	tm.r.t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := tm.screen()
		if ok(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			tm.r.t.Errorf("%s: the screen did not show it within %v:\n%s", step, within, s)
			return s, false
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// shows is a screen check: every one of subs is on the screen.
func shows(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

// count is a check of the history: sub is there at least n times.
func (tm *term) count(sub string, n int) func(string) bool {
	return func(string) bool { return strings.Count(tm.history(), sub) >= n }
}

// exit types cmd (/exit) and Enter, and waits for the program to exit. A
// TUI can drop the Enter that comes as it draws what was typed (seen with
// Claude Code 2.1.328 in a fresh-clone CI run: "/exit" stayed in the input
// box for 30 s and no SessionEnd came), so while the command is still in
// the input box 5 s after an Enter, Enter is pressed again, as a person
// would. An Enter after the command went lands on a closing program.
func (tm *term) exit(cmd string, within time.Duration) {
	tm.r.t.Helper()
	tm.keys("-l", cmd)
	time.Sleep(300 * time.Millisecond)
	deadline := time.Now().Add(within)
	for {
		tm.keys("Enter")
		pressed := time.Now()
		for time.Since(pressed) < 5*time.Second {
			if tm.exited() {
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
		s := tm.screen()
		if time.Now().After(deadline) || !strings.Contains(inputBox(s), cmd) {
			tm.waitExit(cmd, time.Until(deadline))
			return
		}
		tm.r.t.Logf("%s is still in the input box 5 s after Enter: pressing it again", cmd)
	}
}

// waitExit waits for the program in the pane to exit.
func (tm *term) waitExit(step string, within time.Duration) {
	tm.r.t.Helper()
	deadline := time.Now().Add(within)
	for !tm.exited() {
		if time.Now().After(deadline) {
			tm.r.t.Errorf("%s: the program did not exit within %v:\n%s", step, within, tm.screen())
			return
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// log writes the screen to the test log under a label.
func (tm *term) log(label string) {
	tm.r.t.Logf("screen %s:\n%s", label, strings.TrimRight(tm.screen(), "\n"))
}

func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// trustCodexHooks answers Codex 0.169's "Hooks need review" question with
// "2. Trust all and continue" and waits until the prompt is back. Under
// load the TUI can drop a Down (seen in a fresh-clone CI run: the Enter
// then opened "1. Review hooks"), so Enter is pressed only once the
// option is the selected one ("› 2."), and a review that opened anyway is
// answered there: "t" trusts all, Escape leaves a page.
func (tm *term) trustCodexHooks(step string) {
	tm.r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tm.screen()
		switch {
		case strings.Contains(s, "Ask Codex to do anything") && !strings.Contains(s, "need review"):
			return
		case strings.Contains(s, "› 2. Trust all and continue"):
			tm.keys("Enter")
		case strings.Contains(s, "› 3. Continue without trusting"): // a Down too many
			tm.keys("Up")
		case strings.Contains(s, "Trust all and continue"):
			tm.keys("Down")
		case strings.Contains(s, "t trust all"): // the review's list of hooks
			tm.keys("t")
		case strings.Contains(s, "esc back") || strings.Contains(s, "esc close"): // a page of the review
			tm.keys("Escape")
		}
		if time.Now().After(deadline) {
			tm.r.t.Errorf("%s: Codex's hooks review is still there after 60s:\n%s", step, s)
			return
		}
		time.Sleep(700 * time.Millisecond)
	}
}
