package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/adapters/registry"
	"github.com/notch-web/notch-web/host/terminal"
)

// Session is the tmux session of notch-web's own the agents are started
// in, one window each: "tmux attach -t notch-web" shows them.
const Session = "notch-web"

// Timeout bounds one start: git and tmux together.
const Timeout = 20 * time.Second

// Options are a Launcher's.
type Options struct {
	// Path is the launch file (launch.json in the DSH home), read afresh
	// at every start: an edit from the shell applies at once.
	Path string
	// Tmux and Git are the executables ("": "tmux", "git" from PATH).
	Tmux, Git string
	// Socket is the tmux server's socket ("": tmux's default server, the
	// one "tmux attach" finds).
	Socket string
	// Home and Getenv find the agents' settings, for the hooks' check.
	Home   string
	Getenv func(string) string
	// Hooked reports whether the agent's hooks are installed for a
	// session in dir; nil: adapters/install.Status says so of a scope.
	Hooked func(agent, dir string) bool
	// Now is the clock (time.Now).
	Now func() time.Time
}

// Launcher starts sessions. Create it with New; one start runs at a time.
type Launcher struct {
	o      Options
	mu     sync.Mutex
	starts []time.Time // in the last minute
}

// New is a Launcher for o.
func New(o Options) *Launcher {
	if o.Tmux == "" {
		o.Tmux = "tmux"
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Launcher{o: o}
}

// Request is one start asked of this machine.
type Request struct {
	Folder string // the project folder, absolute
	Agent  string // its registry name
	Branch string // a new worktree's branch; "" runs in Folder itself
	Prompt string // the first prompt; "" none
	Resume string // a session id to resume; "" starts a new session
}

// Result is what Start did.
type Result struct {
	Folder   string // where the agent runs (the worktree when one was made)
	Worktree string // the worktree made; "" none
	Pane     string // the tmux pane ("%12")
	Program  string // the program run (argv[0], resolved)
}

// File reads the launch file now.
func (l *Launcher) File() (File, error) { return Read(l.o.Path) }

// Start checks r against the launch file and this machine's bounds, then
// makes the worktree asked for and starts the agent in a new window of
// Session. Its refusals wrap ErrOff, ErrFolder, ErrAgent, ErrHooks,
// ErrPrompt, ErrBranch, ErrWorktree, ErrResume, ErrRate, ErrFull; a
// failure of tmux ErrTmux.
func (l *Launcher) Start(ctx context.Context, r Request) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	f, err := l.File()
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrOff, err)
	}
	if !f.On() {
		return Result{}, fmt.Errorf("%w: its launch file allows no folder or no agent (notch-web launch allow-folder DIR, allow-agent NAME)", ErrOff)
	}
	prompt, err := CheckPrompt(r.Prompt)
	if err != nil {
		return Result{}, err
	}
	a, ok := f.Agents[r.Agent]
	spec, known := registry.Get(r.Agent)
	if !ok || !known {
		return Result{}, fmt.Errorf("%w: %q is not in the launch file (notch-web launch allow-agent NAME)", ErrAgent, cut(r.Agent))
	}
	argv, err := Argv(spec, a, prompt, r.Resume)
	if err != nil {
		return Result{}, err
	}
	folder, _, err := f.Folder(r.Folder)
	if err != nil {
		return Result{}, err
	}
	if r.Branch != "" {
		if f.Worktrees == "" {
			return Result{}, fmt.Errorf("%w: the launch file makes no worktrees (notch-web launch worktrees DIR)", ErrWorktree)
		}
		if err := l.checkBranch(ctx, r.Branch); err != nil {
			return Result{}, err
		}
	}
	if !l.hooked(r.Agent, folder) {
		return Result{}, fmt.Errorf("%w: run notch-web hooks install %s on this machine first", ErrHooks, r.Agent)
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return Result{}, fmt.Errorf("%w: %s is not found on this machine (%v)", ErrAgent, argv[0], err)
	}
	argv[0] = prog

	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.o.Now()
	kept := l.starts[:0]
	for _, t := range l.starts {
		if now.Sub(t) < time.Minute {
			kept = append(kept, t)
		}
	}
	l.starts = kept
	if len(l.starts) >= f.Rate() {
		return Result{}, fmt.Errorf("%w: this machine allows %d a minute", ErrRate, f.Rate())
	}
	if n := l.running(ctx); n >= f.Sessions() {
		return Result{}, fmt.Errorf("%w: %d of %d", ErrFull, n, f.Sessions())
	}
	res := Result{Folder: folder, Program: prog}
	if r.Branch != "" {
		wt, err := l.worktree(ctx, f, folder, r.Branch)
		if err != nil {
			return Result{}, err
		}
		res.Folder, res.Worktree = wt, wt
	}
	pane, err := l.window(ctx, res.Folder, argv)
	if err != nil {
		return Result{}, err
	}
	res.Pane = pane
	l.starts = append(l.starts, now)
	return res, nil
}

// hooked reports whether the agent's hooks are installed for dir.
func (l *Launcher) hooked(agent, dir string) bool {
	if l.o.Hooked != nil {
		return l.o.Hooked(agent, dir)
	}
	in, err := install.Status(install.Options{Agent: agent, Home: l.o.Home, Dir: dir, Getenv: l.o.Getenv})
	if err != nil {
		return false
	}
	for _, s := range in {
		if s.Problem == "" && len(s.Events) > 0 && len(s.Missing) == 0 {
			return true
		}
	}
	return false
}

// checkBranch: checkBranchChars, then git check-ref-format --branch.
func (l *Launcher) checkBranch(ctx context.Context, b string) error {
	if err := checkBranchChars(b); err != nil {
		return err
	}
	if _, err := run(ctx, l.o.Git, "check-ref-format", "--branch", b); err != nil {
		return fmt.Errorf("%w: %q (git check-ref-format)", ErrBranch, b)
	}
	return nil
}

// worktree makes a new worktree of the repository at folder, on a new
// branch, in the launch file's worktrees folder (created when missing,
// and inside a root once its links are followed): git worktree add -b
// BRANCH PATH, a fixed argv. A path already there is refused: nothing is
// ever overwritten.
func (l *Launcher) worktree(ctx context.Context, f File, folder, branch string) (string, error) {
	if err := os.MkdirAll(f.Worktrees, 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrWorktree, err)
	}
	dir, err := filepath.EvalSymlinks(f.Worktrees)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrWorktree, err)
	}
	if _, _, err := f.Folder(dir); err != nil {
		return "", fmt.Errorf("%w: the worktrees folder is not inside a root once its links are followed", ErrWorktree)
	}
	top, err := run(ctx, l.o.Git, "-C", folder, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%w: %s is not in a git repository", ErrWorktree, folder)
	}
	repo := strings.TrimSpace(string(top))
	path := worktreeName(dir, repo, branch)
	if exists(path) {
		return "", fmt.Errorf("%w: %s is there already", ErrWorktree, path)
	}
	if _, err := run(ctx, l.o.Git, "-C", folder, "worktree", "add", "-b", branch, path); err != nil {
		return "", fmt.Errorf("%w: git worktree add: %v", ErrWorktree, err)
	}
	return path, nil
}

// tmuxArgs is a tmux command on the launcher's server.
func (l *Launcher) tmuxArgs(args ...string) []string {
	if l.o.Socket != "" {
		return append([]string{"-S", l.o.Socket}, args...)
	}
	return args
}

// running counts the live panes of Session (none when it or the server
// is not there).
func (l *Launcher) running(ctx context.Context) int {
	out, err := run(ctx, l.o.Tmux, l.tmuxArgs("list-panes", "-s", "-t", "="+Session, "-F", "#{pane_dead}")...)
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "0" {
			n++
		}
	}
	return n
}

// window starts argv in dir in a new window of Session, creating the
// session (and the server) when it is not there: new-session or
// new-window, -d (no client is moved), -P -F #{pane_id} (the pane), -c
// DIR, then argv after "--", each argument as tmux passes it on
// (terminal.Arg). tmux runs a command of one argument through a shell, so
// a lone program is run through env.
func (l *Launcher) window(ctx context.Context, dir string, argv []string) (string, error) {
	if len(argv) == 1 {
		env, err := exec.LookPath("env")
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrTmux, err)
		}
		argv = []string{env, "--", argv[0]}
	}
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=" + Session + ":", "-c", terminal.Arg(dir)}
	if _, err := run(ctx, l.o.Tmux, l.tmuxArgs("has-session", "-t", "="+Session)...); err != nil {
		args = []string{"new-session", "-d", "-s", Session, "-x", "200", "-y", "50", "-P", "-F", "#{pane_id}", "-c", terminal.Arg(dir)}
	}
	args = append(args, "--")
	for _, a := range argv {
		args = append(args, terminal.Arg(a))
	}
	out, err := run(ctx, l.o.Tmux, l.tmuxArgs(args...)...)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrTmux, err)
	}
	pane := strings.TrimSpace(string(out))
	if !terminal.ValidPane(pane) {
		return "", fmt.Errorf("%w: no pane id (%q)", ErrTmux, cut(pane))
	}
	return pane, nil
}

// run runs bin with args: no shell, an environment without tmux's own
// variables (the host may run inside tmux), output bounded.
func run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		if msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	return out.Bytes(), nil
}
