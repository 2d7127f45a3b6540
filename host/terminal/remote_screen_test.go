//go:build linux

package terminal

import (
	"context"
	"errors"
	"os"
	"os/exec"
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

// screenPane is a real GNU screen session (its sockets in a folder of the
// test's own: SCREENDIR) whose window 0 runs an interactive shell.
type screenPane struct {
	t        *testing.T
	sty, dir string
	pid      int // the window's first process: the shell
}

func newScreenPane(t *testing.T) *screenPane {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the processes are read from /proc")
	}
	bin, err := exec.LookPath("screen")
	if err != nil {
		t.Skip("GNU screen is not installed (apt-get install screen)")
	}
	sockets, err := os.MkdirTemp("", "notch-screen-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sockets, 0o700)
	t.Setenv("SCREENDIR", sockets) // the Remote's screen finds the session here too
	dir := t.TempDir()
	name := "notch-test"
	// screen adds STY and WINDOW to the window's environment, as the
	// hook sees them.
	cmd := exec.Command(bin, "-dmS", name, "bash", "--norc", "--noprofile", "-i")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PS1=$ ", "SCREENDIR=" + sockets, "TERM=xterm"}
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screen -dmS: %v %s", err, out)
	}
	p := &screenPane{t: t, dir: dir}
	t.Cleanup(func() {
		exec.Command(bin, "-S", p.sty, "-X", "quit").Run()
		os.RemoveAll(sockets)
	})
	waitfor.Until(t, "the screen session", func() bool {
		entries, _ := os.ReadDir(sockets)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), "."+name) {
				p.sty = e.Name()
				return true
			}
		}
		return false
	})
	server, _ := strconv.Atoi(strings.SplitN(p.sty, ".", 2)[0])
	waitfor.Until(t, "the window's shell", func() bool {
		p.pid = childOf(server, "bash")
		return p.pid != 0
	})
	return p
}

// childOf is the PID of a live child of parent named name, or 0.
func childOf(parent int, name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if in, err := proc.Lookup(pid); err == nil && in.PPID == parent && in.Name == name && !in.Gone {
			return pid
		}
	}
	return 0
}

func (p *screenPane) where() Where { return Where{ScreenSession: p.sty, ScreenWindow: "0"} }

// line types a command line into the shell with screen's own stuff.
func (p *screenPane) line(s string) {
	p.t.Helper()
	if out, err := exec.Command("screen", "-S", p.sty, "-p", "0", "-X", "stuff", stuffLiteral(s)+"^M").CombinedOutput(); err != nil {
		p.t.Fatalf("screen stuff: %v %s", err, out)
	}
}

func (p *screenPane) child(name string) proc.ID {
	p.t.Helper()
	var id proc.ID
	waitfor.Until(p.t, "the shell's child "+name, func() bool {
		pid := childOf(p.pid, name)
		var err error
		id, err = proc.Of(pid)
		return pid != 0 && err == nil
	})
	return id
}

func (p *screenPane) foreground(shell bool) {
	p.t.Helper()
	waitfor.Until(p.t, "the window's foreground", func() bool {
		in, err := proc.Lookup(p.pid)
		return err == nil && (in.TPgrp == in.Pgrp) == shell
	})
}

func (p *screenPane) synced() {
	p.t.Helper()
	probe := filepath.Join(p.dir, "probe-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	p.line("touch " + probe)
	waitfor.Until(p.t, "the shell ran what was typed before", func() bool { return exists(probe) })
}

// termPane is a real terminal's pane running an interactive shell, with
// helpers to type a command line as a person would and find what it runs.
type termPane interface {
	where() Where
	folder() string
	line(s string)
	child(name string) proc.ID
	foreground(shell bool)
	synced()
}

func (p *screenPane) folder() string { return p.dir }

// The real GNU screen: a reply reaches the agent in the window's
// foreground byte for byte — screen's own escapes ("^C", "\033", "$HOME",
// "${TERM}"), a trailing ";" and a reply longer than one stuff command
// are typed as written; over a draft nothing is typed; the screen read is
// the window's (its hardcopy). A window the agent's terminal is not, a
// process of another start, and — once the agent is killed and the shell
// is back — a Reply of "touch MARKER" and a Stop are refused, and the
// shell never runs it.
func TestTypeOnlyIntoTheAgentRealScreen(t *testing.T) {
	p := newScreenPane(t)
	elsewhere := p.where()
	elsewhere.ScreenWindow = "1"
	typeOnlyIntoTheAgent(t, p, elsewhere)
	interruptAgent(t, p)
}

// typeOnlyIntoTheAgent is the scenario above in p; elsewhere is another
// pane of the same terminal, which the agent's terminal is not.
func typeOnlyIntoTheAgent(t *testing.T, p termPane, elsewhere Where) {
	// No clock decides this test: kitty's every command starts a Python
	// of its own, seconds each on a busy machine.
	r := Remote{Timeout: 10 * time.Minute}
	ctx := context.Background()
	typed := filepath.Join(p.folder(), "typed")
	p.line("stty -echo; cat > " + typed)
	agent := p.child("cat")
	p.foreground(false)

	draft := Target{Where: p.where(), Agent: agent, Empty: func(string) bool { return false }}
	if err := r.Type(ctx, draft, "over a draft", 0); !errors.Is(err, ErrDraft) {
		t.Errorf("Type over a draft: %v, want ErrDraft", err)
	}
	tg := Target{Where: p.where(), Agent: agent, Empty: func(s string) bool { return strings.Contains(s, "stty -echo; cat > ") }}
	long := strings.Repeat("é^$\\", 200) // 1000 bytes: several screen stuff commands
	// Few replies: kitty's every command starts a Python of its own.
	replies := []string{`hello $HOME ${TERM} ^C ^^ \033 \\ \n \e[31m "q" 'p' end;`, ";", "--help -X quit " + long + "\ntwo lines"}
	for _, reply := range replies {
		if err := r.Type(ctx, tg, reply, 10*time.Millisecond); err != nil {
			t.Fatalf("Type %q to the agent in front: %v", reply, err)
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

	other := agent
	other.Start++
	if err := r.Type(ctx, Target{Where: p.where(), Agent: other}, "x", 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type for a process of another start: %v, want ErrNotInPane", err)
	}
	if err := r.Type(ctx, Target{Where: elsewhere, Agent: agent}, "x", 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type into a pane the agent is not in: %v, want ErrNotInPane", err)
	}

	marker := filepath.Join(p.folder(), "marker")
	if err := syscall.Kill(agent.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.foreground(true)
	if err := r.Type(ctx, tg, "touch "+marker, 0); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Type after the agent was killed: %v, want ErrNotInPane", err)
	}
	if err := r.Interrupt(ctx, tg, "C-c", 1); !errors.Is(err, ErrNotInPane) {
		t.Errorf("Interrupt after the agent was killed: %v, want ErrNotInPane", err)
	}
	p.synced()
	if exists(marker) {
		t.Fatalf("the shell ran the reply: %s exists", marker)
	}
}

// interruptAgent: Stop's interrupt key reaches an agent in p's front
// (Ctrl-C ends it: the shell is back).
func interruptAgent(t *testing.T, p termPane) {
	r := Remote{Timeout: 10 * time.Minute}
	p.line("sleep 600")
	agent := p.child("sleep")
	p.foreground(false)
	if err := r.Interrupt(context.Background(), Target{Where: p.where(), Agent: agent}, "C-c", 1); err != nil {
		t.Fatalf("Interrupt: %v", err)
	}
	p.foreground(true)
}
