//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
	"github.com/notch-web/notch-web/state"
)

// The contract suite plays the window. A real notch-web (this test binary
// as a child process, see TestMain) is started with --window, and spawns
// testdata/seedwindow: a program that does with the files exactly what the
// frozen contract's window does (its doc says what). Every clause the two
// halves share is then played end to end, once in the default setup
// (finishedUrl null: the ✕ goes through manual.json) and once with
// --finished-url (the ✕ POSTs to the harness):
//
//   - the window finds the DSH home notch-web was given (--dsh-home), not
//     the one in notch-web's own environment;
//   - the ✕ closes the row out;
//   - the heartbeat: while notch-web writes, wallMs is fresh; when notch-web
//     is wedged (SIGSTOP) the window shows the unknown state, and the rows
//     come back when it runs again;
//   - the crash: the line the window appends to window-crash.log is quoted
//     in window-exit, and /healthz says it crashed;
//   - the quit: quit.json holds the window away for an hour (window-quit,
//     /healthz "quit"), and nothing respawns it.
func TestContractPlayedByTheWindow(t *testing.T) {
	bin := buildSeedWindow(t)
	for _, setup := range []string{"finishedUrl null", "--finished-url"} {
		t.Run(setup, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "the-home")
			decoy := t.TempDir() // notch-web's own DSH_HOME and HOME: the window must not use them
			var args []string
			var harness *standIn
			if setup == "--finished-url" {
				harness = newStandIn(t)
				args = append(args, "--finished-url", harness.srv.URL+"/session-finished/api/status")
			}
			h := startContractHost(t, home, decoy, append(args, "--window", bin)...)
			if harness != nil {
				harness.host = h.base
			}
			statePath := filepath.Join(home, "state", "agents-notch", "state.json")
			dir := filepath.Dir(statePath)
			w := &seedWindow{t: t, dir: dir}

			// The window finds the DSH home it was given.
			v := w.waitView("a live tab", func(v seedView) bool { return v.Tab == "live" })
			if v.DSHHome != home {
				t.Fatalf("the window's DSH home is %q, want %q (--dsh-home)", v.DSHHome, home)
			}

			// The ✕.
			postEvents(t, h.base, `{"type":"session.opened","session":"s1","cwd":"/src/argon"}`,
				`{"type":"turn.ended","session":"s1","outcome":"completed"}`,
				`{"type":"session.opened","session":"s2"}`)
			w.waitView("both rows", func(v seedView) bool { return slices.Contains(v.IDs, "s1") && slices.Contains(v.IDs, "s2") })
			w.command("close s1")
			w.waitView("s1 gone from the window", func(v seedView) bool {
				return v.Tab == "live" && !slices.Contains(v.IDs, "s1") && slices.Contains(v.IDs, "s2")
			})
			manual := filepath.Join(home, "state", "session-finished", "manual.json")
			if harness == nil {
				if w.view().Closed[0] != "wrote s1" {
					t.Errorf("the ✕: %q", w.view().Closed)
				}
				marks, _ := state.ReadMarks(manual)
				if marks["s1"].State != state.MarkFinished {
					t.Errorf("manual.json under --dsh-home holds %v", marks)
				}
			} else {
				if got := harness.bodies(); len(got) != 1 || got[0] != `{"sessionId":"s1","state":"finished"}` {
					t.Errorf("the harness's close-out route got %q", got)
				}
				if _, err := os.Stat(manual); err == nil {
					t.Error("with a finishedUrl the ✕ wrote manual.json")
				}
			}
			for _, stray := range []string{filepath.Join(decoy, "state"), filepath.Join(decoy, ".dsh")} {
				if _, err := os.Stat(stray); err == nil {
					t.Errorf("something wrote under notch-web's own environment's home: %s", stray)
				}
			}

			// The heartbeat: wedged, the window shows the unknown state
			// (not the rows as current); running again, the rows are back.
			if err := h.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			w.waitView("the unknown state", func(v seedView) bool { return v.Tab == "unknown" && len(v.IDs) == 0 })
			if err := h.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			w.waitView("the rows back", func(v seedView) bool { return v.Tab == "live" && slices.Contains(v.IDs, "s2") })

			// The crash.
			first := w.view().PID
			w.command("crash the tab's brush was nil")
			rec := h.waitRecord("window-exit")
			if c, _ := rec.Data["crash"].(string); !strings.Contains(c, "Unhandled exception: the tab's brush was nil") {
				t.Errorf("window-exit quotes %q, want the crash log's line", rec.Data["crash"])
			}
			waitfor.Until(t, "/healthz to say the window crashed", func() bool {
				st := h.window()
				return st.Crashed && st.State == "waiting" && st.LastExit == "exit code 2"
			})

			// Start now brings a new window, which the human then quits.
			postJSON(t, h.base+"/agents-notch/window", `{"start":true}`)
			w.waitView("a new window", func(v seedView) bool { return v.PID != first && v.Tab == "live" })
			w.command("quit")
			quit := h.waitRecord("window-quit")
			waitfor.Until(t, "/healthz to say the window was quit", func() bool { return h.window().State == "quit" })
			if st := h.window(); st.Next == nil || st.Since == nil || *st.Next-*st.Since != 3600_000 {
				t.Errorf("after the quit /healthz says %+v, want quit for an hour from the quit's wallMs", st)
			}
			var q struct{ WallMs int64 }
			if data, err := os.ReadFile(filepath.Join(dir, "quit.json")); err != nil || json.Unmarshal(data, &q) != nil || q.WallMs != num(quit.Data["wallMs"]) {
				t.Errorf("quit.json %+v, the record %v", q, quit.Data)
			}
			if n := h.window().Spawns; n != 2 {
				t.Errorf("%d windows spawned, want 2 (the first, Start now's)", n)
			}
		})
	}
}

// buildSeedWindow builds testdata/seedwindow into the test's directory.
func buildSeedWindow(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "AgentsNotch")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/seedwindow").CombinedOutput(); err != nil {
		t.Fatalf("building the seed window: %v\n%s", err, out)
	}
	return bin
}

// contractHost is a notch-web child process and its log.
type contractHost struct {
	t    *testing.T
	base string
	cmd  *exec.Cmd
	log  *syncbuf.Buffer
}

// startContractHost runs notch-web (this test binary) with --dsh-home home
// in an environment whose DSH_HOME and HOME are decoy.
func startContractHost(t *testing.T, home, decoy string, args ...string) *contractHost {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--addr", "127.0.0.1:0", "--dsh-home", home, "--log-level", "info"}, args...)
	cmd := exec.Command(self)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DSH_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "DSH_HOME="+decoy, "HOME="+decoy, "NOTCH_WEB_RUN_ARGS="+strings.Join(args, "\x1f"))
	h := &contractHost{t: t, cmd: cmd, log: &syncbuf.Buffer{}}
	cmd.Stderr = h.log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("notch-web's log:\n%s", h.log.String())
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("notch-web printed no URL: %v\n%s", err, h.log.String())
	}
	go io.Copy(io.Discard, out)
	h.base = strings.TrimSuffix(strings.TrimSpace(line), "/agents-notch/")
	return h
}

// logRecord is one line of notch-web's log.
type logRecord struct {
	Message string         `json:"message"`
	Level   string         `json:"level"`
	Data    map[string]any `json:"data"`
}

// waitRecord waits for the first record with message msg.
func (h *contractHost) waitRecord(msg string) logRecord {
	h.t.Helper()
	var got logRecord
	waitfor.Until(h.t, "the "+msg+" record", func() bool {
		for line := range strings.Lines(h.log.String()) {
			var r logRecord
			if json.Unmarshal([]byte(line), &r) == nil && r.Message == msg {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

// windowStatus is /healthz's window.
type windowStatus struct {
	State    string `json:"state"`
	Since    *int64 `json:"since"`
	Next     *int64 `json:"next"`
	LastExit string `json:"lastExit"`
	Crashed  bool   `json:"crashed"`
	Spawns   int    `json:"spawns"`
}

func (h *contractHost) window() windowStatus {
	h.t.Helper()
	res, err := http.Get(h.base + "/healthz")
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Window windowStatus }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		h.t.Fatal(err)
	}
	return body.Window
}

// seedView is seedwindow's view file.
type seedView struct {
	PID     int      `json:"pid"`
	DSHHome string   `json:"dshHome"`
	Tab     string   `json:"tab"`
	Status  string   `json:"status"`
	IDs     []string `json:"ids"`
	Titles  []string `json:"titles"`
	Closed  []string `json:"closed"`
}

// seedWindow reads and steers the window beside the state file in dir.
type seedWindow struct {
	t   *testing.T
	dir string
}

func (w *seedWindow) view() seedView {
	var v seedView
	data, err := os.ReadFile(filepath.Join(w.dir, "seedwindow.view.json"))
	if err == nil {
		_ = json.Unmarshal(data, &v)
	}
	return v
}

func (w *seedWindow) waitView(what string, cond func(seedView) bool) seedView {
	w.t.Helper()
	var v seedView
	waitfor.Until(w.t, "the window to show "+what, func() bool { v = w.view(); return cond(v) })
	return v
}

// command is the human's hand on the window; it waits until the window
// took it.
func (w *seedWindow) command(c string) {
	w.t.Helper()
	path := filepath.Join(w.dir, "seedwindow.cmd")
	if err := os.WriteFile(path+".tmp", []byte(c), 0o644); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		w.t.Fatal(err)
	}
}

// standIn is the harness behind --finished-url: it records each close-out
// and, as a harness does, tells notch-web the session finished.
type standIn struct {
	srv  *httptest.Server
	host string
	mu   sync.Mutex
	got  []string
}

func newStandIn(t *testing.T) *standIn {
	s := &standIn{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, string(bytes.TrimSpace(body)))
		s.mu.Unlock()
		var m struct{ SessionID string }
		if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &m) != nil {
			http.Error(w, "want JSON", http.StatusBadRequest)
			return
		}
		ev, _ := json.Marshal(map[string]string{"type": "session.finished", "session": m.SessionID})
		res, err := http.Post(s.host+"/agents-notch/events", "application/json", bytes.NewReader(ev))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		res.Body.Close()
		w.WriteHeader(res.StatusCode)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *standIn) bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

func postEvents(t *testing.T, base string, lines ...string) {
	t.Helper()
	postJSON(t, base+"/agents-notch/events", strings.Join(lines, "\n"))
}

func postJSON(t *testing.T, url, body string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", url, res.StatusCode, data)
	}
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}
