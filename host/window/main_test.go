package window

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notch-web/notch-web/internal/logx"

	"github.com/notch-web/notch-web/internal/syncbuf"
	"github.com/notch-web/notch-web/internal/waitfor"
)

// fakeWindow is the test helper program (testdata/fakewindow), built once.
var fakeWindow string

// hostEnv, when set, makes the test binary a host instead: it supervises
// the fake window at that path (see runAsHost).
const hostEnv = "NOTCH_WEB_WINDOW_TEST_HOST"

// init keeps the main goroutine on the main thread, which the runtime never
// ends; every other goroutine, the supervisor's included, then runs on
// threads that can end, as in a host whose main thread is busy serving.
// Without it a window forked from the main thread would make
// TestWindowOutlivesEndedThreads pass for the wrong reason.
func init() { runtime.LockOSThread() }

func TestMain(m *testing.M) {
	switch runtime.GOOS {
	case "plan9", "js", "wasip1":
		fmt.Println("skipping: the supervisor's tests need processes and signals")
		os.Exit(0)
	}
	if os.Getenv(hostEnv) != "" {
		runAsHost()
		return
	}
	dir, err := os.MkdirTemp("", "fakewindow-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeWindow = filepath.Join(dir, "fakewindow")
	if runtime.GOOS == "windows" {
		fakeWindow += ".exe"
	}
	build := exec.Command("go", "build", "-o", fakeWindow, "./testdata/fakewindow")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the fake window: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runAsHost is a whole host in miniature: a supervisor on the real clock
// keeping the window at $NOTCH_WEB_WINDOW_TEST_HOST alive beside the state
// file at $NOTCH_WEB_WINDOW_TEST_STATE, until the process is killed.
func runAsHost() {
	s := New(Config{
		Path:      os.Getenv(hostEnv),
		StatePath: os.Getenv("NOTCH_WEB_WINDOW_TEST_STATE"),
		Log:       logx.New(os.Stderr, slog.LevelDebug),
	})
	s.Run(context.Background(), nil)
	os.Exit(3) // Run returned: it should not have
}

// fakeClock is a Clock whose time moves only when the test says: Advance
// moves the monotonic time (and the wall clock with it) and fires the
// timers due; Jump moves only the wall clock, as a user setting it would.
// With creep set, every reading also moves the time on by creep (timers
// fire at the next Advance), as a real clock moves between two readings.
type fakeClock struct {
	mu      sync.Mutex
	base    time.Time
	mono    time.Duration
	skew    time.Duration
	creep   time.Duration
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Duration
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{base: time.Date(2026, 10, 22, 10, 42, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mono += c.creep
	return c.base.Add(c.mono + c.skew)
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.base.Add(c.mono + c.skew)
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: c.mono + d, ch: ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mono += d
	now := c.base.Add(c.mono + c.skew)
	c.waiters = slices.DeleteFunc(c.waiters, func(w fakeWaiter) bool {
		if w.at <= c.mono {
			w.ch <- now
			return true
		}
		return false
	})
}

func (c *fakeClock) Jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skew += d
}

// logBuf collects log lines from many goroutines.
type logBuf struct{ syncbuf.Buffer }

type record struct {
	Level   string         `json:"level"`
	LogType string         `json:"log_type"`
	Message string         `json:"message"`
	Error   map[string]any `json:"error"`
	Data    map[string]any `json:"data"`
}

func (b *logBuf) text() string { return b.String() }

func (b *logBuf) records(t testing.TB, message string) []record {
	t.Helper()
	var out []record
	for line := range strings.Lines(b.text()) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, line)
		}
		if r.Message == message {
			out = append(out, r)
		}
	}
	return out
}

// plan is fakewindow.json: what the next window started does.
type plan struct {
	Mode      string   `json:"mode"`
	Code      int      `json:"code,omitempty"`
	CrashLine string   `json:"crashLine,omitempty"`
	WallMs    int64    `json:"wallMs,omitempty"`
	QuitRaw   string   `json:"quitRaw,omitempty"`
	Stdout    []string `json:"stdout,omitempty"`
	Stderr    []string `json:"stderr,omitempty"`
}

// fakeRun is one line of fakewindow.runs: a window that started.
type fakeRun struct {
	PID  int      `json:"pid"`
	PPID int      `json:"ppid"`
	Args []string `json:"args"`
	// DSHHome is the window's DSH_HOME, HasDSHHome whether it had one.
	DSHHome    string `json:"dshHome"`
	HasDSHHome bool   `json:"hasDSHHome"`
}

// harness runs a supervisor of the fake window on a fake clock with the
// contract's own timings, in a fresh directory.
type harness struct {
	t         *testing.T
	dir       string
	statePath string
	clock     *fakeClock
	logs      *logBuf
	sup       *Supervisor
	ready     chan struct{}
	cancel    context.CancelFunc
	done      chan struct{}
}

func newHarness(t *testing.T, edit func(*Config)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{
		t: t, dir: dir, statePath: filepath.Join(dir, "state.json"),
		clock: newFakeClock(), logs: &logBuf{}, ready: make(chan struct{}),
	}
	cfg := Config{
		Path: fakeWindow, StatePath: h.statePath,
		Log: logx.New(h.logs, slog.LevelDebug), Clock: h.clock,
	}
	cfg.Boot = h.clock.Now()
	if edit != nil {
		edit(&cfg)
	}
	h.sup = New(cfg)
	t.Cleanup(func() {
		h.shutdown()
		if t.Failed() {
			t.Logf("the supervisor's log:\n%s", h.logs.text())
		}
	})
	return h
}

// start runs the supervisor; open also closes ready (state.json written).
func (h *harness) start(open bool) {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan struct{})
	go func() {
		defer close(h.done)
		if err := h.sup.Run(ctx, h.ready); err != nil {
			h.t.Errorf("Run: %v", err)
		}
	}()
	if open {
		close(h.ready)
	}
}

// shutdown ends Run, moving the fake clock past any grace it waits out.
func (h *harness) shutdown() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-h.done:
			return
		case <-time.After(20 * time.Millisecond):
			h.clock.Advance(DefaultGrace)
		}
		if time.Now().After(deadline) {
			h.t.Fatal("Run did not return after its context ended")
		}
	}
}

func (h *harness) plan(p plan) {
	h.t.Helper()
	data, _ := json.Marshal(p)
	if err := os.WriteFile(filepath.Join(h.dir, "fakewindow.json"), data, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// stopWindow tells a running fake window to exit with its plan's code.
func (h *harness) stopWindow() {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, "fakewindow.stop"), nil, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) runs() []fakeRun {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, "fakewindow.runs"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	var out []fakeRun
	for line := range strings.Lines(string(data)) {
		var r fakeRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			h.t.Fatalf("fakewindow.runs: %v: %q", err, line)
		}
		out = append(out, r)
	}
	return out
}

// waitRuns waits until n windows have recorded their start (which the
// fake window does once its SIGTERM handler is in place).
func (h *harness) waitRuns(n int) []fakeRun {
	h.t.Helper()
	var runs []fakeRun
	waitFor(h.t, fmt.Sprintf("%d windows' records of their start", n), func() bool { runs = h.runs(); return len(runs) >= n })
	return runs
}

// patience is how long anything that must happen may take: a real child
// process on a loaded machine under -race is slow, and a test that passes
// never waits this long.
const patience = 30 * time.Second

func waitFor(t testing.TB, what string, cond func() bool) { waitfor.Until(t, what, cond) }

// waitStatus waits until the status is state after spawns windows started.
func (h *harness) waitStatus(state State, spawns int) Status {
	h.t.Helper()
	var st Status
	waitFor(h.t, fmt.Sprintf("status %s after %d spawns", state, spawns), func() bool {
		st = h.sup.Status()
		return st.State == state && st.Spawns == spawns
	})
	return st
}

// holds checks that the status stays state after spawns windows for a
// moment of real time: a check that nothing happens can only look for a
// while.
func (h *harness) holds(state State, spawns int) {
	h.t.Helper()
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if st := h.sup.Status(); st.State != state || st.Spawns != spawns {
			h.t.Fatalf("status moved to %s after %d spawns; want it to stay %s after %d", st.State, st.Spawns, state, spawns)
		}
	}
}

func (h *harness) waitRecords(message string, n int) []record {
	h.t.Helper()
	var rs []record
	waitFor(h.t, fmt.Sprintf("%d %s records", n, message), func() bool {
		rs = h.logs.records(h.t, message)
		return len(rs) >= n
	})
	return rs
}

// num reads a JSON number from a record's data.
func num(t testing.TB, r record, key string) int64 {
	t.Helper()
	v, ok := r.Data[key].(float64)
	if !ok {
		t.Fatalf("%s record: data.%s = %v, want a number", r.Message, key, r.Data[key])
	}
	return int64(v)
}
