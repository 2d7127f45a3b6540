package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notch-web/notch-web/state"

	"github.com/notch-web/notch-web/internal/waitfor"
)

// startRun starts the whole program on a free port and returns its base URL
// and a function that stops it and returns run's error.
func startRun(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	getenv := func(k string) string {
		if k == "DSH_HOME" {
			return home
		}
		return ""
	}
	go func() {
		done <- run(ctx, append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, args...), getenv, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL printed: %v (run: %v)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	base := localBase(line)
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after its context ended")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return base, stop
}

func TestRunServesAndShutsDown(t *testing.T) {
	base, stop := startRun(t)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line of stdout should be the URL, got %q", base)
	}
	res, err := http.Get(base + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", res, err)
	}
	res.Body.Close()
	// An open stream must not hold the shutdown up.
	req, _ := http.NewRequest("GET", base+"/agents-notch/stream?page=board", nil)
	sres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sres.Body.Close()
	if err := stop(); err != nil {
		t.Fatalf("run returned %v after a clean shutdown", err)
	}
	if _, err := io.ReadAll(sres.Body); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("stream ended with %v", err)
	}
}

func TestRunWritesStateJSONHeartbeat(t *testing.T) {
	home := t.TempDir()
	base, _ := startRun(t, "--dsh-home", home)
	path := filepath.Join(home, "state", "agents-notch", "state.json")
	first := waitDoc(t, path, func(state.Document) bool { return true })
	// The heartbeat: wallMs moves on without any change.
	waitDoc(t, path, func(d state.Document) bool { return d.WallMs > first.WallMs })
	// An event is in state.json at once.
	res, err := http.Post(base+"/agents-notch/events", "application/json",
		strings.NewReader(`{"type":"session.opened","session":"s1","cwd":"/home/me/argon"}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("POST events: %v %v", res.Status, err)
	}
	res.Body.Close()
	d := waitDoc(t, path, func(d state.Document) bool { return len(d.Sessions) == 1 })
	if d.Sessions[0].Project != "argon" || d.Summary.Total != 1 {
		t.Fatalf("state.json row = %+v, summary %+v", d.Sessions[0], d.Summary)
	}
	// A settings change is in state.json at once too.
	res, err = http.Post(base+"/agents-notch/settings", "application/json", strings.NewReader(`{"scale": 1.5}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("POST settings: %v %v", res.Status, err)
	}
	res.Body.Close()
	waitDoc(t, path, func(d state.Document) bool { return d.Settings.Scale == 1.5 })
}

// A host's open tab hears a heartbeat while nothing happens: in host mode
// the streams' heartbeat rides on state.json's beat (web/fanout's Clock,
// fed by the writer), so this checks that the two are wired together.
func TestRunStreamHeartbeatOnTheBeat(t *testing.T) {
	base, _ := startRun(t)
	res, err := http.Get(base + "/agents-notch/stream?page=board")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("stream: %v %v", res, err)
	}
	defer res.Body.Close()
	beats := make(chan struct{}, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"_hb":true`) {
				beats <- struct{}{}
			}
		}
	}()
	for i := range 2 {
		select {
		case <-beats:
		case <-time.After(waitfor.Patience):
			t.Fatalf("heartbeat %d of an idle stream did not come", i+1)
		}
	}
}

func TestRunFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--finished-url", "not a url"},
		{"--open-url", "ftp://x/y"},
		{"--harness-origin", "http://127.0.0.1:3000/path"},
		{"--follow", "x.json", "--demo"},
		{"--log-level", "loud"},
		{"stray"},
	} {
		err := run(context.Background(), args, func(string) string { return t.TempDir() }, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("run %v: want an error", args)
		}
	}
}

func waitDoc(t *testing.T, path string, ok func(state.Document) bool) state.Document {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			var d state.Document
			if json.Unmarshal(data, &d) == nil && ok(d) {
				return d
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("state.json at %s never reached the expected state", path)
	return state.Document{}
}

func TestRunRetiresRowsMarkedInManualJSON(t *testing.T) {
	home := t.TempDir()
	base, _ := startRun(t, "--dsh-home", home)
	res, err := http.Post(base+"/agents-notch/events", "application/json", strings.NewReader(
		`{"type":"session.opened","session":"keep"}`+"\n"+`{"type":"session.opened","session":"gone"}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("POST events: %v %v", res, err)
	}
	res.Body.Close()
	path := filepath.Join(home, "state", "agents-notch", "state.json")
	waitDoc(t, path, func(d state.Document) bool { return len(d.Sessions) == 2 })
	// The window closes a row out by writing manual.json; one odd entry
	// must not hide the good mark.
	manual := filepath.Join(home, "state", "session-finished", "manual.json")
	os.MkdirAll(filepath.Dir(manual), 0o755)
	os.WriteFile(manual, []byte(`{"gone":{"state":"finished","at":5},"odd":7}`), 0o644)
	d := waitDoc(t, path, func(d state.Document) bool { return len(d.Sessions) == 1 })
	if d.Sessions[0].ID != "keep" {
		t.Fatalf("the wrong row retired: %+v", d.Sessions)
	}
}

// A followed document's hotAt out of (0, 1] is published and drawn as the
// same default: the board never draws a threshold state.json does not say.
func TestFollowedHotAtIsPublishedAsDrawn(t *testing.T) {
	dir := t.TempDir()
	followed := filepath.Join(dir, "state.json")
	doc := `{"schema":4,"plugin":"dsh-agents-notch/host","wallMs":` + jsonNow() + `,` +
		`"context":{"budget":1000,"hotAt":1.5},"settings":{},"summary":{"status":"working","working":1,"total":1},` +
		`"sessions":[{"id":"a","title":"hot","status":"working","since":1,"identity":"teal","contextTokens":600}]}`
	if err := os.WriteFile(followed, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	base, _ := startRun(t, "--follow", followed)
	var got state.Document
	waitUntil(t, func() bool {
		res, err := http.Get(base + "/agents-notch/state")
		if err != nil || res.StatusCode != 200 {
			return false
		}
		defer res.Body.Close()
		return json.NewDecoder(res.Body).Decode(&got) == nil && len(got.Sessions) == 1
	})
	if got.Context.HotAt != state.DefaultHotAt {
		t.Errorf("published hotAt %v, want %v (the value the board draws)", got.Context.HotAt, state.DefaultHotAt)
	}
	res, err := http.Get(base + "/agents-notch/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `class="ctx" data-hot`) {
		t.Error("600 of 1,000 tokens at hotAt 0.5 must draw the amber bar")
	}
}

func jsonNow() string { return strconv.FormatInt(time.Now().UnixMilli(), 10) }

// waitUntil is waitfor.Until, the tests' one way to wait.
func waitUntil(t *testing.T, cond func() bool) { waitfor.Until(t, "the condition", cond) }

// TestMain lets a test run the whole program as a child process: with
// NOTCH_WEB_RUN_ARGS set, the test binary is notch-web.
func TestMain(m *testing.M) {
	if v := os.Getenv("NOTCH_WEB_RUN_ARGS"); v != "" {
		args := strings.Split(v, "\x1f")
		relaxTimers(args)
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := run(ctx, args, os.Getenv, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild runs notch-web as a child process (this test binary, see
// TestMain) under a shell line that may set limits first, and returns its
// base URL.
func startChild(t *testing.T, shellPrefix string, args ...string) string {
	t.Helper()
	base, _ := startChildIn(t, t.TempDir(), shellPrefix, args...)
	return base
}

// startChildIn is startChild with a DSH home of the test's choosing, and the
// child's process.
func startChildIn(t *testing.T, home, shellPrefix string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--addr", "127.0.0.1:0", "--dsh-home", home, "--log-level", "error"}, args...)
	cmd := exec.Command("sh", "-c", shellPrefix+` exec "$0"`, self)
	cmd.Env = append(os.Environ(), "NOTCH_WEB_RUN_ARGS="+strings.Join(args, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child printed no URL: %v", err)
	}
	return strings.TrimSuffix(strings.TrimSpace(line), "/agents-notch/"), cmd
}

// With few file descriptors, streams are admitted up to a cap below the
// limit and refused beyond it with 503 and Retry-After, and the health
// check and settings writes keep answering.
func TestStreamsCappedByTheDescriptorLimit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no descriptor limit on Windows")
	}
	base := startChild(t, "ulimit -n 256 &&")
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 400}}
	var refused, admitted int
	var bodies []io.Closer
	defer func() {
		for _, b := range bodies {
			b.Close()
		}
	}()
	for range 300 {
		res, err := client.Get(base + "/agents-notch/stream?page=board")
		if err != nil {
			t.Fatalf("opening a stream: %v", err)
		}
		switch res.StatusCode {
		case 200:
			admitted++
			bodies = append(bodies, res.Body)
		case http.StatusServiceUnavailable:
			refused++
			if res.Header.Get("Retry-After") == "" {
				t.Fatal("a 503 without Retry-After")
			}
			res.Body.Close()
		default:
			t.Fatalf("stream answered %d", res.StatusCode)
		}
	}
	if refused == 0 || admitted == 0 || admitted > 256 {
		t.Fatalf("admitted %d, refused %d: want a cap below the limit of 256", admitted, refused)
	}
	quick := &http.Client{Timeout: 2 * time.Second}
	res, err := quick.Get(base + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz with the streams full: %v %v", res, err)
	}
	res.Body.Close()
	res, err = quick.Post(base+"/agents-notch/settings", "application/json", strings.NewReader(`{"scale":1.5}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("a settings write with the streams full: %v %v", res, err)
	}
	res.Body.Close()
	t.Logf("limit 256: admitted %d streams, refused %d", admitted, refused)
}

// runOnce runs the program with args and a fresh DSH home, and returns
// run's error with what it wrote to stdout and stderr (not a terminal).
func runOnce(t *testing.T, home string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runOnceEnv(t, false, env("DSH_HOME", home), args...)
}

// tty is a stderr that says it is a terminal (see isTerminal).
type tty struct{ strings.Builder }

func (*tty) IsTerminal() bool { return true }

// runOnceEnv is runOnce with an environment of the test's choosing, and a
// stderr that is a terminal or not.
func runOnceEnv(t *testing.T, terminal bool, getenv func(string) string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out strings.Builder
	var errb interface {
		io.Writer
		String() string
	} = new(strings.Builder)
	if terminal {
		errb = new(tty)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a start-up error must come before serving; a good start stops at once
	err = run(ctx, args, getenv, &out, errb)
	return out.String(), errb.String(), err
}

// A start-up error is said once, naming what is wrong and what would be
// right: on a terminal as one plain line; to anything else (a supervisor's
// pipe, a log file) as the standard fatal ERROR record, with the same
// words in its message — never both, never twice.
func TestStartupErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	fileHome := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(fileHome, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-window")
	taken := busy.Addr().String()
	_, takenPort, _ := net.SplitHostPort(taken)
	next, _ := strconv.Atoi(takenPort)
	for _, tc := range []struct {
		name string
		home string
		env  []string
		args []string
		want string
	}{
		{"port taken", t.TempDir(), nil, []string{"--addr", taken},
			"cannot listen on " + taken + ": the address is in use (another notch-web?); --addr 127.0.0.1:0 picks a free port"},
		{"port taken, under make", t.TempDir(), []string{"MAKELEVEL", "1"}, []string{"--addr", taken},
			"cannot listen on " + taken + ": the address is in use (another notch-web?); ADDR=127.0.0.1:" + strconv.Itoa(next+1) + " make run listens on another port"},
		{"a bare port", t.TempDir(), nil, []string{"--addr", "7341"}, `--addr "7341": want HOST:PORT, e.g. 127.0.0.1:7341`},
		{"an unknown flag", t.TempDir(), nil, []string{"--colour"}, "flag provided but not defined: -colour (notch-web -h lists the flags)"},
		{"a bad log level", t.TempDir(), nil, []string{"--log-level", "loud"}, `--log-level "loud": want debug, info, warning or error`},
		{"an unwritable DSH home", fileHome, nil, []string{"--addr", "127.0.0.1:0"}, "cannot create " + filepath.Join(fileHome, "state")},
		{"a window that does not exist", t.TempDir(), nil, []string{"--addr", "127.0.0.1:0", "--window", missing}, missing},
	} {
		getenv := env(append([]string{"DSH_HOME", tc.home}, tc.env...)...)
		t.Run(tc.name+", on a terminal", func(t *testing.T) {
			stdout, stderr, err := runOnceEnv(t, true, getenv, tc.args...)
			if err == nil {
				t.Fatalf("run started; want a start-up error saying %q", tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q: the URL line must not be printed before a start-up error", stdout)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines, want one plain line:\n%s", len(lines), stderr)
			}
			if !strings.HasPrefix(lines[0], "notch-web: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("plain line %q, want \"notch-web: …%s…\"", lines[0], tc.want)
			}
		})
		t.Run(tc.name+", to a log reader", func(t *testing.T) {
			stdout, stderr, err := runOnceEnv(t, false, getenv, tc.args...)
			if err == nil {
				t.Fatalf("run started; want a start-up error saying %q", tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q: the URL line must not be printed before a start-up error", stdout)
			}
			checkFatalRecord(t, stderr, "StartupError", tc.want)
		})
	}
	// -h is not an error: the usage goes to stdout.
	if stdout, _, err := runOnce(t, t.TempDir(), "-h"); err != nil || !strings.Contains(stdout, "--addr") && !strings.Contains(stdout, "-addr") {
		t.Errorf("-h: %v, stdout %q", err, stdout)
	}
}

// checkFatalRecord fails unless log holds exactly one fatal record — the
// standard one: level ERROR, fatal true, the host's log_type, a message
// saying want, error.name name — and no plain line.
func checkFatalRecord(t *testing.T, log, name, want string) {
	t.Helper()
	fatal := 0
	for line := range strings.Lines(log) {
		var rec struct {
			Timestamp string `json:"timestamp"`
			Level     string `json:"level"`
			LogType   string `json:"log_type"`
			Message   string `json:"message"`
			Fatal     *bool  `json:"fatal"`
			Error     struct{ Name, Message string }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a line that is not a record: %q", line)
			continue
		}
		if rec.Fatal == nil {
			continue
		}
		fatal++
		if rec.Level != "ERROR" || !*rec.Fatal || rec.LogType != "agents-notch.host.v1" || rec.Timestamp == "" ||
			!strings.Contains(rec.Message, want) || rec.Error.Name != name || rec.Error.Message != rec.Message {
			t.Errorf("fatal record %s\nwant level ERROR, fatal true, log_type agents-notch.host.v1, error.name %s, a message saying %q", line, name, want)
		}
		if strings.HasPrefix(rec.Message, "notch-web:") {
			t.Errorf("the record's message carries the plain line's prefix: %q", rec.Message)
		}
	}
	if fatal != 1 {
		t.Errorf("%d fatal records, want exactly one:\n%s", fatal, log)
	}
}

// A host killed outright (kill -9) and started again carries its sessions
// on: the rows, their colours and counters, and the next event for a
// running session is applied, not refused.
func TestRestartAfterKillLosesNoSession(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no kill -9 on Windows")
	}
	home := t.TempDir()
	base, cmd := startChildIn(t, home, "")
	post := func(base, body string) int {
		res, err := http.Post(base+"/agents-notch/events", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if status := post(base, `{"type":"session.opened","session":"s1","title":"Survivor","cwd":"/src/argon"}
{"type":"session.opened","session":"s2"}
{"type":"turn.started","session":"s1"}
{"type":"tool.started","session":"s1","tool":"bash"}
{"type":"approval.requested","session":"s1","tool":"pwsh","reason":"why"}`); status != 200 {
		t.Fatalf("events: %d", status)
	}
	statePath := filepath.Join(home, "state", "agents-notch", "state.json")
	var before state.Document
	waitUntil(t, func() bool {
		d, err := state.ReadFile(statePath)
		before = d
		return err == nil && len(d.Sessions) == 2
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	base, _ = startChildIn(t, home, "")
	var after state.Document
	waitUntil(t, func() bool {
		res, err := http.Get(base + "/agents-notch/state")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		return json.NewDecoder(res.Body).Decode(&after) == nil && len(after.Sessions) == 2
	})
	for i, s := range after.Sessions {
		b := before.Sessions[i]
		if s.ID != b.ID || s.Status != b.Status || s.Since != b.Since || s.Identity != b.Identity || s.Steps != b.Steps || s.Title != b.Title {
			t.Errorf("row %d after the restart %+v, before %+v", i, s, b)
		}
	}
	if status := post(base, `{"type":"approval.resolved","session":"s1","outcome":"allowed-once"}`); status != 200 {
		t.Errorf("the next event for a restored session: %d, want 200", status)
	}
}

// The command line a person meets first: --version, help and its topics,
// and a missing default patch file said once, as INFO.
func TestVersionAndHelp(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		wantOut    string
		wantErr    string
		wantFailed bool
	}{
		{args: []string{"--version"}, wantOut: "notch-web "},
		{args: []string{"version"}, wantOut: "notch-web "},
		{args: []string{"help"}, wantOut: "notch-web hooks install|uninstall|status"},
		{args: []string{"help", "hooks"}, wantOut: "-dry-run"},
		{args: []string{"help", "hook"}, wantOut: "usage: notch-web hook <agent>"},
		{args: []string{"help", "colours"}, wantErr: `notch-web: help: no command "colours" (notch-web help lists the commands: run, hook,`, wantFailed: true},
	} {
		var out, errb strings.Builder
		err := run(context.Background(), tc.args, func(string) string { return "" }, &out, &errb)
		if (err != nil) != tc.wantFailed {
			t.Errorf("%v: err %v, want failed %v", tc.args, err, tc.wantFailed)
		}
		if !strings.Contains(out.String(), tc.wantOut) {
			t.Errorf("%v: stdout %q, want %q in it", tc.args, out.String(), tc.wantOut)
		}
		if tc.wantErr != "" && !strings.HasPrefix(errb.String(), tc.wantErr) {
			t.Errorf("%v: stderr %q, want it to start %q", tc.args, errb.String(), tc.wantErr)
		}
		if tc.wantErr == "" && errb.Len() > 0 {
			t.Errorf("%v: stderr %q, want nothing", tc.args, errb.String())
		}
	}
}

func TestVersionOf(t *testing.T) {
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1a189c8aaaabbbbccccdddd"}, {Key: "vcs.modified", Value: "true"}}}, "devel-1a189c8aaaab-dirty"},
	} {
		if got := versionOf(&tc.bi); got != tc.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tc.bi.Main, got, tc.want)
		}
	}
}

// With no patch file at the default place, one INFO record says the
// built-in defaults are in use; a start with the file says nothing of it.
func TestMissingDefaultPatchIsOneInfoLine(t *testing.T) {
	const said = "the built-in defaults are in use"
	home := t.TempDir()
	_, stderr, err := runOnce(t, home, "--addr", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr, said); n != 1 {
		t.Errorf("said %d times, want once:\n%s", n, stderr)
	}
	for line := range strings.Lines(stderr) {
		if strings.Contains(line, said) && !strings.Contains(line, `"level":"INFO"`) {
			t.Errorf("not an INFO record: %s", line)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "cordis.patch.yml"), []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, _ = runOnce(t, home, "--addr", "127.0.0.1:0"); strings.Contains(stderr, said) {
		t.Errorf("said with the file there:\n%s", stderr)
	}
}

// TestStartNowIsAnHonest429: the pane's Start now, POSTed in a loop, spawns
// one window and then answers 429 with Retry-After (issue 19: a local loop
// spawned 270 windows in 5 s).
func TestStartNowIsAnHonest429(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script as the window")
	}
	win := filepath.Join(t.TempDir(), "window.sh")
	if err := os.WriteFile(win, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base, _ := startRun(t, "--window", win)
	post := func() *http.Response {
		res, err := http.Post(base+"/agents-notch/window", "application/json", strings.NewReader(`{"start":true}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	spawns := func() int {
		res, err := http.Get(base + "/healthz")
		if err != nil {
			return -1
		}
		defer res.Body.Close()
		var h struct{ Window struct{ Spawns int } }
		if json.NewDecoder(res.Body).Decode(&h) != nil {
			return -1
		}
		return h.Window.Spawns
	}
	waitUntil(t, func() bool { return spawns() >= 1 })
	// A second of Start now in a loop, the window dying at once each time:
	// one more window, and honest refusals.
	refused := 0
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		res := post()
		switch res.StatusCode {
		case http.StatusTooManyRequests:
			refused++
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 5 {
				t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
			}
		case http.StatusOK:
		default:
			t.Fatalf("Start now: %d", res.StatusCode)
		}
	}
	if n := spawns(); n > 2 || refused == 0 {
		t.Errorf("a second of Start now: %d windows spawned, %d requests refused; want at most 2 and refusals", n, refused)
	}
}

// localBase is the base URL this machine's tests reach the host at, from
// the first line of its stdout: an https line (--tls-cert) names the
// certificate's host, so the same port's plain http on loopback.
func localBase(line string) string {
	base := strings.TrimSuffix(strings.TrimSpace(line), "/agents-notch/")
	if rest, ok := strings.CutPrefix(base, "https://"); ok {
		return "http://127.0.0.1:" + rest[strings.LastIndexByte(rest, ':')+1:]
	}
	return base
}
