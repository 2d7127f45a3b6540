package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/proc"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// steerPane is a real tmux server with one pane running an interactive
// shell in a folder of its own: the human's terminal.
type steerPane struct {
	t         *testing.T
	sock      string
	pane, dir string
	shell     int
}

func newSteerPane(t *testing.T) *steerPane {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the processes are read from /proc")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tmp, err := os.MkdirTemp("", "steer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	p := &steerPane{t: t, sock: filepath.Join(tmp, "tmux"), dir: t.TempDir()}
	p.pane = p.tmux("-f", "/dev/null", "new-session", "-d", "-P", "-F", "#{pane_id}", "-x", "80", "-y", "24", "-c", p.dir,
		"env -i PATH=/usr/bin:/bin HOME="+p.dir+" PS1='$ ' bash --norc --noprofile -i")
	t.Cleanup(func() { exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	p.shell, _ = strconv.Atoi(p.tmux("display-message", "-p", "-t", p.pane, "#{pane_pid}"))
	return p
}

func (p *steerPane) tmux(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=", "TMUX_PANE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// line runs a command line in the shell, as the human types one.
func (p *steerPane) line(s string) {
	p.t.Helper()
	p.tmux("send-keys", "-t", p.pane, "-l", "--", s)
	p.tmux("send-keys", "-t", p.pane, "Enter")
}

// synced waits until the shell has run all that was typed before.
func (p *steerPane) synced() {
	p.t.Helper()
	probe := filepath.Join(p.dir, "probe-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	p.line("touch " + probe)
	waitfor.Until(p.t, "the shell ran what was typed before", func() bool { _, err := os.Stat(probe); return err == nil })
}

// child is the shell's child named name, once it runs.
func (p *steerPane) child(name string) proc.ID {
	p.t.Helper()
	var id proc.ID
	waitfor.Until(p.t, "the shell's "+name, func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if in, err := proc.Lookup(pid); err == nil && in.PPID == p.shell && in.Name == name && !in.Gone {
				id, err = proc.Of(pid)
				return err == nil
			}
		}
		return false
	})
	return id
}

// foreground waits until the shell (or, false, a job of it) holds the
// pane's terminal.
func (p *steerPane) foreground(shell bool) {
	p.t.Helper()
	waitfor.Until(p.t, "the pane's foreground", func() bool {
		in, err := proc.Lookup(p.shell)
		return err == nil && (in.TPgrp == in.Pgrp) == shell
	})
}

// A Reply or a Stop is typed only into the pane whose foreground is the
// row's agent. The agent's process runs on but the shell is back in front
// (Codex's /quit leaves its daemon; a job put in the background), or the
// agent was killed a moment ago (before its row settled): 409
// ErrNotInPane, nothing reaches the shell (the reply "touch MARKER" makes
// no file), and the row no longer offers Reply and Stop.
func TestSteerOnlyIntoTheAgentsPane(t *testing.T) {
	for _, gone := range []string{"background", "killed"} {
		t.Run(gone, func(t *testing.T) {
			p := newSteerPane(t)
			h := newHost(t, t.TempDir())
			marker := filepath.Join(p.dir, "marker")
			typed := filepath.Join(p.dir, "typed")
			// The agent: cat, below a Gemini CLI's empty input drawn.
			p.line(`printf ' > \n\n'; stty -echo; cat > ` + typed)
			agent := p.child("cat")
			p.foreground(false)
			where := terminal.Where{TmuxPane: p.pane, TmuxSocket: p.sock}
			if !terminal.ValidSocket(p.sock) {
				t.Skipf("the temporary folder's path %q is not one a hook would keep", p.sock)
			}
			if _, err := h.HookFrom("gemini", []byte(`{"session_id":"g1","cwd":"/src/p","hook_event_name":"SessionStart","source":"startup","timestamp":"2026-12-03T10:00:00Z"}`),
				time.Now(), Origin{Where: where, Proc: agent}); err != nil {
				t.Fatal(err)
			}
			if !h.board.steerRows()["g1"] {
				t.Fatalf("the row does not take a reply while its agent is in its pane")
			}
			ctx := context.Background()
			if err := h.Steer(ctx, SteerRequest{Session: "g1", Text: "hello"}); err != nil {
				t.Fatalf("a reply to the agent in its pane: %v", err)
			}
			waitfor.Until(t, "the agent got the reply", func() bool { b, _ := os.ReadFile(typed); return string(b) == "hello\n" })

			switch gone {
			case "background": // the agent runs on, the shell is in front
				p.tmux("send-keys", "-t", p.pane, "C-z")
				p.foreground(true)
			case "killed": // before the host has seen it end
				if pr, err := os.FindProcess(agent.PID); err != nil {
					t.Fatal(err)
				} else if err := pr.Kill(); err != nil { // SIGKILL
					t.Fatal(err)
				}
				p.foreground(true)
			}
			err := h.Steer(ctx, SteerRequest{Session: "g1", Text: "touch " + marker})
			if !errors.Is(err, terminal.ErrNotInPane) {
				t.Errorf("a reply once the shell is back: %v, want ErrNotInPane", err)
			}
			if h.board.steerRows()["g1"] {
				t.Errorf("the row still offers Reply and Stop after the refusal")
			}
			p.synced()
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the shell ran the reply: %s exists", marker)
			}
		})
	}
}

// The board offers Reply and Stop only on rows whose agent may still be in
// its pane: a pane known, its process known and not ended; a row a Reply
// found gone offers them again once a turn starts there.
func TestSteerRows(t *testing.T) {
	h := newHost(t, t.TempDir())
	where := terminal.Where{TmuxPane: "%1", TmuxSocket: "/tmp/tmux-0/default"}
	id, err := proc.Of(os.Getpid()) // a process of this machine: the host watches it
	if err != nil {
		t.Skip(err)
	}
	start := func(s string) []byte {
		return []byte(`{"session_id":"` + s + `","cwd":"/src/p","hook_event_name":"SessionStart","source":"startup","timestamp":"2026-12-03T10:00:00Z"}`)
	}
	h.HookFrom("gemini", start("both"), time.Now(), Origin{Where: where, Proc: id})
	h.HookFrom("gemini", start("noproc"), time.Now(), Origin{Where: where})
	h.HookFrom("gemini", start("nopane"), time.Now(), Origin{Proc: id})
	h.HookFrom("gemini", start("ended"), time.Now(), Origin{Where: where, Proc: id})
	screen := terminal.Where{ScreenSession: "42.s", ScreenWindow: "0"}
	h.HookFrom("gemini", start("screen"), time.Now(), Origin{Where: screen, Proc: id})
	h.HookFrom("codex", []byte(`{"session_id":"codex-screen","cwd":"/src/p","hook_event_name":"SessionStart","source":"startup","model":"m","transcript_path":null}`),
		time.Now(), Origin{Where: screen, Proc: id})
	h.HookFrom("gemini", start("kitty-silent"), time.Now(), Origin{Where: terminal.Where{KittyWindow: "3"}, Proc: id})
	h.Hook("gemini", []byte(`{"session_id":"ended","cwd":"/src/p","hook_event_name":"SessionEnd","reason":"exit","timestamp":"2026-12-03T10:00:01Z"}`), time.Now())
	got := h.board.steerRows()
	for _, row := range []string{"screen", "codex-screen", "kitty-silent"} {
		if _, ok := h.board.Where(row); !ok {
			t.Fatalf("no row %s with its terminal", row)
		}
	}
	// A row in screen takes them (Linux); Codex there does not (a
	// daemon's client is checked in tmux only), nor a kitty that does not
	// listen for remote control.
	for row, want := range map[string]bool{"both": true, "noproc": false, "nopane": false, "ended": false,
		"screen": runtime.GOOS == "linux", "codex-screen": false, "kitty-silent": false} {
		if got[row] != want {
			t.Errorf("steerRows[%s] = %v, want %v", row, got[row], want)
		}
	}
	h.board.leftPaneOf("both")
	if h.board.steerRows()["both"] {
		t.Errorf("a row whose agent left its pane still takes Reply")
	}
	h.Hook("gemini", []byte(`{"session_id":"both","cwd":"/src/p","hook_event_name":"BeforeAgent","prompt":"go","timestamp":"2026-12-03T10:00:02Z"}`), time.Now())
	if !h.board.steerRows()["both"] {
		t.Errorf("a turn started in the pane, yet the row takes no Reply")
	}
}
