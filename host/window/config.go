package window

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// The contract's timings; a zero Config field takes these.
const (
	// DefaultRespawn is the wait before a window that died is spawned again.
	DefaultRespawn = 15 * time.Second
	// DefaultSlowRespawn is the wait once QuickDeaths quick deaths came in a row.
	DefaultSlowRespawn = 5 * time.Minute
	// DefaultQuitHold is how long after a tray quit's wallMs no window is spawned.
	DefaultQuitHold = time.Hour
	// DefaultQuickLife: a window that lived less than this died quickly.
	DefaultQuickLife = time.Minute
	// DefaultGrace is how long a window asked to go has before it is killed.
	DefaultGrace = 3 * time.Second
	// DefaultStartNowGap is the least time between two windows started by
	// Start now: a loop of requests cannot bypass the back-off.
	DefaultStartNowGap = 5 * time.Second
)

// QuickDeaths is how many quick deaths in a row switch the respawn wait from
// Respawn to SlowRespawn.
const QuickDeaths = 3

// Config is a Supervisor's setting. Path and StatePath are required.
type Config struct {
	// Path is the window program, checked at start-up with CheckProgram.
	Path string
	// StatePath is state.json, passed to the window as --state; quit.json
	// and window-crash.log live beside it.
	StatePath string
	// DSHHome is the host's DSH home, given to the window as DSH_HOME in
	// the environment it otherwise inherits: the window reads nothing but
	// --state, and its ✕ writes manual.json under $DSH_HOME when
	// finishedUrl is null (docs/contract.md §2). "" leaves the environment
	// as it is.
	DSHHome string
	// ParentPID is passed as --parent-pid; 0 means this process.
	ParentPID int
	// Boot is when the host started, on the wall clock: only a quit.json
	// newer than this is a signal. Zero means when New was called.
	Boot time.Time
	// Log receives the window-* records (log_type agents-notch.window.v1) and
	// the window's output at DEBUG. Nil discards them.
	Log *slog.Logger
	// Clock is the time source; nil is the real one.
	Clock Clock

	Respawn     time.Duration // 0 = DefaultRespawn
	SlowRespawn time.Duration // 0 = DefaultSlowRespawn
	QuitHold    time.Duration // 0 = DefaultQuitHold
	QuickLife   time.Duration // 0 = DefaultQuickLife
	Grace       time.Duration // 0 = DefaultGrace
}

// Clock is the supervisor's time source. Now gives the wall clock (for
// quit.json's wallMs, and the times Status shows); durations between two of
// its readings, and After, must run on a monotonic clock so that a wall clock
// set back or forward neither stalls nor hurries a respawn. The real clock
// is time.Now (whose values carry a monotonic reading) and time.After.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// ErrNotProgram: the window path names something that cannot be run.
var ErrNotProgram = errors.New("not an executable file")

// CheckProgram reports whether path names a program the supervisor can
// start: it exists, is a regular file (a symlink to one will do) and is
// executable by this user (on Windows: has the .exe extension). The error
// names the path, so a start-up failure says which file is wrong.
func CheckProgram(path string) error {
	if path == "" {
		return errors.New("window program: no path given")
	}
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("window program %s: %w", path, os.ErrNotExist)
		}
		return fmt.Errorf("window program %s: %w", path, err)
	}
	if info.IsDir() {
		return fmt.Errorf("window program %s: is a directory: %w", path, ErrNotProgram)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("window program %s: not a regular file: %w", path, ErrNotProgram)
	}
	if err := checkExecutable(path); err != nil {
		return fmt.Errorf("window program %s: %w", path, err)
	}
	return nil
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.Respawn, DefaultRespawn)
	def(&c.SlowRespawn, DefaultSlowRespawn)
	def(&c.QuitHold, DefaultQuitHold)
	def(&c.QuickLife, DefaultQuickLife)
	def(&c.Grace, DefaultGrace)
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.ParentPID == 0 {
		c.ParentPID = os.Getpid()
	}
	if c.Boot.IsZero() {
		c.Boot = c.Clock.Now()
	}
	return c
}
