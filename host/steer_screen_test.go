//go:build linux

package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// A session in GNU screen, as a hook names it (STY and WINDOW), takes a
// Reply through screen's own stuff — its empty input read from screen's
// hardcopy by the agent's rule — and once its agent is killed and the
// shell is back, a Reply is refused and the row offers none.
func TestSteerIntoScreen(t *testing.T) {
	bin, err := exec.LookPath("screen")
	if err != nil {
		t.Skip("GNU screen is not installed (apt-get install screen)")
	}
	sockets, err := os.MkdirTemp("", "notch-screen-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sockets, 0o700)
	t.Cleanup(func() { os.RemoveAll(sockets) })
	t.Setenv("SCREENDIR", sockets)
	dir := t.TempDir()
	cmd := exec.Command(bin, "-dmS", "steer", "bash", "--norc", "--noprofile", "-i")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "PS1=$ ", "SCREENDIR=" + sockets, "TERM=xterm"}
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screen -dmS: %v %s", err, out)
	}
	var sty string
	waitfor.Until(t, "the screen session", func() bool {
		entries, _ := os.ReadDir(sockets)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".steer") {
				sty = e.Name()
				return true
			}
		}
		return false
	})
	t.Cleanup(func() { exec.Command(bin, "-S", sty, "-X", "quit").Run() })
	stuff := func(s string) {
		t.Helper()
		s = strings.NewReplacer(`\`, `\\`, `^`, `\^`, `$`, `\$`).Replace(s)
		if out, err := exec.Command(bin, "-S", sty, "-p", "0", "-X", "stuff", s+"^M").CombinedOutput(); err != nil {
			t.Fatalf("stuff: %v %s", err, out)
		}
	}
	server, _ := strconv.Atoi(strings.SplitN(sty, ".", 2)[0])
	shell := childNamed(t, server, "bash")

	typed := filepath.Join(dir, "typed")
	// The agent: cat, below a Gemini CLI's empty input drawn.
	stuff(`printf ' > \n\n'; stty -echo; cat > ` + typed)
	agentPID := childNamed(t, shell, "cat")
	agent, err := proc.Of(agentPID)
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, t.TempDir())
	where := terminal.Where{ScreenSession: sty, ScreenWindow: "0"}
	if _, err := h.HookFrom("gemini", []byte(`{"session_id":"g1","cwd":"/src/p","hook_event_name":"SessionStart","source":"startup","timestamp":"2026-12-03T10:00:00Z"}`),
		time.Now(), Origin{Where: where, Proc: agent}); err != nil {
		t.Fatal(err)
	}
	if !h.board.steerRows()["g1"] {
		t.Fatalf("the row in screen does not take a reply while its agent is in its window")
	}
	ctx := context.Background()
	waitfor.Until(t, "the agent in front", func() bool {
		return h.Steer(ctx, SteerRequest{Session: "g1", Text: "hello ^C $HOME"}) == nil
	})
	waitfor.Until(t, "the agent got the reply", func() bool { b, _ := os.ReadFile(typed); return string(b) == "hello ^C $HOME\n" })

	if err := exec.Command("kill", "-9", strconv.Itoa(agentPID)).Run(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "marker")
	waitfor.Until(t, "the shell back in front", func() bool {
		in, err := proc.Lookup(shell)
		return err == nil && in.TPgrp == in.Pgrp
	})
	if err := h.Steer(ctx, SteerRequest{Session: "g1", Text: "touch " + marker}); !errors.Is(err, terminal.ErrNotInPane) {
		t.Errorf("a reply once the shell is back: %v, want ErrNotInPane", err)
	}
	if h.board.steerRows()["g1"] {
		t.Errorf("the row still offers Reply and Stop after the refusal")
	}
	probe := filepath.Join(dir, "probe")
	stuff("touch " + probe)
	waitfor.Until(t, "the shell ran what was typed before", func() bool { _, err := os.Stat(probe); return err == nil })
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the shell ran the reply: %s exists", marker)
	}
}

// childNamed waits for parent's live child named name and returns its PID.
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	pid := 0
	waitfor.Until(t, "the child "+name, func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			p, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if in, err := proc.Lookup(p); err == nil && in.PPID == parent && in.Name == name && !in.Gone {
				pid = p
				return true
			}
		}
		return false
	})
	return pid
}
