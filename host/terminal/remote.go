package terminal

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/proc"
)

// Reply and Stop beyond tmux (docs/terminal.md): GNU screen, Zellij,
// kitty and WezTerm each have a documented remote control that types into
// one pane of theirs. Each is run with a fixed argv, never a shell; the
// text is one argument (kitty: stdin) made literal for that program, and
// the keys are this file's constants. Nothing is typed unless the agent
// the row watches is in the foreground of that very pane: the agent's
// session leader (the pane's first process, the shell the terminal
// started) was started by the terminal for that pane — its environment
// names the pane as the hook saw it — and the agent's group is that
// terminal's foreground group (inFrontOf). Checked before the text and
// again before each key.

// Which terminal's remote control types into a pane (Where.Keys).
const (
	KeysTmux    = "tmux"
	KeysScreen  = "screen"
	KeysZellij  = "zellij"
	KeysKitty   = "kitty"
	KeysWezterm = "wezterm"
)

// RemoteTimeout bounds one Type or Interrupt beyond tmux, all its
// commands together: kitty's "kitty @" starts its own Python each time
// (most of a second on a busy machine), and a reply is three commands.
const RemoteTimeout = 10 * time.Second

// ErrRemote: the terminal's remote control could not be run or failed.
var ErrRemote = errors.New("the terminal's remote control failed")

// Keys is the terminal whose remote control reaches w's pane: tmux, then
// GNU screen and Zellij (multiplexers: the innermost terminal when they
// run inside another), then kitty (only when it listens: KITTY_LISTEN_ON)
// and WezTerm; "" for none.
func (w Where) Keys() string {
	switch {
	case w.TmuxPane != "":
		return KeysTmux
	case w.ScreenSession != "":
		return KeysScreen
	case w.ZellijSession != "":
		return KeysZellij
	case w.KittyWindow != "" && w.KittyListen != "":
		return KeysKitty
	case w.WeztermPane != "":
		return KeysWezterm
	}
	return ""
}

// Typeable reports whether a Reply can reach w's pane from this machine:
// tmux anywhere; the others where the host reads a process's environment
// (Linux: Remote.inFront needs it).
func (w Where) Typeable() bool {
	k := w.Keys()
	return k == KeysTmux || (k != "" && runtime.GOOS == "linux")
}

// Remote types into a pane of GNU screen, Zellij, kitty or WezTerm. The
// zero value runs the programs from PATH.
type Remote struct {
	// Timeout bounds one Type or Interrupt; 0 is RemoteTimeout.
	Timeout time.Duration
	// run runs one argv with stdin and extra environment (tests); nil:
	// exec without a shell.
	run func(ctx context.Context, argv, env []string, stdin string) ([]byte, error)
	// lookup and environ read processes (tests); nil: proc.Lookup and
	// proc.Environ.
	lookup  func(pid int) (proc.Info, error)
	environ func(pid int, key string) (string, bool, error)

	keys sync.Mutex // one Type or Interrupt at a time; never waited on (ErrBusy)
}

// call is one command: its argv, its stdin and extra environment.
type call struct {
	argv  []string
	stdin string
	env   []string
}

// screenChunk bounds the text of one screen "stuff": screen passes a -X
// command in one message of its own, of bounded size.
const screenChunk = 256

// stuffLiteral is text as screen's "stuff" types it literally: stuff
// reads "\" escapes (octal, "\\"), "^X" as a control character and
// "$VAR" / "${VAR}" as screen's environment; each of "\", "^" and "$" is
// escaped with "\".
func stuffLiteral(text string) string {
	var b strings.Builder
	for _, r := range text {
		if r == '\\' || r == '^' || r == '$' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// chunks cuts text into pieces of at most n bytes, on character bounds.
func chunks(text string, n int) []string {
	var out []string
	for len(text) > n {
		i := n
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		out = append(out, text[:i])
		text = text[i:]
	}
	return append(out, text)
}

// The keys' bytes, as the terminals that take text take them.
var keyBytes = map[string]string{keyEnter: "\r", keyEscape: "\x1b", "C-c": "\x03"}

// screen's "stuff" spelling of the keys ("^M" is a carriage return).
var stuffKeys = map[string]string{keyEnter: "^M", keyEscape: "^[", "C-c": "^C"}

// textCalls are the commands that type text into w's pane.
func textCalls(w Where, text string) []call {
	switch w.Keys() {
	case KeysScreen:
		var out []call
		for _, c := range chunks(text, screenChunk) {
			out = append(out, call{argv: []string{"screen", "-S", w.ScreenSession, "-p", w.ScreenWindow, "-X", "stuff", stuffLiteral(c)}})
		}
		return out
	case KeysZellij:
		return []call{{argv: []string{"zellij", "--session", w.ZellijSession, "action", "write-chars", "--pane-id", "terminal_" + w.ZellijPane, "--", text}}}
	case KeysKitty:
		// --stdin: the text as it is; an argument is read with Python's
		// escapes ("\e", "\x03").
		return []call{{argv: []string{"kitty", "@", "--to", w.KittyListen, "send-text", "--match", "id:" + w.KittyWindow, "--stdin"}, stdin: text}}
	case KeysWezterm:
		return []call{weztermCall(w, "send-text", "--pane-id", w.WeztermPane, "--no-paste", "--", text)}
	}
	return nil
}

// keyCall is the command that presses key (Enter, Escape, C-c) in w's pane.
func keyCall(w Where, key string) call {
	switch w.Keys() {
	case KeysScreen:
		return call{argv: []string{"screen", "-S", w.ScreenSession, "-p", w.ScreenWindow, "-X", "stuff", stuffKeys[key]}}
	case KeysZellij:
		return call{argv: []string{"zellij", "--session", w.ZellijSession, "action", "write", "--pane-id", "terminal_" + w.ZellijPane,
			strconv.Itoa(int(keyBytes[key][0]))}}
	}
	return textCalls(w, keyBytes[key])[0]
}

// weztermCall is "wezterm cli" with args, at the mux server the hook named
// (WEZTERM_UNIX_SOCKET), else the newest one of this user.
func weztermCall(w Where, args ...string) call {
	c := call{argv: append([]string{"wezterm", "cli"}, args...)}
	if w.WeztermSocket != "" {
		c.env = []string{"WEZTERM_UNIX_SOCKET=" + w.WeztermSocket}
	}
	return c
}

// screenCall reads w's pane's screen, with its colours where the
// terminal gives them; screen writes a hardcopy (text only) to file.
func screenCall(w Where, file string) call {
	switch w.Keys() {
	case KeysScreen:
		return call{argv: []string{"screen", "-S", w.ScreenSession, "-p", w.ScreenWindow, "-X", "hardcopy", file}}
	case KeysZellij:
		return call{argv: []string{"zellij", "--session", w.ZellijSession, "action", "dump-screen", "--pane-id", "terminal_" + w.ZellijPane, "--ansi", file}}
	case KeysKitty:
		return call{argv: []string{"kitty", "@", "--to", w.KittyListen, "get-text", "--match", "id:" + w.KittyWindow, "--ansi"}}
	}
	return weztermCall(w, "get-text", "--pane-id", w.WeztermPane, "--escapes")
}

// paneEnv is what the environment of w's pane's first process says of
// the pane, as the terminal started it.
func paneEnv(w Where) [][2]string {
	switch w.Keys() {
	case KeysScreen:
		return [][2]string{{"STY", w.ScreenSession}, {"WINDOW", w.ScreenWindow}}
	case KeysZellij:
		return [][2]string{{"ZELLIJ_SESSION_NAME", w.ZellijSession}, {"ZELLIJ_PANE_ID", w.ZellijPane}}
	case KeysKitty:
		return [][2]string{{"KITTY_WINDOW_ID", w.KittyWindow}}
	case KeysWezterm:
		return [][2]string{{"WEZTERM_PANE", w.WeztermPane}}
	}
	return nil
}

// Type types text (checked by CheckReply) into tg's pane, waits settle,
// then presses Enter, as Tmux.Type does; the agent must be in the pane's
// foreground before the text and again before the Enter (ErrNotInPane),
// and its input empty (tg.Empty; ErrDraft).
func (r *Remote) Type(ctx context.Context, tg Target, text string, settle time.Duration) error {
	text, err := CheckReply(text)
	if err != nil {
		return err
	}
	return r.keysTo(ctx, tg, func(ctx context.Context, front func() error) error {
		for _, c := range textCalls(tg.Where, text) {
			if _, err := r.do(ctx, c); err != nil {
				return err
			}
		}
		select {
		case <-time.After(settle):
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrRemote, ctx.Err())
		}
		if err := front(); err != nil {
			return err
		}
		_, err := r.do(ctx, keyCall(tg.Where, keyEnter))
		return err
	})
}

// Interrupt presses the agent's interrupt key (one of StopKeys) in tg's
// pane, presses times a moment apart, as Tmux.Interrupt does.
func (r *Remote) Interrupt(ctx context.Context, tg Target, key string, presses int) error {
	if !StopKeys[key] {
		return fmt.Errorf("%w: %q is not an interrupt key", ErrRemote, key)
	}
	if key == "" {
		key = keyEscape
	}
	tg.Empty = nil
	return r.keysTo(ctx, tg, func(ctx context.Context, front func() error) error {
		for i := range max(presses, 1) {
			if i > 0 {
				select {
				case <-time.After(interruptGap):
				case <-ctx.Done():
					return fmt.Errorf("%w: %v", ErrRemote, ctx.Err())
				}
				if err := front(); err != nil {
					return err
				}
			}
			if _, err := r.do(ctx, keyCall(tg.Where, key)); err != nil {
				return err
			}
		}
		return nil
	})
}

// keysTo runs send once the agent is known to be in the foreground of
// tg's pane (and, for a reply, its input empty): ErrNoTmux for a session
// in no terminal this can type into, ErrNotInPane, ErrGone, ErrDraft,
// ErrBusy.
func (r *Remote) keysTo(ctx context.Context, tg Target, send func(ctx context.Context, front func() error) error) error {
	if k := tg.Where.Keys(); k == "" || k == KeysTmux {
		return ErrNoTmux
	}
	if !r.keys.TryLock() {
		return ErrBusy
	}
	defer r.keys.Unlock()
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(r.Timeout, RemoteTimeout))
	defer cancel()
	front := func() error { return r.inFront(tg) }
	if err := front(); err != nil {
		return err
	}
	if tg.Empty != nil {
		s, err := r.screen(ctx, tg.Where)
		if err != nil {
			return err
		}
		if !tg.Empty(s) {
			return ErrDraft
		}
	}
	return send(ctx, front)
}

// screen reads the pane's screen (screen and Zellij write it to a file
// in a folder of this process's own, read and removed here).
func (r *Remote) screen(ctx context.Context, w Where) (string, error) {
	k := w.Keys()
	if k == KeysKitty || k == KeysWezterm {
		out, err := r.do(ctx, screenCall(w, ""))
		return string(out), err
	}
	dir, err := os.MkdirTemp("", "notch-web-screen-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrRemote, err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "screen.txt")
	if _, err := r.do(ctx, screenCall(w, file)); err != nil {
		return "", err
	}
	// screen writes the hardcopy after its -X command returns: wait for
	// the file (bounded by ctx).
	for {
		b, err := os.ReadFile(file)
		if err == nil && len(b) > 0 {
			return string(b[:min(len(b), 256<<10)]), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w: no screen read", ErrRemote)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// inFront reports (nil) whether tg's agent is what keys typed into tg's
// pane reach: the agent is alive with the row's start time, on a
// terminal; its session's leader (the terminal's first process) was
// started for that very pane (its environment names it: paneEnv); and the
// agent's group is that terminal's foreground. A daemon's client (Codex)
// is followed in tmux only: its process is in no terminal.
func (r *Remote) inFront(tg Target) error {
	lookup, environ := r.lookup, r.environ
	if lookup == nil {
		lookup, environ = proc.Lookup, proc.Environ
	}
	if tg.Agent.IsZero() {
		return fmt.Errorf("%w: no process is known for the session", ErrNotInPane)
	}
	if tg.Client {
		return fmt.Errorf("%w: a daemon's client is followed in tmux only", ErrNotInPane)
	}
	boot, err := proc.BootID()
	if err != nil || boot != tg.Agent.Boot {
		return fmt.Errorf("%w: its process is not this machine's", ErrNotInPane)
	}
	agent, err := lookup(tg.Agent.PID)
	if err != nil || agent.Start != tg.Agent.Start || agent.Gone {
		return fmt.Errorf("%w: its process has ended", ErrNotInPane)
	}
	if agent.Session <= 0 || agent.TTY == 0 {
		return fmt.Errorf("%w: its process is on no terminal", ErrNotInPane)
	}
	leader, err := lookup(agent.Session)
	if err != nil || leader.Gone {
		return fmt.Errorf("%w: its terminal's first process has ended", ErrGone)
	}
	for _, kv := range paneEnv(tg.Where) {
		v, ok, err := environ(leader.PID, kv[0])
		if err != nil || !ok || v != kv[1] {
			return fmt.Errorf("%w: its terminal is not that pane", ErrNotInPane)
		}
	}
	if !front(leader, agent, nil, false) {
		return fmt.Errorf("%w: the pane's foreground is another program", ErrNotInPane)
	}
	return nil
}

// do runs one command.
func (r *Remote) do(ctx context.Context, c call) ([]byte, error) {
	run := r.run
	if run == nil {
		run = execCall
	}
	out, err := run(ctx, c.argv, c.env, c.stdin)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrRemote, c.argv[0], err)
	}
	return out, nil
}

// execCall runs argv without a shell, with stdin, the host's environment
// (without the terminals' own variables that would pick another server
// than the one named) plus env, and stdout bounded.
func execCall(ctx context.Context, argv, env []string, stdin string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "STY", "WINDOW", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID", "KITTY_LISTEN_ON", "KITTY_WINDOW_ID",
			"WEZTERM_UNIX_SOCKET", "WEZTERM_PANE":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{b: &out, n: 256 << 10}, &limited{b: &errb, n: 512}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return nil, fmt.Errorf("%v: %s", err, short(msg))
		}
		return nil, err
	}
	return out.Bytes(), nil
}
