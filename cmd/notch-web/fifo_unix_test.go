//go:build unix

package main

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifoGuard bounds how long a host may take to start or stop in these
// tests: a guard against a hang, not a measure of speed (a loaded machine
// starts a host in a second or two).
const fifoGuard = 60 * time.Second

// fifoHost is a host started as a child process (TestMain) with its DSH
// home, what it printed, and its end.
type fifoHost struct {
	cmd    *exec.Cmd
	base   string // "" when it did not start
	stderr *syncBuffer
	exited chan error
}

// syncBuffer is a bytes.Buffer a child's stderr writes into while the
// test reads it.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func newSyncBuffer() *syncBuffer { s := &syncBuffer{mu: make(chan struct{}, 1)}; return s }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.String()
}

// startFifoHost starts a host in home and waits, within fifoGuard, until it
// prints its URL or ends.
func startFifoHost(t *testing.T, home string, args ...string) *fifoHost {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--addr", "127.0.0.1:0", "--dsh-home", home, "--log-level", "error"}, args...)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "NOTCH_WEB_RUN_ARGS="+strings.Join(args, "\x1f"), "NOTCH_WEB_TIMER_SLACK=off")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &fifoHost{cmd: cmd, stderr: newSyncBuffer(), exited: make(chan error, 1)}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		go func() { h.exited <- cmd.Wait() }()
	}()
	select {
	case l := <-line:
		h.base = strings.TrimSuffix(strings.TrimSpace(l), "/agents-notch/")
	case <-time.After(fifoGuard):
		t.Fatalf("the host neither started nor ended within %v; stderr:\n%s", fifoGuard, h.stderr)
	}
	return h
}

// stop sends SIGTERM and fails unless the host ends within fifoGuard.
func (h *fifoHost) stop(t *testing.T) {
	t.Helper()
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(fifoGuard):
		t.Fatalf("the host did not stop within %v of SIGTERM; stderr:\n%s", fifoGuard, h.stderr)
	}
}

// get fails unless url answers within fifoGuard, and returns its status.
func getWithin(t *testing.T, url string) int {
	t.Helper()
	c := &http.Client{Timeout: fifoGuard}
	res, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	res.Body.Close()
	return res.StatusCode
}

// A FIFO at any of the host's own paths never holds the host: it starts
// (or, for the one file it cannot start without reading — devices.json —
// refuses to, in one line naming the FIFO), answers, and stops on SIGTERM.
// Before, opening a FIFO for reading waited for a writer that never came:
// no URL, no line, SIGTERM ignored.
func TestAFIFOAtTheHostsPaths(t *testing.T) {
	for _, c := range []struct {
		path   string // under the DSH home
		refuse bool   // the host does not start, and says why in one line
	}{
		{"state/agents-notch/state.json", false},
		{"state/agents-notch/live.json", false},
		{"state/agents-notch/settings.json", false},
		{"state/agents-notch/devices.json", true},
		{"state/agents-notch/notify.json", false},
		{"state/agents-notch/vapid.json", false},
		{"state/agents-notch/push-subscriptions.json", false},
		{"state/agents-notch/history.db", false},
		{"state/session-finished/manual.json", false},
		{"cordis.patch.yml", false},
	} {
		t.Run(c.path, func(t *testing.T) {
			home := t.TempDir()
			fifo := filepath.Join(home, c.path)
			if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			h := startFifoHost(t, home)
			if c.refuse {
				if h.base != "" {
					t.Fatalf("the host started with a FIFO at %s", c.path)
				}
				select {
				case <-h.exited:
				case <-time.After(fifoGuard):
					t.Fatal("the host printed nothing and did not end")
				}
				lines := strings.Split(strings.TrimSpace(h.stderr.String()), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], fifo) || !strings.Contains(lines[0], "a FIFO") {
					t.Errorf("want one line naming %s and saying it is a FIFO; stderr:\n%s", fifo, h.stderr)
				}
				return
			}
			if h.base == "" {
				t.Fatalf("the host did not start; stderr:\n%s", h.stderr)
			}
			if s := getWithin(t, h.base+"/healthz"); s != 200 {
				t.Errorf("healthz: %d", s)
			}
			// The push key's route reads vapid.json: it answers (503, off),
			// never waits.
			getWithin(t, h.base+"/agents-notch/push/key")
			h.stop(t)
		})
	}
}

// A FIFO put at settings.json while the host runs: every later settings
// write answers (refused, naming it), and the host stops on SIGTERM.
func TestAFIFOAtSettingsWhileRunning(t *testing.T) {
	home := t.TempDir()
	h := startFifoHost(t, home)
	if h.base == "" {
		t.Fatalf("the host did not start; stderr:\n%s", h.stderr)
	}
	pane := filepath.Join(home, "state", "agents-notch", "settings.json")
	os.Remove(pane)
	if err := syscall.Mkfifo(pane, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	c := &http.Client{Timeout: fifoGuard}
	for _, body := range []string{`{"scale": 1.5}`, `{"scale": 1.2}`} {
		res, err := c.Post(h.base+"/agents-notch/settings", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("a settings write with a FIFO at settings.json: %v", err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Errorf("a settings write into a FIFO answered 200")
		}
	}
	if fi, err := os.Lstat(pane); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	h.stop(t)
}

// --follow a FIFO: the host starts, and follows the real file put there
// later.
func TestFollowAFIFO(t *testing.T) {
	dir := t.TempDir()
	followed := filepath.Join(dir, "state.json")
	if err := syscall.Mkfifo(followed, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	h := startFifoHost(t, t.TempDir(), "--follow", followed)
	if h.base == "" {
		t.Fatalf("the host did not start; stderr:\n%s", h.stderr)
	}
	doc := `{"schema":4,"plugin":"dsh-agents-notch/host","wallMs":` + jsonNow() + `,` +
		`"context":{"budget":1000},"settings":{},"summary":{"status":"working","working":1,"total":1},` +
		`"sessions":[{"id":"a","title":"the real one","status":"working","since":1,"identity":"teal"}]}`
	tmp := filepath.Join(dir, "next.json")
	if err := os.WriteFile(tmp, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, followed); err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: fifoGuard}
	waitUntil(t, func() bool {
		res, err := c.Get(h.base + "/agents-notch/state")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		return res.StatusCode == 200 && strings.Contains(b.String(), "the real one")
	})
	h.stop(t)
}

// notch-web doctor with a FIFO (or a directory) where the history file
// belongs says so at once, with its fix, as the host refuses it — before,
// its open waited for a writer that never came and the report never
// printed.
func TestDoctorHistoryNotARegularFile(t *testing.T) {
	for _, c := range []struct {
		name, want string
		make       func(path string) error
	}{
		{"a FIFO", "is a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"a directory", "is a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			path := historyPath(home)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := c.make(path); err != nil {
				t.Skipf("%s here: %v", c.name, err)
			}
			done := make(chan check, 1)
			go func() { done <- doctor{home: home}.history() }()
			var got check
			select {
			case got = <-done:
			case <-time.After(fifoGuard): // a guard, not the assertion
				t.Fatalf("the doctor's history check still waits on %s", c.name)
			}
			if got.state != "FAIL" || !strings.Contains(got.what, c.want) || !strings.Contains(got.fix, ".broken") {
				t.Errorf("history check: %+v, want FAIL saying it %s, with the fix", got, c.want)
			}
		})
	}
}
