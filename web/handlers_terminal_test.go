package web

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// A hook that says where its agent runs gives the row its door: tmux's Go
// to terminal, or a command to copy; a hostile header gives none, and the
// hook is applied all the same.
func TestHookWhereGivesTheRowADoor(t *testing.T) {
	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	hook := func(s, where string) {
		t.Helper()
		code, _ := postRaw(t, e, "/agents-notch/hooks/claude-code", claude(s, "SessionStart", `,"source":"startup"`), map[string]string{terminal.Header: where})
		if code != http.StatusOK {
			t.Fatalf("hook for %s: %d", s, code)
		}
	}
	hook("s-tmux", terminal.Where{TmuxPane: "%3", TmuxSocket: "/tmp/tmux-1000/default"}.Encode())
	hook("s-wez", terminal.Where{Program: "WezTerm", WeztermPane: "7"}.Encode())
	hook("s-evil", "tmux-pane=%253%3Bkill-server&tmux-socket=%2Ftmp%2Fdefault")
	hook("s-none", "")
	_, page := getPage(t, e, "/agents-notch/")
	for _, want := range []string{`data-door="tmux" data-command="tmux switch-client -t %3"`, `data-door="copy" data-command="wezterm cli activate-pane --pane-id 7"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the board lacks %s", want)
		}
	}
	if n := strings.Count(page, `class="act term"`); n != 2 {
		t.Errorf("%d terminal actions, want 2 (none for a hostile header or none at all)", n)
	}
	if !e.board.Has("s-evil") || !e.board.Has("s-none") {
		t.Error("a hook without a usable terminal was not applied")
	}

	// The route: no terminal known, not tmux, a server gone.
	for _, tc := range []struct {
		id   string
		want int
	}{
		{"s-none", http.StatusNotFound},
		{"nobody", http.StatusNotFound},
		{"s-wez", http.StatusConflict},
		{"s-tmux", http.StatusGone}, // no tmux server at that socket here
	} {
		if code, _ := postRaw(t, e, "/agents-notch/terminal", `{"sessionId":"`+tc.id+`"}`, nil); code != tc.want {
			t.Errorf("Go to terminal of %s: %d, want %d", tc.id, code, tc.want)
		}
	}

	// The row goes, and its door with it.
	e.board.Retire("s-tmux")
	if _, ok := e.board.Where("s-tmux"); ok {
		t.Error("a retired row's terminal is still kept")
	}
	if code, _ := postRaw(t, e, "/agents-notch/terminal", `{"sessionId":"s-tmux"}`, nil); code != http.StatusNotFound {
		t.Errorf("Go to terminal of a retired row: %d, want 404", code)
	}
}

// Through the route, a real tmux server (its own socket, killed at the
// end): with no client attached the pane is made current and the reply
// carries the command that attaches one there.
func TestGoToTerminalRealTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir, err := os.MkdirTemp("", "terminal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "terminal-web")
	if !terminal.ValidSocket(sock) {
		t.Skipf("temporary path %q is not one the hook would keep", sock)
	}
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
		cmd.Env = append(os.Environ(), "TMUX=", "TMUX_PANE=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("-f", "/dev/null", "new-session", "-d", "-s", "terminal-web", "-x", "80", "-y", "24")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	pane := tmux("display-message", "-p", "-t", "terminal-web", "#{pane_id}")
	tmux("new-window", "-t", "terminal-web")

	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	where := terminal.Where{TmuxPane: pane, TmuxSocket: sock}
	postRaw(t, e, "/agents-notch/hooks/claude-code", claude("s-real", "SessionStart", ""), map[string]string{terminal.Header: where.Encode()})
	code, body := postRaw(t, e, "/agents-notch/terminal", `{"sessionId":"s-real"}`, nil)
	var r terminalReply
	if code != http.StatusOK || json.Unmarshal([]byte(body), &r) != nil || !r.OK || r.Attach != where.AttachCommand() {
		t.Fatalf("Go to terminal: %d %s", code, body)
	}
	if got := tmux("display-message", "-p", "-t", "terminal-web", "#{pane_id}"); got != pane {
		t.Errorf("the session's current pane is %s, want %s", got, pane)
	}
}

// While one Go to terminal runs (its tmux, a stand-in on PATH, holds it),
// another click is answered 429 with Retry-After at once, never queued on
// the tmux lock; the one that ran answers as usual.
func TestGoToTerminalBusyIs429(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux-sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix socket here: %v", err)
	}
	defer l.Close()
	if !terminal.ValidSocket(sock) {
		t.Skipf("the temporary folder's path %q is not one the hook would keep", sock)
	}
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	script := "#!/bin/sh\ncase \"$3\" in\nlist-panes)\n  touch " + dir + "/entered\n  while [ ! -e " + dir + "/release ]; do sleep 0.01; done\n  echo '%3 $1' ;;\nesac\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	e := newEnv(t, envOpts{approvals: host.ApprovalConfig{Off: true}})
	where := terminal.Where{TmuxPane: "%3", TmuxSocket: sock}.Encode()
	if code, _ := postRaw(t, e, "/agents-notch/hooks/claude-code", claude("s-busy", "SessionStart", `,"source":"startup"`), map[string]string{terminal.Header: where}); code != http.StatusOK {
		t.Fatalf("hook: %d", code)
	}
	first := make(chan int, 1)
	go func() {
		code, _ := postRaw(t, e, "/agents-notch/terminal", `{"sessionId":"s-busy"}`, nil)
		first <- code
	}()
	waitfor.Until(t, "the first Go to terminal to run tmux", func() bool {
		_, err := os.Stat(filepath.Join(dir, "entered"))
		return err == nil
	})
	for range 5 {
		req, _ := http.NewRequest("POST", e.base+"/agents-notch/terminal", strings.NewReader(`{"sessionId":"s-busy"}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("a click while one runs: %d Retry-After %q, want 429 and 1", res.StatusCode, res.Header.Get("Retry-After"))
		}
	}
	os.WriteFile(filepath.Join(dir, "release"), nil, 0o644)
	if code := <-first; code != http.StatusOK {
		t.Fatalf("the Go to terminal that ran: %d", code)
	}
}
