package terminal

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// listen makes a Unix socket in dir (GoTo asks for one at the socket path)
// and returns its path.
func listen(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "terminal-sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Skipf("no Unix socket here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return p
}

func TestGoToGoneSocket(t *testing.T) {
	_, err := (&Tmux{}).GoTo(context.Background(), Where{TmuxPane: "%1", TmuxSocket: filepath.Join(t.TempDir(), "terminal-none")})
	if !errors.Is(err, ErrGone) {
		t.Errorf("GoTo at a socket that is not there: %v, want ErrGone", err)
	}
	if _, err := (&Tmux{}).GoTo(context.Background(), Where{Program: "vscode"}); !errors.Is(err, ErrNoTmux) {
		t.Errorf("GoTo without tmux: %v, want ErrNoTmux", err)
	}
}

// realTmux is a private tmux server for one test: its own socket in a
// temporary folder, no configuration file, killed at the end.
type realTmux struct {
	t    *testing.T
	sock string
}

func newRealTmux(t *testing.T) *realTmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir, err := os.MkdirTemp("", "terminal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	r := &realTmux{t: t, sock: filepath.Join(dir, "terminal-tmux")}
	if !ValidSocket(r.sock) {
		t.Skipf("the temporary folder's path %q is not one the hook would keep", r.sock)
	}
	r.run("-f", "/dev/null", "new-session", "-d", "-s", "terminal-a", "-x", "80", "-y", "24")
	t.Cleanup(func() { exec.Command("tmux", "-S", r.sock, "kill-server").Run() })
	return r
}

func (r *realTmux) run(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", r.sock}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=", "TMUX_PANE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// attach attaches a client to session on a pseudo-terminal (script(1)
// gives it one) until the test ends, and returns the client's name.
func (r *realTmux) attach(session string) string {
	r.t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		r.t.Skip("script(1) is not installed: no terminal to attach a tmux client on")
	}
	cmd := exec.Command("script", "-qfec", "tmux -S "+r.sock+" attach-session -t "+session, "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "TMUX=", "TMUX_PANE=")
	stdin, err := cmd.StdinPipe() // held open: the client stays attached
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	var name string
	waitfor.Until(r.t, "a tmux client attached", func() bool {
		out, _ := exec.Command("tmux", "-S", r.sock, "list-clients", "-F", "#{client_name}").Output()
		name = strings.TrimSpace(string(out))
		return name != ""
	})
	return name
}

// The real tmux: two sessions, the first with two windows; a client
// attached to the second is switched to a pane of the first, then moved
// within it without a switch; with no client, the pane is still made
// current for the next one.
func TestGoToRealTmux(t *testing.T) {
	r := newRealTmux(t)
	first := r.run("display-message", "-p", "-t", "terminal-a", "#{pane_id}")
	second := r.run("new-window", "-P", "-F", "#{pane_id}", "-t", "terminal-a")
	other := r.run("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "terminal-b")
	tm := &Tmux{}
	where := func(pane string) Where { return Where{TmuxPane: pane, TmuxSocket: r.sock} }

	// No client: the first window's pane becomes current in its session.
	res, err := tm.GoTo(context.Background(), where(first))
	if err != nil {
		t.Fatal(err)
	}
	if res.Client != "" {
		t.Errorf("no client is attached, yet GoTo says %+v", res)
	}
	if got := r.run("display-message", "-p", "-t", "terminal-a", "#{pane_id}"); got != first {
		t.Errorf("terminal-a's current pane: %s, want %s", got, first)
	}

	client := r.attach("terminal-b")
	if got := r.run("display-message", "-p", "-c", client, "#{pane_id}"); got != other {
		t.Fatalf("the client starts at %s, want %s", got, other)
	}
	res, err = tm.GoTo(context.Background(), where(second))
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Client: client, Switched: true}) {
		t.Errorf("GoTo = %+v, want %s switched", res, client)
	}
	if got := r.run("display-message", "-p", "-c", client, "#{pane_id}"); got != second {
		t.Errorf("the client shows %s, want %s", got, second)
	}

	// Already attached to terminal-a: only the window and pane move.
	res, err = tm.GoTo(context.Background(), where(first))
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Client: client}) {
		t.Errorf("GoTo = %+v, want %s not switched", res, client)
	}
	if got := r.run("display-message", "-p", "-c", client, "#{pane_id}"); got != first {
		t.Errorf("the client shows %s, want %s", got, first)
	}
	if got := r.run("list-clients", "-F", "#{session_name}"); got != "terminal-a" {
		t.Errorf("the client's session: %s, want terminal-a", got)
	}

	// A pane that was closed is gone.
	r.run("kill-pane", "-t", other)
	if _, err := tm.GoTo(context.Background(), where(other)); !errors.Is(err, ErrGone) {
		t.Errorf("GoTo a closed pane: %v, want ErrGone", err)
	}
}

// GoTos never queue: while one runs (its tmux blocked here), another is
// refused at once with ErrBusy, and once it is done the next one runs.
func TestGoToIsRefusedWhileOneRuns(t *testing.T) {
	sock := listen(t, t.TempDir())
	entered, release := make(chan struct{}), make(chan struct{})
	first := true
	tm := &Tmux{run: func(ctx context.Context, bin string, args []string) ([]byte, error) {
		if first {
			first = false
			close(entered)
			<-release
		}
		if args[2] == "list-panes" {
			return []byte("%1 $1\n"), nil
		}
		return nil, nil
	}}
	w := Where{TmuxPane: "%1", TmuxSocket: sock}
	done := make(chan error, 1)
	go func() { _, err := tm.GoTo(context.Background(), w); done <- err }()
	<-entered
	for range 30 {
		if _, err := tm.GoTo(context.Background(), w); !errors.Is(err, ErrBusy) {
			t.Fatalf("a GoTo while one runs: %v, want ErrBusy", err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := tm.GoTo(context.Background(), w); err != nil {
		t.Fatalf("a GoTo after the one that ran: %v", err)
	}
}
