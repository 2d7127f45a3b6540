package window

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSpawnArguments(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.ParentPID = 4242 })
	h.plan(plan{Mode: "run"})
	h.start(true)
	st := h.waitStatus(Running, 1)

	runs := h.waitRuns(1)
	want := []string{"--state", h.statePath, "--parent-pid", "4242"}
	if !slices.Equal(runs[0].Args, want) {
		t.Errorf("window arguments = %q, want %q", runs[0].Args, want)
	}
	if runs[0].PPID != os.Getpid() {
		t.Errorf("window's parent = %d, want this process %d", runs[0].PPID, os.Getpid())
	}
	if st.PID != runs[0].PID || !st.Since.Equal(h.clock.Now()) || !st.Next.IsZero() {
		t.Errorf("status = %+v, want pid %d since now, no next", st, runs[0].PID)
	}
	spawn := h.waitRecords("window-spawn", 1)[0]
	if spawn.Level != "INFO" || spawn.LogType != LogType || spawn.Data["reason"] != "start" ||
		num(t, spawn, "pid") != int64(st.PID) || spawn.Data["path"] != fakeWindow {
		t.Errorf("window-spawn record = %+v", spawn)
	}
}

// The window finds the DSH home only in its environment (it reads nothing
// but --state): the host's --dsh-home must reach it as DSH_HOME, or its ✕
// writes manual.json under ~/.dsh while the host watches another file.
func TestWindowIsToldTheDSHHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "the-home")
	t.Setenv("DSH_HOME", "/somewhere/else")
	cases := []struct {
		name    string
		dshHome string
		want    string
	}{
		{"the host's home replaces the inherited one", home, home},
		{"no home given: the environment as it was", "", "/somewhere/else"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(c *Config) { c.DSHHome = tc.dshHome })
			h.plan(plan{Mode: "run"})
			h.start(true)
			h.waitStatus(Running, 1)
			r := h.waitRuns(1)[0]
			if !r.HasDSHHome || r.DSHHome != tc.want {
				t.Errorf("the window's DSH_HOME = %q (set: %v), want %q", r.DSHHome, r.HasDSHHome, tc.want)
			}
		})
	}
}

func TestSetEnvReplacesEveryEntry(t *testing.T) {
	got := setEnv([]string{"A=1", "DSH_HOME=x", "B=2", "DSH_HOME=y"}, "DSH_HOME", "z")
	want := []string{"A=1", "B=2", "DSH_HOME=z"}
	if runtime.GOOS == "windows" {
		got = setEnv([]string{"A=1", "dsh_home=x", "B=2"}, "DSH_HOME", "z")
	}
	if !slices.Equal(got, want) {
		t.Errorf("setEnv = %q, want %q", got, want)
	}
}

func TestDefaultParentPIDIsTheHost(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "run"})
	h.start(true)
	h.waitStatus(Running, 1)
	runs := h.waitRuns(1)
	if got := runs[0].Args[3]; got != strconv.Itoa(os.Getpid()) {
		t.Errorf("--parent-pid %s, want this process %d", got, os.Getpid())
	}
}

func TestNoSpawnBeforeTheFirstStateFile(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "run"})
	h.start(false)
	h.waitStatus(Waiting, 0)
	h.holds(Waiting, 0)
	if st := h.sup.Status(); !st.Next.IsZero() || st.Lead() != "starting" {
		t.Errorf("before the first state.json: %+v (%q)", st, st.Lead())
	}
	if len(h.runs()) != 0 {
		t.Fatal("a window started before state.json was written")
	}
	close(h.ready)
	h.waitStatus(Running, 1)
}

func TestRespawnAfterFifteenSeconds(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "exit", Code: 3})
	h.start(true)

	st := h.waitStatus(Waiting, 1)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn {
		t.Errorf("next spawn %v after the exit, want %v", got, DefaultRespawn)
	}
	if st.LastExit != "exit code 3" || !st.Crashed || st.QuickDeaths != 1 || st.PID != 0 {
		t.Errorf("status after the exit = %+v", st)
	}
	exit := h.waitRecords("window-exit", 1)[0]
	if exit.Level != "WARNING" || num(t, exit, "code") != 3 || exit.Data["signal"] != "" ||
		num(t, exit, "livedMs") != 0 || num(t, exit, "nextInMs") != DefaultRespawn.Milliseconds() ||
		exit.Data["quick"] != true || num(t, exit, "quickDeaths") != 1 {
		t.Errorf("window-exit record = %+v", exit)
	}
	if _, ok := exit.Data["crash"]; ok {
		t.Errorf("window-exit quotes a crash line nobody wrote: %v", exit.Data["crash"])
	}

	h.plan(plan{Mode: "run"})
	h.clock.Advance(DefaultRespawn - time.Millisecond)
	h.holds(Waiting, 1)
	fired := time.Now()
	h.clock.Advance(time.Millisecond)
	h.waitStatus(Running, 2)
	t.Logf("fake clock: a window was running %v (real time) after its 15 s timer fired", time.Since(fired))
	if r := h.waitRecords("window-spawn", 2)[1]; r.Data["reason"] != "respawn" {
		t.Errorf("second spawn's reason = %v, want respawn", r.Data["reason"])
	}
}

func TestCleanExitIsNotACrash(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "exit", Code: 0})
	h.start(true)
	st := h.waitStatus(Waiting, 1)
	if st.Crashed || st.LastExit != "exit code 0" {
		t.Errorf("status = %+v", st)
	}
	if w := st.Lead(); w != "exited; restarting" || st.Next.Sub(st.Since) != 15*time.Second {
		t.Errorf("words = %q", w)
	}
	if r := h.waitRecords("window-exit", 1)[0]; r.Level != "INFO" {
		t.Errorf("a clean exit logged at %s", r.Level)
	}
}

// A window that dies at once, forever: 15 s, 15 s, then every 5 minutes,
// one record per attempt; a window that lives a minute resets the count.
func TestQuickDeathCadenceAndReset(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "exit", Code: 1})
	h.start(true)

	wants := []time.Duration{DefaultRespawn, DefaultRespawn, DefaultSlowRespawn, DefaultSlowRespawn, DefaultSlowRespawn}
	for i, want := range wants {
		n := i + 1
		st := h.waitStatus(Waiting, n)
		if got := st.Next.Sub(st.Since); got != want || st.QuickDeaths != n {
			t.Fatalf("after quick death %d: next in %v with %d quick deaths, want %v and %d", n, got, st.QuickDeaths, want, n)
		}
		exits := h.waitRecords("window-exit", n)
		if len(exits) != n {
			t.Fatalf("after %d attempts, %d window-exit records", n, len(exits))
		}
		if got := num(t, exits[n-1], "nextInMs"); got != want.Milliseconds() {
			t.Errorf("attempt %d logged nextInMs %d, want %d", n, got, want.Milliseconds())
		}
		// Not a moment early: no busy loop.
		h.clock.Advance(want - time.Millisecond)
		h.holds(Waiting, n)
		if n == len(wants) {
			h.plan(plan{Mode: "run"})
		}
		h.clock.Advance(time.Millisecond)
	}

	// The sixth window lives a full QuickLife: the count starts again.
	h.waitStatus(Running, 6)
	h.clock.Advance(DefaultQuickLife)
	h.stopWindow()
	st := h.waitStatus(Waiting, 6)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn || st.QuickDeaths != 0 {
		t.Errorf("after a long life: next in %v with %d quick deaths, want %v and 0", got, st.QuickDeaths, DefaultRespawn)
	}
	long := h.waitRecords("window-exit", 6)[5]
	if long.Data["quick"] != false || num(t, long, "livedMs") != DefaultQuickLife.Milliseconds() || num(t, long, "quickDeaths") != 0 {
		t.Errorf("window-exit after a long life = %+v", long.Data)
	}

	// And the next quick death is the first of a new run.
	h.plan(plan{Mode: "exit", Code: 1})
	h.clock.Advance(DefaultRespawn)
	st = h.waitStatus(Waiting, 7)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn || st.QuickDeaths != 1 {
		t.Errorf("first quick death after a reset: next in %v with %d quick deaths", got, st.QuickDeaths)
	}
}

func TestScaledDurations(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Respawn, c.SlowRespawn, c.QuickLife = 10*time.Millisecond, 40*time.Millisecond, 30*time.Millisecond
	})
	h.plan(plan{Mode: "exit", Code: 1})
	h.start(true)
	for n, want := range []time.Duration{10, 10, 40} {
		st := h.waitStatus(Waiting, n+1)
		if got := st.Next.Sub(st.Since); got != want*time.Millisecond {
			t.Fatalf("wait %d = %v, want %v", n+1, got, want*time.Millisecond)
		}
		h.clock.Advance(want * time.Millisecond)
	}
}

// The real clock: the respawn waits Respawn and not less.
func TestRealClockRespawn(t *testing.T) {
	const respawn = 300 * time.Millisecond
	h := newHarness(t, func(c *Config) { c.Clock, c.Respawn, c.Boot = nil, respawn, time.Time{} })
	h.plan(plan{Mode: "exit", Code: 1})
	h.start(true)
	exited := h.waitStatus(Waiting, 1)
	h.plan(plan{Mode: "run"})
	spawned := h.waitStatus(Running, 2)
	latency := spawned.Since.Sub(exited.Since)
	if latency < respawn {
		t.Errorf("respawned %v after the exit, before the %v wait was over", latency, respawn)
	}
	t.Logf("real clock: respawned %v after the exit (Respawn %v)", latency, respawn)
}

func TestStartNowEndsAWait(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "exit", Code: 1})
	h.start(true)
	h.waitStatus(Waiting, 1)
	h.plan(plan{Mode: "run"})
	h.sup.StartNow()
	st := h.waitStatus(Running, 2)
	if r := h.waitRecords("window-spawn", 2)[1]; r.Data["reason"] != "start-now" {
		t.Errorf("spawn reason = %v, want start-now", r.Data["reason"])
	}
	// While one runs, StartNow starts nothing.
	h.sup.StartNow()
	h.holds(Running, 2)
	if got := h.sup.Status().PID; got != st.PID {
		t.Errorf("the running window changed: pid %d, then %d", st.PID, got)
	}
	// Nor does that StartNow linger to cut the next wait short.
	h.plan(plan{Mode: "exit", Code: 1})
	h.stopWindow()
	h.waitStatus(Waiting, 2)
	h.holds(Waiting, 2)
}

func TestQuitHoldsForAnHour(t *testing.T) {
	h := newHarness(t, nil)
	h.clock.Advance(10 * time.Second) // the host has been up a while
	quitAt := h.clock.Now()
	h.plan(plan{Mode: "quit", WallMs: quitAt.UnixMilli()})
	h.start(true)

	st := h.waitStatus(Quit, 1)
	if !st.Since.Equal(quitAt) || !st.Next.Equal(quitAt.Add(DefaultQuitHold)) || st.Crashed {
		t.Errorf("status after the quit = %+v; want since %v, next %v", st, quitAt, quitAt.Add(DefaultQuitHold))
	}
	if w := st.Lead() + " " + st.Next.In(time.UTC).Format("15:04"); w != "quit from the tray; back at 11:42" {
		t.Errorf("words = %q", w)
	}
	q := h.waitRecords("window-quit", 1)[0]
	if q.Level != "INFO" || num(t, q, "wallMs") != quitAt.UnixMilli() ||
		num(t, q, "untilMs") != quitAt.Add(DefaultQuitHold).UnixMilli() ||
		num(t, q, "nextInMs") != DefaultQuitHold.Milliseconds() || num(t, q, "code") != 0 {
		t.Errorf("window-quit record = %+v", q.Data)
	}
	if n := len(h.logs.records(t, "window-exit")); n != 0 {
		t.Errorf("a quit also logged %d window-exit records", n)
	}

	h.plan(plan{Mode: "run"})
	h.clock.Advance(DefaultQuitHold - time.Millisecond)
	h.holds(Quit, 1)
	h.clock.Advance(time.Millisecond)
	h.waitStatus(Running, 2)
	if r := h.waitRecords("window-spawn", 2)[1]; r.Data["reason"] != "hold-ended" {
		t.Errorf("spawn reason = %v, want hold-ended", r.Data["reason"])
	}

	// quit.json is still there, but that quit was acted on: this window's
	// exit is an exit.
	h.stopWindow()
	st = h.waitStatus(Waiting, 2)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn {
		t.Errorf("exit after the hold: next in %v, want %v", got, DefaultRespawn)
	}
	h.waitRecords("window-exit", 1)
	if n := len(h.logs.records(t, "window-quit")); n != 1 {
		t.Errorf("%d window-quit records, want 1", n)
	}
}

// TestWaitsRunFromTheirDecision: on a clock that moves between readings,
// the status still says exactly what was decided (the hour after the quit,
// 15 s after the exit), and the timer keeps to it.
func TestWaitsRunFromTheirDecision(t *testing.T) {
	h := newHarness(t, nil)
	h.clock.Advance(10 * time.Second)
	quitAt := h.clock.Now()
	h.clock.mu.Lock()
	h.clock.creep = time.Millisecond
	h.clock.mu.Unlock()
	h.plan(plan{Mode: "quit", WallMs: quitAt.UnixMilli()})
	h.start(true)

	st := h.waitStatus(Quit, 1)
	if got := st.Next.Sub(st.Since); got != DefaultQuitHold {
		t.Errorf("quit: next - since = %v, want %v", got, DefaultQuitHold)
	}
	if !st.Next.Equal(quitAt.Add(DefaultQuitHold)) {
		t.Errorf("quit: next = %v, want %v", st.Next, quitAt.Add(DefaultQuitHold))
	}
	h.plan(plan{Mode: "run"})
	h.clock.Advance(st.Next.Sub(h.clock.Now()) - 10*time.Millisecond)
	h.holds(Quit, 1)
	h.clock.Advance(10 * time.Millisecond)
	h.waitStatus(Running, 2)

	h.stopWindow()
	st = h.waitStatus(Waiting, 2)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn {
		t.Errorf("exit: next - since = %v, want %v", got, DefaultRespawn)
	}
}

func TestStartNowEndsAQuitHold(t *testing.T) {
	h := newHarness(t, nil)
	h.clock.Advance(time.Second)
	h.plan(plan{Mode: "quit", WallMs: h.clock.Now().UnixMilli()})
	h.start(true)
	h.waitStatus(Quit, 1)
	h.plan(plan{Mode: "run", Code: 2})
	h.sup.StartNow()
	h.waitStatus(Running, 2)

	// The window the human asked for crashes within the hour: the old quit
	// does not hold it away again.
	h.stopWindow()
	st := h.waitStatus(Waiting, 2)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn || st.LastExit != "exit code 2" {
		t.Errorf("after the crash: %+v, next in %v", st, got)
	}
}

func TestQuitOlderThanBootIsHistory(t *testing.T) {
	h := newHarness(t, nil)
	boot := h.clock.Now()
	h.plan(plan{Mode: "quit", WallMs: boot.Add(-time.Second).UnixMilli()})
	h.start(true)
	st := h.waitStatus(Waiting, 1)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn {
		t.Errorf("next in %v, want %v", got, DefaultRespawn)
	}
	if r := h.waitRecords("window-exit", 1)[0]; num(t, r, "code") != 0 {
		t.Errorf("window-exit = %+v", r.Data)
	}
	if n := len(h.logs.records(t, "window-quit")); n != 0 {
		t.Errorf("a quit from before boot logged %d window-quit records", n)
	}
}

func TestQuitBeyondTheHour(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Boot = c.Boot.Add(-3 * time.Hour) })
	quitAt := h.clock.Now().Add(-2 * time.Hour)
	h.plan(plan{Mode: "quit", WallMs: quitAt.UnixMilli()})
	h.start(true)
	st := h.waitStatus(Waiting, 1)
	if got := st.Next.Sub(st.Since); got != DefaultRespawn {
		t.Errorf("a quit whose hour is over: next in %v, want the ordinary %v", got, DefaultRespawn)
	}
	q := h.waitRecords("window-quit", 1)[0]
	if q.Data["holdOver"] != true || num(t, q, "untilMs") != quitAt.Add(DefaultQuitHold).UnixMilli() {
		t.Errorf("window-quit = %+v", q.Data)
	}
	h.plan(plan{Mode: "run"})
	h.clock.Advance(DefaultRespawn)
	h.waitStatus(Running, 2)
}

// A quit.json from the future (the window's clock ahead) holds an hour from
// now, not longer.
func TestQuitFromTheFutureHoldsAnHour(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "quit", WallMs: h.clock.Now().Add(5 * time.Hour).UnixMilli()})
	h.start(true)
	st := h.waitStatus(Quit, 1)
	if got := st.Next.Sub(h.clock.Now()); got != DefaultQuitHold {
		t.Errorf("hold of %v, want %v", got, DefaultQuitHold)
	}
}

func TestMalformedQuitIsReportedAndIgnored(t *testing.T) {
	for _, raw := range []string{`{"wallMs": "soon"}`, `{not json`, `{"wallMs": 1.5}`, `[]`} {
		t.Run(raw, func(t *testing.T) {
			h := newHarness(t, nil)
			h.plan(plan{Mode: "quit", QuitRaw: raw})
			h.start(true)
			st := h.waitStatus(Waiting, 1)
			if got := st.Next.Sub(st.Since); got != DefaultRespawn {
				t.Errorf("next in %v, want %v", got, DefaultRespawn)
			}
			w := h.waitRecords("window-quit-ignored", 1)[0]
			if w.Level != "WARNING" || w.Error["name"] != "QuitFileError" || !strings.Contains(w.Error["message"].(string), QuitFile) {
				t.Errorf("window-quit-ignored = %+v", w)
			}
			h.waitRecords("window-exit", 1)
			h.plan(plan{Mode: "run"})
			h.clock.Advance(DefaultRespawn)
			h.waitStatus(Running, 2)

			// The same bad file at the next exit is not reported again.
			h.stopWindow()
			h.waitStatus(Waiting, 2)
			h.waitRecords("window-exit", 2)
			if n := len(h.logs.records(t, "window-quit-ignored")); n != 1 {
				t.Errorf("the same malformed quit.json was reported %d times", n)
			}
		})
	}
}

func TestCrashLineQuotedOnlyWhenWrittenDuringThatLife(t *testing.T) {
	h := newHarness(t, nil)
	crashLog := filepath.Join(h.dir, CrashFile)
	if err := os.WriteFile(crashLog, []byte("an old crash, from another life\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.plan(plan{Mode: "crash", Code: 2,
		CrashLine: "Unhandled exception.\tSystem.NullReferenceException: \x1b[31mObject\x1b[0m reference not set\r"})
	h.start(true)
	h.waitStatus(Waiting, 1)
	first := h.waitRecords("window-exit", 1)[0]
	want := "Unhandled exception. System.NullReferenceException: [31mObject[0m reference not set"
	if first.Data["crash"] != want || num(t, first, "code") != 2 {
		t.Errorf("crash quoted as %q (code %v), want %q", first.Data["crash"], first.Data["code"], want)
	}

	// The next window exits without writing it: the file is older than
	// that life, and is not quoted.
	h.plan(plan{Mode: "exit", Code: 4})
	h.clock.Advance(DefaultRespawn)
	h.waitStatus(Waiting, 2)
	second := h.waitRecords("window-exit", 2)[1]
	if c, ok := second.Data["crash"]; ok {
		t.Errorf("quoted %q from a crash log this window did not write", c)
	}
	if st := h.sup.Status(); st.LastExit != "exit code 4" {
		t.Errorf("last exit %q", st.LastExit)
	}
}

func TestOutputGoesToTheLogAtDebug(t *testing.T) {
	long := strings.Repeat("x", 3000)
	h := newHarness(t, nil)
	h.plan(plan{Mode: "run",
		Stdout: []string{"hello from stdout", "a\tbell\a and an \x1b[1mescape", long},
		Stderr: []string{"oops on stderr"}})
	h.start(true)
	st := h.waitStatus(Running, 1)
	rs := h.waitRecords("window-output", 4)
	got := map[string]string{}
	for _, r := range rs {
		if r.Level != "DEBUG" || r.LogType != LogType || num(t, r, "pid") != int64(st.PID) {
			t.Errorf("window-output record = %+v", r)
		}
		line, _ := r.Data["line"].(string)
		got[line] = r.Data["stream"].(string)
	}
	for line, stream := range map[string]string{
		"hello from stdout":                      "stdout",
		"a bell and an [1mescape":                "stdout",
		strings.Repeat("x", 1000-len("…")) + "…": "stdout", // the ellipsis counts in the cap
		"oops on stderr":                         "stderr",
	} {
		if got[line] != stream {
			t.Errorf("no %s record %.40q; got %q", stream, line, got)
		}
	}
}

func TestGracefulStop(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "run"})
	h.start(true)
	st := h.waitStatus(Running, 1)
	h.waitRuns(1)
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(patience):
		t.Fatal("Run did not return after the window honoured SIGTERM")
	}
	stop := h.waitRecords("window-stop", 1)[0]
	if runtime.GOOS != "windows" && (stop.Data["killed"] != false || num(t, stop, "code") != 0) {
		t.Errorf("window-stop = %+v, want a window that left on its own", stop.Data)
	}
	if alive(st.PID) {
		t.Errorf("window %d still alive after Run returned", st.PID)
	}
	if got := h.sup.Status(); got.State != Off || got.PID != 0 {
		t.Errorf("status after Run = %+v", got)
	}
	if len(h.logs.records(t, "window-exit")) != 0 {
		t.Error("a stop was logged as a window-exit")
	}
}

func TestStopKillsAWindowThatIgnoresSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows: terminate is a kill")
	}
	h := newHarness(t, nil)
	h.plan(plan{Mode: "ignore-term"})
	h.start(true)
	st := h.waitStatus(Running, 1)
	h.waitRuns(1)
	h.cancel()
	h.waitRecords("window-output", 1) // "got SIGTERM, ignoring it"
	select {
	case <-h.done:
		t.Fatal("Run returned before the grace was over")
	case <-time.After(50 * time.Millisecond):
	}
	if !alive(st.PID) {
		t.Fatal("the window was killed before the grace was over")
	}
	h.clock.Advance(DefaultGrace)
	select {
	case <-h.done:
	case <-time.After(patience):
		t.Fatal("Run did not return after the grace")
	}
	stop := h.waitRecords("window-stop", 1)[0]
	if stop.Data["killed"] != true || stop.Data["signal"] != "SIGKILL" {
		t.Errorf("window-stop = %+v, want killed by SIGKILL", stop.Data)
	}
	if alive(st.PID) {
		t.Errorf("window %d still alive", st.PID)
	}
}

func TestSpawnFailureIsLoggedAndRetried(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, filepath.Base(fakeWindow))
	data, err := os.ReadFile(fakeWindow)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckProgram(gone); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(c *Config) { c.Path = gone })
	os.Remove(gone) // after the start-up check, before the spawn
	h.start(true)
	st := h.waitStatus(Waiting, 0)
	waitFor(t, "a next spawn", func() bool { st = h.sup.Status(); return !st.Next.IsZero() })
	if got := st.Next.Sub(st.Since); got != DefaultRespawn || !st.Crashed || st.LastExit != "did not start" {
		t.Errorf("after a failed start: %+v, next in %v", st, got)
	}
	r := h.waitRecords("window-spawn-failed", 1)[0]
	if r.Level != "ERROR" || r.Error["name"] != "SpawnError" || num(t, r, "quickDeaths") != 1 {
		t.Errorf("window-spawn-failed = %+v", r)
	}
	// It comes back: the next attempt finds the program again.
	if err := os.WriteFile(gone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	h.plan(plan{Mode: "run"})
	h.clock.Advance(DefaultRespawn)
	h.waitStatus(Running, 1)
}

// The wall clock set back while a window is due, or forward during a quit
// hold: the waits run on monotonic time and neither stall nor end early.
func TestClockJumps(t *testing.T) {
	t.Run("back while waiting", func(t *testing.T) {
		h := newHarness(t, nil)
		h.plan(plan{Mode: "exit", Code: 1})
		h.start(true)
		h.waitStatus(Waiting, 1)
		h.clock.Jump(-2 * time.Hour)
		h.plan(plan{Mode: "run"})
		h.clock.Advance(DefaultRespawn)
		h.waitStatus(Running, 2)
	})
	t.Run("forward during a quit hold", func(t *testing.T) {
		h := newHarness(t, nil)
		h.clock.Advance(time.Second)
		h.plan(plan{Mode: "quit", WallMs: h.clock.Now().UnixMilli()})
		h.start(true)
		h.waitStatus(Quit, 1)
		h.clock.Jump(3 * time.Hour)
		h.plan(plan{Mode: "run"})
		h.clock.Advance(time.Minute)
		h.holds(Quit, 1)
		h.clock.Advance(DefaultQuitHold - time.Minute)
		h.waitStatus(Running, 2)
	})
}

func TestSubscribeWakesOnChanges(t *testing.T) {
	h := newHarness(t, nil)
	wake, stop := h.sup.Subscribe()
	defer stop()
	h.plan(plan{Mode: "run"})
	h.start(true)
	deadline := time.After(patience)
	for h.sup.Status().State != Running {
		select {
		case <-wake:
		case <-deadline:
			t.Fatal("no wake-up reached running")
		}
	}
}

// A host without --window holds a nil supervisor.
func TestNilSupervisor(t *testing.T) {
	var s *Supervisor
	if st := s.Status(); st.State != Off || st.Lead() != "off" {
		t.Errorf("nil supervisor: %+v", st)
	}
	s.StartNow()
	_, stop := s.Subscribe()
	stop()
}

func TestRunNeedsPaths(t *testing.T) {
	if err := New(Config{}).Run(t.Context(), nil); err == nil {
		t.Error("Run without a Path or StatePath did not fail")
	}
}

// TestStartNowIsRateLimited: Start now cannot bypass the back-off: from a
// loop of requests, a window that dies at once is spawned at most once per
// StartNowGap (issue 19: 270 spawns in 5 s). A refused request is told how
// long to wait.
func TestStartNowIsRateLimited(t *testing.T) {
	h := newHarness(t, nil)
	h.plan(plan{Mode: "exit", Code: 1})
	h.start(true)
	h.waitStatus(Waiting, 1)
	h.sup.StartNow()
	h.waitStatus(Waiting, 2) // the start-now window died too
	for range 50 {
		h.sup.StartNow()
	}
	h.holds(Waiting, 2)
	if got := len(h.runs()); got != 2 {
		t.Fatalf("%d spawns from a loop of Start now, want 2", got)
	}
	checkStartNowWait(t, h)
}
