//go:build linux

package terminal

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// kittyPane is a real kitty (an X display of the test's own: Xvfb, kitty
// drawing with Mesa's software OpenGL) with remote control allowed and
// listening on a socket of the test's, its one window running an
// interactive shell.
type kittyPane struct {
	t      *testing.T
	listen string
	dir    string
	pid    int // the window's first process: the shell
}

func newKittyPane(t *testing.T) *kittyPane {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the processes are read from /proc")
	}
	kitty, err := exec.LookPath("kitty")
	if err != nil {
		t.Skip("kitty is not installed (apt-get install kitty)")
	}
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("kitty needs a display: Xvfb is not installed (apt-get install xvfb)")
	}
	// Xvfb picks a free display and says which on the pipe.
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command(xvfb, "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "1024x768x24")
	x.ExtraFiles = []*os.File{wr}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	display, err := bufio.NewReader(rd).ReadString('\n')
	rd.Close()
	if err != nil {
		t.Fatalf("Xvfb gave no display: %v", err)
	}
	dir := t.TempDir()
	p := &kittyPane{t: t, dir: dir, listen: "unix:" + filepath.Join(dir, "kitty.sock")}
	k := exec.Command(kitty, "--config", "NONE", "-o", "allow_remote_control=yes", "--listen-on", p.listen,
		"bash", "--norc", "--noprofile", "-i")
	k.Dir = dir
	k.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PS1=$ ", "DISPLAY=:" + strings.TrimSpace(display),
		"LIBGL_ALWAYS_SOFTWARE=1", "XDG_RUNTIME_DIR=" + dir}
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Process.Kill(); k.Wait() })
	waitfor.Until(t, "kitty's window's shell", func() bool {
		p.pid = childOf(k.Process.Pid, "bash")
		return p.pid != 0
	})
	// kitty answers its remote control once its window is up.
	waitfor.Until(t, "kitty's remote control", func() bool {
		return exec.Command(kitty, "@", "--to", p.listen, "ls").Run() == nil
	})
	return p
}

func (p *kittyPane) where() Where   { return Where{KittyWindow: "1", KittyListen: p.listen} }
func (p *kittyPane) folder() string { return p.dir }

// line types a command line into the shell with kitty's own send-text.
func (p *kittyPane) line(s string) {
	p.t.Helper()
	cmd := exec.Command("kitty", "@", "--to", p.listen, "send-text", "--match", "id:1", "--stdin")
	cmd.Stdin = strings.NewReader(s + "\r")
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("kitty send-text: %v %s", err, out)
	}
}

func (p *kittyPane) child(name string) proc.ID {
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

func (p *kittyPane) foreground(shell bool) {
	p.t.Helper()
	waitfor.Until(p.t, "the window's foreground", func() bool {
		in, err := proc.Lookup(p.pid)
		return err == nil && (in.TPgrp == in.Pgrp) == shell
	})
}

func (p *kittyPane) synced() {
	p.t.Helper()
	probe := filepath.Join(p.dir, "probe-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	p.line("touch " + probe)
	waitfor.Until(p.t, "the shell ran what was typed before", func() bool { return exists(probe) })
}

// The real kitty (0.26, Debian's), under Xvfb: the same scenario as
// screen's — kitty's send-text reads an argument with Python's escapes
// ("\e[31m"), which the reply's text never is (it goes on stdin); its
// screen is read with get-text --ansi; window 2 does not exist, and the
// agent's terminal is not it.
func TestTypeOnlyIntoTheAgentRealKitty(t *testing.T) {
	p := newKittyPane(t)
	elsewhere := p.where()
	elsewhere.KittyWindow = "2"
	typeOnlyIntoTheAgent(t, p, elsewhere)
	interruptAgent(t, p)
}
