//go:build unix

package terminal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
)

func TestFront(t *testing.T) {
	pane := proc.Info{PID: 100, Pgrp: 100, TTY: 34817, TPgrp: 200}
	for _, tc := range []struct {
		name    string
		pane    proc.Info
		agent   proc.Info
		members []proc.Info
		client  bool
		want    bool
	}{
		{"the agent is the foreground group", pane, proc.Info{PID: 201, Pgrp: 200, TTY: 34817, Name: "claude"}, nil, false, true},
		{"the shell is back in front", pane, proc.Info{PID: 201, Pgrp: 300, TTY: 34817, Name: "claude"}, nil, false, false},
		{"the agent run as the pane's process", proc.Info{PID: 100, Pgrp: 100, TTY: 34817, TPgrp: 100}, proc.Info{PID: 100, Pgrp: 100, TTY: 34817}, nil, false, true},
		{"the same group number on another terminal", pane, proc.Info{PID: 201, Pgrp: 200, TTY: 34818}, nil, false, false},
		{"a pane with no terminal", proc.Info{PID: 100, TPgrp: -1}, proc.Info{PID: 201, Pgrp: -1}, nil, false, false},
		{"a daemon's client in front", pane, proc.Info{PID: 900, Pgrp: 900, Name: "codex"},
			[]proc.Info{{PID: 200, Pgrp: 200, TTY: 34817, Name: "node"}, {PID: 202, Pgrp: 200, TTY: 34817, Name: "codex"}}, true, true},
		{"a daemon whose client left: a shell in front", pane, proc.Info{PID: 900, Pgrp: 900, Name: "codex"},
			[]proc.Info{{PID: 200, Pgrp: 200, TTY: 34817, Name: "bash"}}, true, false},
		{"a daemon with nothing read in front", pane, proc.Info{PID: 900, Pgrp: 900, Name: "codex"}, nil, true, false},
		{"a daemon with no name", pane, proc.Info{PID: 900, Pgrp: 900},
			[]proc.Info{{PID: 200, Pgrp: 200, TTY: 34817}}, true, false},
	} {
		if got := front(tc.pane, tc.agent, tc.members, tc.client); got != tc.want {
			t.Errorf("%s: front = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLiteral: what Type passes to send-keys -l is what tmux types.
func TestLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"run the tests;": `run the tests\;`,
		";":              `\;`,
		`\;`:             `\\;`,
		"a;b":            "a;b",
		";;":             `;\;`,
		"plain":          "plain",
	} {
		if got := literal(in); got != want {
			t.Errorf("literal(%q) = %q, want %q", in, got, want)
		}
	}
}

// shellPane is a real tmux pane running an interactive shell in its own
// folder, with helpers to run a command there as a person would and to
// find the processes it starts.
type shellPane struct {
	*realTmux
	pane, dir string
	pid       int // the pane's process: the shell
}

func newShellPane(t *testing.T) *shellPane {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the processes are read from /proc")
	}
	r := newRealTmux(t)
	dir := t.TempDir()
	pane := r.run("new-window", "-P", "-F", "#{pane_id}", "-c", dir, "-t", "terminal-a", "env -i PATH=/usr/bin:/bin HOME="+dir+" PS1='$ ' bash --norc --noprofile -i")
	pid, err := strconv.Atoi(r.run("display-message", "-p", "-t", pane, "#{pane_pid}"))
	if err != nil {
		t.Fatal(err)
	}
	return &shellPane{realTmux: r, pane: pane, dir: dir, pid: pid}
}

// where is the pane as a hook would name it.
func (p *shellPane) where() Where { return Where{TmuxPane: p.pane, TmuxSocket: p.sock} }

// line types a command line into the shell, as a person would.
func (p *shellPane) line(s string) {
	p.t.Helper()
	p.run("send-keys", "-t", p.pane, "-l", "--", literal(s))
	p.run("send-keys", "-t", p.pane, "Enter")
}

// synced waits until the shell has run everything typed before: it runs
// one more command that makes a file, and the file appears.
func (p *shellPane) synced() {
	p.t.Helper()
	probe := filepath.Join(p.dir, "probe-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	p.line("touch " + probe)
	waitfor.Until(p.t, "the shell ran what was typed before", func() bool { return exists(probe) })
}

// child waits for the pane's shell's child named name and returns its ID.
func (p *shellPane) child(name string) proc.ID {
	p.t.Helper()
	var id proc.ID
	waitfor.Until(p.t, "the shell's child "+name, func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if in, err := proc.Lookup(pid); err == nil && in.PPID == p.pid && in.Name == name && !in.Gone {
				id, err = proc.Of(pid)
				return err == nil
			}
		}
		return false
	})
	return id
}

// inFront waits until the pane's foreground group is the shell's own, or
// another's (fg: the shell has handed the terminal to a job).
func (p *shellPane) foreground(shell bool) {
	p.t.Helper()
	waitfor.Until(p.t, "the pane's foreground", func() bool {
		in, err := proc.Lookup(p.pid)
		return err == nil && (in.TPgrp == in.Pgrp) == shell
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// The real tmux and a real shell: keys go to the pane only while the
// row's agent is its foreground. Once the agent has gone (killed, or
// put in the background) and the shell is back, a Reply of "touch
// MARKER" is refused and the shell never runs it; a Stop is refused too.
func TestTypeOnlyIntoTheAgent(t *testing.T) {
	p := newShellPane(t)
	marker := filepath.Join(p.dir, "marker")
	reply := "touch " + marker
	var tm Tmux
	ctx := context.Background()

	// The agent in front: cat, writing what it is typed to a file.
	typed := filepath.Join(p.dir, "typed")
	p.line("stty -echo; cat > " + typed)
	agent := p.child("cat")
	p.foreground(false)
	// A screen that is not the agent's empty input: nothing is typed.
	draft := Target{Where: p.where(), Agent: agent, Empty: func(string) bool { return false }}
	if err := tm.Type(ctx, draft, "over a draft", 0); !errors.Is(err, ErrDraft) {
		t.Errorf("Type over a draft: %v, want ErrDraft", err)
	}
	// The screen read is the pane's: its command line is on it.
	tg := Target{Where: p.where(), Agent: agent, Empty: func(s string) bool { return strings.Contains(s, "cat > "+typed) }}
	if err := tm.Type(ctx, tg, "hello agent", 10*time.Millisecond); err != nil {
		t.Fatalf("Type to the agent in front: %v", err)
	}
	waitfor.Until(t, "the agent got the reply", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello agent\n"
	})

	// A process that started at another time under the agent's PID is
	// not the agent.
	other := agent
	other.Start++
	if err := tm.Type(ctx, Target{Where: p.where(), Agent: other}, reply, 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type for a process of another start: %v, want ErrNotInPane", err)
	}
	if err := tm.Type(ctx, Target{Where: p.where()}, reply, 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type with no process known: %v, want ErrNotInPane", err)
	}

	// The agent is killed (kill -9): the shell is back at its prompt.
	if err := syscall.Kill(agent.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.foreground(true)
	if err := tm.Type(ctx, tg, reply, 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type after the agent was killed: %v, want ErrNotInPane", err)
	}
	if err := tm.Interrupt(ctx, tg, "C-c", 1); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Interrupt after the agent was killed: %v, want ErrNotInPane", err)
	}

	// The agent lives on, but in the background: the shell is in front.
	p.line("sleep 600 &")
	bg := p.child("sleep")
	p.synced()
	if err := tm.Type(ctx, Target{Where: p.where(), Agent: bg}, reply, 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type while the agent runs in the background: %v, want ErrNotInPane", err)
	}

	p.synced()
	if exists(marker) {
		t.Fatalf("the shell ran the reply: %s exists", marker)
	}
}

// A daemon's client (Codex): the row's process is a daemon outside the
// terminal; keys go to the pane while a process of its program is the
// pane's foreground, and not once the shell is back.
func TestTypeIntoADaemonsClient(t *testing.T) {
	p := newShellPane(t)
	marker := filepath.Join(p.dir, "marker")
	var tm Tmux
	ctx := context.Background()

	daemon := startDaemon(t, "sleep")
	p.line("sleep 601")
	p.child("sleep")
	p.foreground(false)
	tg := Target{Where: p.where(), Agent: daemon, Client: true}
	if err := tm.Interrupt(ctx, tg, "C-c", 1); err != nil {
		t.Fatalf("Interrupt with the client in front: %v", err)
	}
	p.foreground(true) // Ctrl-C ended the client
	if err := tm.Type(ctx, tg, "touch "+marker, 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type once the client left: %v, want ErrNotInPane", err)
	}
	p.synced()
	if exists(marker) {
		t.Fatalf("the shell ran the reply: %s exists", marker)
	}
}

// startDaemon starts a program in a session of its own, with no terminal,
// as a daemon runs, until the test ends.
func startDaemon(t *testing.T, name string) proc.ID {
	t.Helper()
	attr := &os.ProcAttr{Sys: &syscall.SysProcAttr{Setsid: true}}
	bin := "/bin/" + name
	pr, err := os.StartProcess(bin, []string{name, "600"}, attr)
	if err != nil {
		t.Skipf("%s: %v", bin, err)
	}
	t.Cleanup(func() { pr.Kill(); pr.Wait() })
	var id proc.ID
	waitfor.Until(t, "the daemon runs", func() bool {
		in, err := proc.Lookup(pr.Pid)
		if err != nil || in.Name != name {
			return false
		}
		id, err = proc.Of(pr.Pid)
		return err == nil
	})
	return id
}

// tmux's real send-keys types every byte of a reply: a trailing ";" (its
// command separator), a lone ";", "\;" and the like reach the program in
// the pane as they were written.
func TestTypeSemicolonsRealTmux(t *testing.T) {
	p := newShellPane(t)
	typed := filepath.Join(p.dir, "typed")
	p.line("stty -echo; cat > " + typed)
	agent := p.child("cat")
	p.foreground(false)
	var tm Tmux
	replies := []string{"run the tests;", ";", `\;`, `a\\;`, ";;", "a;b", `\`, "; ls", "$(id);", "-l;", "{", "}"}
	for _, r := range replies {
		if err := tm.Type(context.Background(), Target{Where: p.where(), Agent: agent}, r, 0); err != nil {
			t.Fatalf("Type %q: %v", r, err)
		}
	}
	want := strings.Join(replies, "\n") + "\n"
	var got string
	for deadline := time.Now().Add(waitfor.Patience); got != want; time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(typed)
		if got = string(b); time.Now().After(deadline) {
			t.Fatalf("the pane's program got\n%q\nwant\n%q", got, want)
		}
	}
}
