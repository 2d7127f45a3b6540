package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/internal/ascii"
	"github.com/notch-web/notch-web/internal/proc"
)

// Errors GoTo reports.
var (
	// ErrNoTmux: the session does not run in tmux (its Where has no pane).
	ErrNoTmux = errors.New("the session does not run in tmux")
	// ErrGone: the tmux server or the pane is gone.
	ErrGone = errors.New("the session's tmux pane is gone")
	// ErrTmux: tmux could not be run or failed.
	ErrTmux = errors.New("tmux failed")
	// ErrBusy: another GoTo is running; try again in a moment (the
	// route's 429). GoTos never queue: each moves the same clients, and a
	// queue of clicks would run long after the human stopped clicking.
	ErrBusy = errors.New("another Go to terminal is running")
)

// RetryAfter is how long a GoTo refused with ErrBusy is told to wait: one
// GoTo takes milliseconds, and is bounded by Timeout.
const RetryAfter = time.Second

// Timeout bounds one GoTo, all its tmux commands together.
const Timeout = 3 * time.Second

// Result is what GoTo did.
type Result struct {
	// Client is the tmux client switched or already showing the pane;
	// "" when no client is attached: the pane was made current in its
	// session and window, for the next client to attach there
	// (Where.AttachCommand).
	Client string
	// Switched is set when a client was switched to the pane's session
	// (switch-client); a client already attached to it was not.
	Switched bool
}

// Tmux runs tmux commands. The zero value runs "tmux" from PATH.
type Tmux struct {
	// Bin is the tmux executable; "" is "tmux".
	Bin string
	// run runs one argv (for tests); nil runs it with exec.Command.
	run func(ctx context.Context, bin string, args []string) ([]byte, error)
	// lookup and group read processes (for tests); nil: proc.Lookup and
	// proc.Group.
	lookup func(pid int) (proc.Info, error)
	group  func(root, pgrp int) ([]proc.Info, error)

	mu sync.Mutex // one GoTo at a time: they move the same clients; never waited on (ErrBusy)
	// keys: one Type or Interrupt at a time, so that two replies never
	// interleave in a pane; never waited on (ErrBusy).
	keys sync.Mutex
}

// clientName is the characters of a client's name that is passed on (a
// tty's path).
var clientName = ascii.NewSet(ascii.Alnum, "._/-")

// validSession reports whether s is a tmux session id: "$" and 1 to 9
// digits.
func validSession(s string) bool { return prefixed(s, '$', digits, 9) }

// parseClient reads one of list-clients' lines, "#{session_id}
// #{client_activity} #{client_name}": a session id, 1 to 19 digits and a
// path of 1 to 120 of clientName after its "/", one space apart.
func parseClient(line string) (session string, at int64, name string, ok bool) {
	f := strings.SplitN(line, " ", 3)
	if len(f) != 3 || !validSession(f[0]) || !digits.Span(f[1], 1, 19) || !prefixed(f[2], '/', clientName, 120) {
		return "", 0, "", false
	}
	at, _ = strconv.ParseInt(f[1], 10, 64)
	return f[0], at, f[2], true
}

// GoTo brings w's tmux pane before the human: the pane must still be on
// the server at w's socket; a client already attached to the pane's
// session is kept, else the most recently active client is switched to it
// (switch-client -c C -t %N); then the pane's window and the pane are
// selected (select-window, select-pane). With no client attached at all,
// the pane is still made current and Result.Client is "".
//
// Every command is a fixed argv ("tmux -S <socket> <verb> … -t %N") run
// without a shell; the pane and the socket are validated again here. One
// GoTo runs at a time: another asked meanwhile is ErrBusy at once, never
// queued.
func (t *Tmux) GoTo(ctx context.Context, w Where) (Result, error) {
	if w.TmuxPane == "" {
		return Result{}, ErrNoTmux
	}
	if !ValidPane(w.TmuxPane) || !ValidSocket(w.TmuxSocket) {
		return Result{}, fmt.Errorf("%w: not a pane id and socket", ErrTmux)
	}
	if fi, err := os.Stat(w.TmuxSocket); err != nil || fi.Mode().Type() != fs.ModeSocket {
		return Result{}, fmt.Errorf("%w: no tmux server at its socket", ErrGone)
	}
	if !t.mu.TryLock() {
		return Result{}, ErrBusy
	}
	defer t.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()

	// display-message -t names no error for a pane that is gone (tmux
	// 3.3 prints an empty line), so the pane is looked for among all.
	out, err := t.tmux(ctx, w, "list-panes", "-a", "-F", "#{pane_id} #{session_id}")
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrGone, err)
	}
	session := ""
	for _, line := range strings.Split(string(out), "\n") {
		if p, s, ok := strings.Cut(strings.TrimSpace(line), " "); ok && p == w.TmuxPane && validSession(s) {
			session = s
			break
		}
	}
	if session == "" {
		return Result{}, fmt.Errorf("%w: no pane %s on its server", ErrGone, w.TmuxPane)
	}

	out, err = t.tmux(ctx, w, "list-clients", "-F", "#{session_id} #{client_activity} #{client_name}")
	if err != nil {
		return Result{}, err
	}
	res := pickClient(string(out), session)
	if res.Switched {
		if _, err := t.tmux(ctx, w, "switch-client", "-c", res.Client, "-t", w.TmuxPane); err != nil {
			return Result{}, err
		}
	}
	if _, err := t.tmux(ctx, w, "select-window", "-t", w.TmuxPane); err != nil {
		return Result{}, err
	}
	if _, err := t.tmux(ctx, w, "select-pane", "-t", w.TmuxPane); err != nil {
		return Result{}, err
	}
	return res, nil
}

// pickClient chooses, from list-clients' lines, the most recently active
// client attached to session (not switched), else the most recently active
// client of all (to switch); lines that are not as asked are skipped, so a
// client name tmux would not give is never passed on.
func pickClient(list, session string) Result {
	var on, any Result
	onAt, anyAt := int64(-1), int64(-1)
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		s, at, name, ok := parseClient(line)
		if !ok {
			continue
		}
		if s == session && at > onAt {
			on, onAt = Result{Client: name}, at
		}
		if at > anyAt {
			any, anyAt = Result{Client: name, Switched: true}, at
		}
	}
	if on.Client != "" {
		return on
	}
	return any
}

// Argv is the whole argv GoTo runs for one tmux command on w's server.
func (t *Tmux) Argv(w Where, args ...string) []string {
	return append([]string{t.bin(), "-S", w.TmuxSocket}, args...)
}

func (t *Tmux) bin() string {
	if t.Bin != "" {
		return t.Bin
	}
	return "tmux"
}

// tmux runs one command on w's server.
func (t *Tmux) tmux(ctx context.Context, w Where, args ...string) ([]byte, error) {
	argv := t.Argv(w, args...)
	run := t.run
	if run == nil {
		run = execRun
	}
	out, err := run(ctx, argv[0], argv[1:])
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTmux, args[0], err)
	}
	return out, nil
}

// execRun runs bin with args, no shell, an environment without tmux's own
// variables (the host may itself run inside tmux: -S names the server), and
// stdout bounded.
func execRun(ctx context.Context, bin string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{b: &out, n: 64 << 10}, &limited{b: &errb, n: 512}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return nil, fmt.Errorf("%v: %s", err, short(msg))
		}
		return nil, err
	}
	return out.Bytes(), nil
}

// limited keeps the first n bytes written to it and drops the rest.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// short is s cut to 80 bytes of printable ASCII, for an error's text.
func short(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b[:min(len(b), 80)])
}
