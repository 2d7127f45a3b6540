package window

import (
	"encoding/json"
	"time"
)

// State is what the supervisor is doing about the window.
type State string

// The four states /healthz and the pane show.
const (
	// Running: a window is alive (Status.PID).
	Running State = "running"
	// Waiting: no window; one is due at Status.Next (zero while the first
	// state.json is not written yet).
	Waiting State = "waiting"
	// Quit: the human quit the window from the tray; none is spawned before
	// Status.Next unless StartNow is called.
	Quit State = "quit"
	// Off: no supervision: no window program was given, or Run has not
	// started or has returned.
	Off State = "off"
)

// notStarted is Status.LastExit for a window that could not be started.
const notStarted = "did not start"

// Status is the supervisor's state as /healthz and the pane show it. In JSON
// the times are wall-clock milliseconds: since is null when zero, next null
// when no spawn is scheduled.
type Status struct {
	State State
	// PID is the running window's process id, else 0.
	PID int
	// Since is when the state began: the spawn (running), the exit or the
	// failed start (waiting), the quit's wallMs (quit).
	Since time.Time
	// Next is when the next window is due (waiting, quit), else zero.
	Next time.Time
	// LastExit says how the last window ended ("exit code 3", "killed by
	// SIGSEGV", "did not start"), "" before any did.
	LastExit string
	// Crashed is true when the last window ended with a non-zero code, a
	// signal, or did not start at all.
	Crashed bool
	// QuickDeaths counts the quick deaths in a row so far.
	QuickDeaths int
	// Spawns counts the windows started since Run began.
	Spawns int
}

type statusJSON struct {
	State       State  `json:"state"`
	PID         int    `json:"pid"`
	Since       *int64 `json:"since"`
	Next        *int64 `json:"next"`
	LastExit    string `json:"lastExit,omitempty"`
	Crashed     bool   `json:"crashed"`
	QuickDeaths int    `json:"quickDeaths"`
	Spawns      int    `json:"spawns"`
}

func msOrNull(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// MarshalJSON writes {state, pid, since, next, lastExit, crashed,
// quickDeaths, spawns} with since and next as wall-clock ms or null.
func (s Status) MarshalJSON() ([]byte, error) {
	return json.Marshal(statusJSON{
		State: s.State, PID: s.PID, Since: msOrNull(s.Since), Next: msOrNull(s.Next),
		LastExit: s.LastExit, Crashed: s.Crashed, QuickDeaths: s.QuickDeaths, Spawns: s.Spawns,
	})
}

// Lead is the clock-free start of the state in words, as the pane's
// "Desktop window" group says it; the page finishes it from Since and Next
// on its own clock (notch.js): "running since" 10:42, "crashed;
// restarting" in 12 s (or at 10:47, or now), "quit from the tray; back at"
// 11:42, "starting", "off".
func (s Status) Lead() string {
	switch s.State {
	case Running:
		return "running since"
	case Quit:
		return "quit from the tray; back at"
	case Waiting:
		if s.Next.IsZero() {
			return "starting"
		}
		switch {
		case s.LastExit == notStarted:
			return "did not start; retrying"
		case s.Crashed:
			return "crashed; restarting"
		}
		return "exited; restarting"
	}
	return "off"
}
