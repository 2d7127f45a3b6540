package window

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/notify"
	"github.com/notch-web/notch-web/internal/timerslack"
)

// LogType is the log_type of the supervisor's records (logx.TypeWindow).
const LogType = logx.TypeWindow

// waitDelay bounds how long reaping a window waits for its output pipes
// once it has exited: a grandchild that inherited them must not hold the
// supervisor up.
const waitDelay = time.Second

// Supervisor starts the window program and keeps it alive. Make one with
// New; Status, StartNow and Subscribe are safe from any goroutine, and work
// on a nil *Supervisor (Off, nothing to start, never woken), so a host
// without --window can hold a nil one.
type Supervisor struct {
	cfg      Config
	path     string // Config.Path, absolute
	state    string // Config.StatePath, absolute
	quitPath string
	crash    string

	startNow chan struct{}
	changes  notify.Broadcast

	// Owned by Run's goroutine.
	quick    int      // quick deaths in a row
	lastQuit int64    // the wallMs of the last quit acted on
	badQuit  fileMark // the malformed quit.json last reported

	mu           sync.Mutex
	status       Status
	lastStartNow time.Time // when Start now was last taken (zero: never)
}

// New returns a supervisor for cfg; nothing runs until Run. The paths are
// made absolute here, so the window started is the file CheckProgram
// looked at whatever the working directory.
func New(cfg Config) *Supervisor {
	cfg = cfg.withDefaults()
	s := &Supervisor{
		cfg:      cfg,
		path:     absPath(cfg.Path),
		state:    absPath(cfg.StatePath),
		startNow: make(chan struct{}, 1),
		status:   Status{State: Off},
	}
	dir := filepath.Dir(s.state)
	s.quitPath = filepath.Join(dir, QuitFile)
	s.crash = filepath.Join(dir, CrashFile)
	return s
}

// setEnv returns env with key set to value: every entry of key (any case,
// on Windows, where names are case-insensitive) gives way to one at the end.
func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == key || (runtime.GOOS == "windows" && strings.EqualFold(k, key)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// Status returns the supervisor's state now.
func (s *Supervisor) Status() Status {
	if s == nil {
		return Status{State: Off}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Subscribe returns a channel that is woken after every change of Status,
// and a function that ends the subscription.
func (s *Supervisor) Subscribe() (<-chan struct{}, func()) {
	if s == nil {
		return nil, func() {}
	}
	return s.changes.Subscribe()
}

// StartNow ends a wait or a quit hold and spawns the window at once. It does
// nothing while a window runs (or while the first state.json is not written
// yet: the window is spawned as soon as it is). Start now spawns at most one
// window per DefaultStartNowGap: within it the request is refused and wait
// says how long until one is taken (0 when this one was).
func (s *Supervisor) StartNow() (wait time.Duration) {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status.State == Running {
		return 0 // nothing to start
	}
	now := s.cfg.Clock.Now()
	if last := s.lastStartNow; !last.IsZero() {
		if since := now.Sub(last); since >= 0 && since < DefaultStartNowGap {
			return DefaultStartNowGap - since
		}
	}
	select {
	case s.startNow <- struct{}{}:
		s.lastStartNow = now
	default:
	}
	return 0
}

func (s *Supervisor) set(f func(st *Status)) {
	s.mu.Lock()
	f(&s.status)
	s.mu.Unlock()
	s.changes.Notify()
}

// Run supervises the window until ctx ends; call it once. It spawns the
// first window when ready is closed (the first state.json is written; a nil
// ready spawns at once). When ctx ends it asks a running window to go, kills
// it after Grace, and returns once it is reaped. Failures to start the
// window are logged and retried on the respawn schedule: Run's only error
// is a Config without Path or StatePath.
func (s *Supervisor) Run(ctx context.Context, ready <-chan struct{}) error {
	if s.cfg.Path == "" || s.cfg.StatePath == "" {
		return errors.New("window: Config needs a Path and a StatePath")
	}
	defer s.set(func(st *Status) { *st = Status{State: Off, Spawns: st.Spawns} })
	s.set(func(st *Status) { *st = Status{State: Waiting} })
	if ready != nil {
		select {
		case <-ctx.Done():
			return nil
		case <-ready:
		}
	}
	reason := "start"
	for {
		// A StartNow that came while a window ran, or before the first, is
		// spent: it asked for a window, and here it comes.
		select {
		case <-s.startNow:
		default:
		}
		var o outcome
		if c, err := s.spawn(reason); err != nil {
			o = s.spawnFailed(err)
		} else {
			ex, stopped := s.supervise(ctx, c)
			if stopped {
				return nil
			}
			o = s.exited(c, ex)
		}
		reason = "respawn"
		if o.state == Quit {
			reason = "hold-ended"
		}
		// Take the timer under the status lock, so whoever sees this state
		// (a test's fake clock, too) knows the timer is already running.
		// The wait runs from o.at, the instant it was decided, so Next is
		// exactly what the log said (the hour after a quit's wallMs, 15 s
		// after an exit), however long it took to get here.
		var timer <-chan time.Time
		s.set(func(st *Status) {
			timer = s.cfg.Clock.After(o.delay - s.cfg.Clock.Now().Sub(o.at))
			st.State, st.PID, st.Since, st.Next = o.state, 0, o.since, o.at.Add(o.delay)
			st.LastExit, st.Crashed, st.QuickDeaths = o.lastExit, o.crashed, s.quick
		})
		select {
		case <-ctx.Done():
			return nil
		case <-timer:
		case <-s.startNow:
			reason = "start-now"
		}
	}
}

// outcome is how a window's life ended, and what comes next: a wait of
// delay from at (the clock's reading when it was decided) in state
// (Waiting or Quit) that began at since.
type outcome struct {
	delay    time.Duration
	at       time.Time
	state    State
	since    time.Time
	lastExit string
	crashed  bool
}

// child is one running window.
type child struct {
	cmd      *exec.Cmd
	pid      int
	spawned  time.Time // on the supervisor's clock
	crash    fileMark  // window-crash.log before the window started
	done     chan exitInfo
	reaped   chan struct{} // closed once the process is reaped: no more signals
	out, err *lineWriter
}

type exitInfo struct {
	state *os.ProcessState
	err   error // from Wait, when there is no ProcessState
}

// spawn starts a window. On Linux the goroutine that starts it stays locked
// to its OS thread until the window is reaped: the parent-death signal
// fires when the *thread* that forked the child exits, and the runtime ends
// a thread whenever a goroutine locked to it returns — so the forking thread
// must be one nobody else can lock (go.dev/issue/27505).
func (s *Supervisor) spawn(reason string) (*child, error) {
	cmd := exec.Command(s.path, "--state", s.state, "--parent-pid", strconv.Itoa(s.cfg.ParentPID))
	cmd.Stdin = nil // the null device
	if s.cfg.DSHHome != "" {
		cmd.Env = setEnv(os.Environ(), "DSH_HOME", absPath(s.cfg.DSHHome))
	}
	cmd.WaitDelay = waitDelay
	prepare(cmd)
	c := &child{
		cmd:    cmd,
		crash:  markFile(s.crash),
		done:   make(chan exitInfo, 1),
		reaped: make(chan struct{}),
		out:    newLineWriter(s.cfg.Log, "stdout"),
		err:    newLineWriter(s.cfg.Log, "stderr"),
	}
	cmd.Stdout, cmd.Stderr = c.out, c.err
	started := make(chan error, 1)
	go func() {
		defer logx.Guard(s.cfg.Log)()
		if lockThread {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		// The window runs at the slack notch-web was started with, not
		// the host's (internal/timerslack): it draws on its own clock.
		restore := timerslack.ForChild()
		err := cmd.Start()
		restore()
		if err != nil {
			started <- err
			return
		}
		c.out.started(cmd.Process.Pid)
		c.err.started(cmd.Process.Pid)
		release, err := adopt(cmd.Process)
		if err != nil {
			s.cfg.Log.Warn("window-adopt-failed", "log_type", LogType, logx.Err("AdoptError", err),
				slog.Group("data", "pid", cmd.Process.Pid))
		}
		started <- nil
		werr := cmd.Wait()
		close(c.reaped)
		release()
		c.out.flush()
		c.err.flush()
		c.done <- exitInfo{state: cmd.ProcessState, err: werr}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	c.pid = cmd.Process.Pid
	s.set(func(st *Status) {
		c.spawned = s.cfg.Clock.Now()
		st.State, st.PID, st.Since, st.Next = Running, c.pid, c.spawned, time.Time{}
		st.Spawns++
	})
	s.cfg.Log.Info("window-spawn", "log_type", LogType, slog.Group("data",
		"pid", c.pid, "path", s.path, "args", cmd.Args[1:], "reason", reason))
	return c, nil
}

// supervise waits for the window to exit, or for ctx to end, in which case
// it stops the window and reports stopped.
func (s *Supervisor) supervise(ctx context.Context, c *child) (exitInfo, bool) {
	for {
		select {
		case ex := <-c.done:
			return ex, false
		case <-s.startNow:
			// A window is running: nothing to start.
		case <-ctx.Done():
			s.stop(c)
			return exitInfo{}, true
		}
	}
}

// stop asks the window to go and kills it when Grace passes first.
func (s *Supervisor) stop(c *child) {
	// The grace timer starts before the request, so a window that has been
	// asked (and a test that saw it ask) knows the timer is running.
	grace := s.cfg.Clock.After(s.cfg.Grace)
	killed := terminateKills
	terminate(c)
	var ex exitInfo
	select {
	case ex = <-c.done:
	case <-grace:
		killed = true
	}
	if killed {
		kill(c)
		ex = <-c.done
	}
	code, sig := describeExit(ex.state)
	s.cfg.Log.Info("window-stop", "log_type", LogType, slog.Group("data",
		"pid", c.pid, "livedMs", s.cfg.Clock.Now().Sub(c.spawned).Milliseconds(),
		"killed", killed, "code", code, "signal", sig))
}

// died counts one death after lived and returns the wait before the next
// spawn: Respawn, or SlowRespawn from the QuickDeaths-th quick death in a
// row on. A window that lived QuickLife or longer resets the count.
func (s *Supervisor) died(lived time.Duration) (delay time.Duration, quick bool) {
	quick = lived < s.cfg.QuickLife
	if quick {
		s.quick++
	} else {
		s.quick = 0
	}
	if s.quick >= QuickDeaths {
		return s.cfg.SlowRespawn, quick
	}
	return s.cfg.Respawn, quick
}

// spawnFailed handles a window that did not start: a quick death of zero
// life, logged once.
func (s *Supervisor) spawnFailed(err error) outcome {
	now := s.cfg.Clock.Now()
	delay, _ := s.died(0)
	s.cfg.Log.Error("window-spawn-failed", "log_type", LogType, logx.Err("SpawnError", err),
		slog.Group("data", "path", s.path, "quickDeaths", s.quick, "nextInMs", delay.Milliseconds()))
	return outcome{delay: delay, at: now, state: Waiting, since: now, lastExit: notStarted, crashed: true}
}

// exited handles a window that ended on its own: a tray quit, or a death.
func (s *Supervisor) exited(c *child, ex exitInfo) outcome {
	now := s.cfg.Clock.Now()
	lived := now.Sub(c.spawned)
	code, sig := describeExit(ex.state)
	how, crashed := exitWords(code, sig, ex.err)
	common := []any{"pid", c.pid, "code", code, "signal", sig, "livedMs", lived.Milliseconds()}

	if wallMs, isQuit := s.quitSignal(); isQuit {
		s.lastQuit = wallMs
		quitAt := time.UnixMilli(wallMs)
		// The hold ends an hour after the quit on the wall clock; a wallMs
		// from the future (the window's clock ahead of ours) holds no longer
		// than an hour from now. What is left becomes a monotonic wait here.
		until := quitAt.Add(s.cfg.QuitHold)
		if latest := now.Round(0).Add(s.cfg.QuitHold); until.After(latest) {
			until = latest
		}
		left := until.Sub(now.Round(0))
		data := append(common, "wallMs", wallMs, "untilMs", until.UnixMilli())
		if left > 0 {
			// The human quit a window that worked: whatever came before,
			// the next one starts with a clean count.
			s.quick = 0
			s.cfg.Log.Info("window-quit", "log_type", LogType, slog.Group("data", append(data, "nextInMs", left.Milliseconds())...))
			return outcome{delay: left, at: now, state: Quit, since: quitAt, lastExit: "quit from the tray"}
		}
		// A quit whose hour is already over holds nothing; the window is
		// respawned like any that exited, never at once (a window that
		// kept writing stale quits must not spin).
		delay, quick := s.died(lived)
		s.cfg.Log.Info("window-quit", "log_type", LogType, slog.Group("data", append(data,
			"holdOver", true, "quick", quick, "quickDeaths", s.quick, "nextInMs", delay.Milliseconds())...))
		return outcome{delay: delay, at: now, state: Waiting, since: now, lastExit: "quit from the tray"}
	}

	delay, quick := s.died(lived)
	data := append(common, "quick", quick, "quickDeaths", s.quick, "nextInMs", delay.Milliseconds())
	if writtenSince(s.crash, c.crash) {
		if line := crashLine(s.crash); line != "" {
			data = append(data, "crash", line)
		}
	}
	level := slog.LevelInfo
	if crashed {
		level = slog.LevelWarn
	}
	s.cfg.Log.Log(context.Background(), level, "window-exit", "log_type", LogType, slog.Group("data", data...))
	return outcome{delay: delay, at: now, state: Waiting, since: now, lastExit: how, crashed: crashed}
}

// quitSignal reads quit.json and reports whether it is a new quit: newer
// than the host's boot (older is history) and than the last quit acted on
// (a window started by StartNow during a hold, or after it, that later
// dies has not been quit again). A malformed file is reported, once while
// it stays the same, and ignored.
func (s *Supervisor) quitSignal() (int64, bool) {
	ms, ok, err := readQuit(s.quitPath)
	if err != nil {
		if mark := markFile(s.quitPath); !mark.exists || !mark.same(s.badQuit) {
			s.badQuit = mark
			s.cfg.Log.Warn("window-quit-ignored", "log_type", LogType, logx.Err("QuitFileError", err),
				slog.Group("data", "path", s.quitPath))
		}
		return 0, false
	}
	if !ok || ms <= s.cfg.Boot.UnixMilli() || ms <= s.lastQuit {
		return 0, false
	}
	return ms, true
}

// exitWords says how a window ended, and whether that was a crash.
func exitWords(code int, sig string, waitErr error) (string, bool) {
	switch {
	case sig != "":
		return "killed by " + sig, true
	case code >= 0:
		return fmt.Sprintf("exit code %d", code), code != 0
	case waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay):
		return "lost: " + waitErr.Error(), true
	}
	return "ended", true
}
