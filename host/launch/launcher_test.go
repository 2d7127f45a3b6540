package launch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// helperVerb, as the test binary's first argument, makes it the stand-in
// agent: it writes its arguments and folder to $NOTCH_LAUNCH_OUT/<pane>
// and stays until its window is killed.
const helperVerb = "notch-launch-helper-agent"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == helperVerb {
		wd, _ := os.Getwd()
		b, _ := json.Marshal(seen{Args: os.Args[2:], Dir: wd})
		name := strings.TrimPrefix(os.Getenv("TMUX_PANE"), "%")
		_ = os.WriteFile(filepath.Join(os.Getenv("NOTCH_LAUNCH_OUT"), name+".json"), b, 0o600)
		time.Sleep(2 * time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// seen is what the stand-in agent was given.
type seen struct {
	Args []string `json:"args"`
	Dir  string   `json:"dir"`
}

// stand is a launcher on a tmux server of the test's own, a root with a
// git repository in it, and the stand-in agent as Claude Code's argv.
type stand struct {
	t      *testing.T
	l      *Launcher
	root   string
	repo   string
	out    string
	socket string
	file   File
	path   string
	now    time.Time
	mu     sync.Mutex
}

func newStand(t *testing.T) *stand {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("tmux")
	}
	for _, bin := range []string{"tmux", "git"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed", bin)
		}
	}
	tmp, err := os.MkdirTemp("", "nl") // short: a socket's path is at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	tmp, _ = filepath.EvalSymlinks(tmp)
	s := &stand{t: t, root: filepath.Join(tmp, "src"), out: filepath.Join(tmp, "out"), socket: filepath.Join(tmp, "tmux.sock"), now: time.Unix(1_800_000_000, 0)}
	s.repo = filepath.Join(s.root, "billing-api")
	for _, d := range []string{s.repo, s.out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-C", s.repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "first")
	t.Setenv("NOTCH_LAUNCH_OUT", s.out) // the tmux server, started by the first start, inherits it
	s.path = filepath.Join(tmp, FileName)
	s.file = File{
		Roots:     []string{s.root},
		Agents:    map[string]Agent{"claude-code": {Argv: []string{os.Args[0], helperVerb}}, "gemini": {Argv: []string{os.Args[0], helperVerb}}},
		Worktrees: filepath.Join(s.root, ".worktrees"),
	}
	s.write()
	s.l = New(Options{Path: s.path, Socket: s.socket, Hooked: func(a, _ string) bool { return a != "gemini" }, Now: func() time.Time {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.now
	}})
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", s.socket, "kill-server").Run()
		os.RemoveAll(tmp)
	})
	return s
}

func (s *stand) write() {
	s.t.Helper()
	if err := Write(s.path, s.file); err != nil {
		s.t.Fatal(err)
	}
}

// seen waits for what the agent of pane was given.
func (s *stand) seen(pane string) seen {
	s.t.Helper()
	var got seen
	file := filepath.Join(s.out, strings.TrimPrefix(pane, "%")+".json")
	waitfor.Until(s.t, "the agent of "+pane+" to start", func() bool {
		b, err := os.ReadFile(file)
		return err == nil && json.Unmarshal(b, &got) == nil
	})
	return got
}

func (s *stand) advance(d time.Duration) {
	s.mu.Lock()
	s.now = s.now.Add(d)
	s.mu.Unlock()
}

// TestStartProbe: hostile prompts, folders and branches are refused, or
// reach the agent as they were written — one argument, in its folder,
// nothing read by a shell or by tmux — with a real tmux and git.
func TestStartProbe(t *testing.T) {
	s := newStand(t)
	s.file.StartsPerMinute, s.file.MaxSessions = MaxRate, MaxSessions
	s.write()
	odd := filepath.Join(s.root, `it's "$(touch pwned)" ;`)
	if err := os.MkdirAll(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	link := filepath.Join(s.root, "escape")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	hostile := "-rf; $(touch pwned) `touch pwned` \"q\" 'q' \\; #{pane_id} ~\nsecond line;"
	tests := []struct {
		name string
		r    Request
		err  error    // nil: started
		args []string // what the agent is given (after its fixed argv)
		dir  string   // where it runs
	}{
		{"a plain prompt", Request{Folder: s.repo, Agent: "claude-code", Prompt: "fix the tests"}, nil, []string{"--", "fix the tests"}, s.repo},
		{"a hostile prompt is one argument", Request{Folder: s.repo, Agent: "claude-code", Prompt: hostile}, nil, []string{"--", hostile}, s.repo},
		{"a lone semicolon", Request{Folder: s.repo, Agent: "claude-code", Prompt: ";"}, nil, []string{"--", ";"}, s.repo},
		{"no prompt", Request{Folder: s.repo, Agent: "claude-code"}, nil, []string{}, s.repo},
		{"a folder with quotes and $()", Request{Folder: odd, Agent: "claude-code", Prompt: "x"}, nil, []string{"--", "x"}, odd},
		{"a resume", Request{Folder: s.repo, Agent: "claude-code", Resume: "0b6c5f0e-1c2d"}, nil, []string{"--resume=0b6c5f0e-1c2d"}, s.repo},
		{"a new worktree", Request{Folder: s.repo, Agent: "claude-code", Branch: "fix/invoices", Prompt: "go"}, nil, []string{"--", "go"}, filepath.Join(s.root, ".worktrees", "billing-api-fix-invoices")},

		{"an escape in the prompt", Request{Folder: s.repo, Agent: "claude-code", Prompt: "a\x1b[2Jb"}, ErrPrompt, nil, ""},
		{"a bidi mark in the prompt", Request{Folder: s.repo, Agent: "claude-code", Prompt: "a\u202eb"}, ErrPrompt, nil, ""},
		{"a NUL in the prompt", Request{Folder: s.repo, Agent: "claude-code", Prompt: "a\x00b"}, ErrPrompt, nil, ""},
		{"a megabyte prompt", Request{Folder: s.repo, Agent: "claude-code", Prompt: strings.Repeat("a", 1<<20)}, ErrPrompt, nil, ""},
		{"a folder outside the roots", Request{Folder: outside, Agent: "claude-code"}, ErrFolder, nil, ""},
		{"a link out of the root", Request{Folder: link, Agent: "claude-code"}, ErrFolder, nil, ""},
		{"a relative folder", Request{Folder: "-rf", Agent: "claude-code"}, ErrFolder, nil, ""},
		{"a folder with ..", Request{Folder: s.repo + "/../../etc", Agent: "claude-code"}, ErrFolder, nil, ""},
		{"a newline in the folder", Request{Folder: s.repo + "\n/x", Agent: "claude-code"}, ErrFolder, nil, ""},
		{"a megabyte folder", Request{Folder: "/" + strings.Repeat("a", 1<<20), Agent: "claude-code"}, ErrFolder, nil, ""},
		{"an agent not allowed", Request{Folder: s.repo, Agent: "codex"}, ErrAgent, nil, ""},
		{"not an agent", Request{Folder: s.repo, Agent: "bash"}, ErrAgent, nil, ""},
		{"hooks not installed", Request{Folder: s.repo, Agent: "gemini"}, ErrHooks, nil, ""},
		{"a resume of an agent that cannot", Request{Folder: s.repo, Agent: "gemini", Resume: "abc"}, ErrResume, nil, ""},
		{"a resume id that is an option", Request{Folder: s.repo, Agent: "claude-code", Resume: "-rf"}, ErrResume, nil, ""},
		{"a resume id with a semicolon", Request{Folder: s.repo, Agent: "claude-code", Resume: "a;b"}, ErrResume, nil, ""},
		{"a branch that is an option", Request{Folder: s.repo, Agent: "claude-code", Branch: "-D"}, ErrBranch, nil, ""},
		{"a branch with $()", Request{Folder: s.repo, Agent: "claude-code", Branch: "$(id)"}, ErrBranch, nil, ""},
		{"a branch with ..", Request{Folder: s.repo, Agent: "claude-code", Branch: "a/../../b"}, ErrBranch, nil, ""},
		{"a branch with a newline", Request{Folder: s.repo, Agent: "claude-code", Branch: "a\nb"}, ErrBranch, nil, ""},
		{"a branch git refuses", Request{Folder: s.repo, Agent: "claude-code", Branch: "x.lock"}, ErrBranch, nil, ""},
		{"a branch ending in a slash", Request{Folder: s.repo, Agent: "claude-code", Branch: "x/"}, ErrBranch, nil, ""},
		{"a megabyte branch", Request{Folder: s.repo, Agent: "claude-code", Branch: strings.Repeat("b", 1<<20)}, ErrBranch, nil, ""},
		{"a worktree that is there already", Request{Folder: s.repo, Agent: "claude-code", Branch: "fix/invoices"}, ErrWorktree, nil, ""},
		{"a worktree of a folder that is no repository", Request{Folder: odd, Agent: "claude-code", Branch: "b"}, ErrWorktree, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.t = t
			res, err := s.l.Start(context.Background(), tt.r)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Start: %v; want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			got := s.seen(res.Pane)
			if strings.Join(got.Args, "\x00") != strings.Join(tt.args, "\x00") || got.Dir != tt.dir {
				t.Fatalf("the agent got %q in %q; want %q in %q", got.Args, got.Dir, tt.args, tt.dir)
			}
		})
	}
	s.t = t
	if _, err := os.Stat(filepath.Join(s.repo, "pwned")); err == nil {
		t.Fatal("something ran a shell: pwned is there")
	}
	matches, _ := filepath.Glob(filepath.Join(s.root, "*", "pwned"))
	if len(matches) > 0 {
		t.Fatalf("something ran a shell: %v", matches)
	}
}

// TestStartOff: with no launch file, or one that allows no agent, or one
// others may write, nothing starts, and the refusal says how to turn it on.
func TestStartOff(t *testing.T) {
	s := newStand(t)
	r := Request{Folder: s.repo, Agent: "claude-code", Prompt: "x"}
	os.Remove(s.path)
	if _, err := s.l.Start(context.Background(), r); !errors.Is(err, ErrOff) || !strings.Contains(err.Error(), "allow-folder") {
		t.Fatalf("no file: %v", err)
	}
	s.file.Agents = nil
	s.write()
	if _, err := s.l.Start(context.Background(), r); !errors.Is(err, ErrOff) {
		t.Fatalf("no agent: %v", err)
	}
	s.file.Agents = map[string]Agent{"claude-code": {Argv: []string{os.Args[0], helperVerb}}}
	s.write()
	if runtime.GOOS != "windows" {
		os.Chmod(s.path, 0o666)
		if _, err := s.l.Start(context.Background(), r); !errors.Is(err, ErrOff) || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("a world-writable file: %v", err)
		}
	}
}

// TestStartBounds: a flood of starts is refused past startsPerMinute, and
// starts past maxSessions running at once, until one ends.
func TestStartBounds(t *testing.T) {
	s := newStand(t)
	s.file.StartsPerMinute, s.file.MaxSessions = 2, 2
	s.write()
	r := Request{Folder: s.repo, Agent: "claude-code"}
	var panes []string
	for range 2 {
		res, err := s.l.Start(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		panes = append(panes, res.Pane)
	}
	if _, err := s.l.Start(context.Background(), r); !errors.Is(err, ErrRate) {
		t.Fatalf("a third start in a minute: %v; want ErrRate", err)
	}
	s.advance(61 * time.Second)
	if _, err := s.l.Start(context.Background(), r); !errors.Is(err, ErrFull) {
		t.Fatalf("a third session at once: %v; want ErrFull", err)
	}
	s.seen(panes[0])
	if out, err := exec.Command("tmux", "-S", s.socket, "kill-pane", "-t", panes[0]).CombinedOutput(); err != nil {
		t.Fatalf("kill-pane: %v %s", err, out)
	}
	if _, err := s.l.Start(context.Background(), r); err != nil {
		t.Fatalf("once one ended: %v", err)
	}
}
