package host

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/internal/logx"
)

// Starting a session from the board (docs/launch.md): a request names the
// machine, and that machine alone decides, by its own launch file
// (host/launch). This machine's starts go to its Launcher; another's
// travel over the hub to that machine (RemoteLauncher, host/mesh), which
// applies them with its own Launch. Every start and every refusal is one
// agents-notch.launch.v1 record and one entry of the history (who: the
// device; what: machine, folder, agent, worktree) — never the prompt's
// text, only its length.

// LaunchRequest is a start asked from the board.
type LaunchRequest struct {
	// Machine is the machine to start it on: "" or this machine's name is
	// this one.
	Machine string
	// Device is who asked, as a person reads it (the paired device's
	// name; "" this computer's own browser).
	Device string
	launch.Request
}

// LaunchOptions are what a machine's launch file lets the board offer.
type LaunchOptions struct {
	Machine   string   `json:"machine"`
	On        bool     `json:"on"`
	Roots     []string `json:"roots"`
	Agents    []string `json:"agents"`
	Resumes   []string `json:"resumes"` // the allowed agents that resume by id
	Worktrees bool     `json:"worktrees"`
	// Offered are folders this machine's rows ran in that no root
	// allows: offered to the human (notch-web launch allow-folder DIR),
	// never allowed by being seen.
	Offered []string `json:"offered"`
	Problem string   `json:"problem,omitempty"` // why the file cannot be read
}

// RemoteLauncher is the part of a Remote that asks another machine to
// start a session (host/mesh): that machine's own Launch, or
// ErrMachineAway.
type RemoteLauncher interface {
	Launch(ctx context.Context, machine string, r LaunchRequest) (launch.Result, error)
	LaunchOptions(ctx context.Context, machine string) (LaunchOptions, error)
}

// RecordedLaunch is a start or a refusal, as the history keeps it.
type RecordedLaunch struct {
	At                      time.Time
	Machine, Device         string
	Folder, Agent, Worktree string
	Resume                  string
	Outcome                 string // "started" or the refusal's words
	Pane                    string
}

// LaunchRecorder is a Recorder that keeps starts too (host/store).
type LaunchRecorder interface {
	RecordLaunch(l RecordedLaunch)
}

// ErrLaunchOff: this host starts nothing (it follows another, or was given
// no launcher).
var ErrLaunchOff = errors.New("this notch-web starts no session")

// SetLauncher gives the host this machine's launcher and its name in the
// mesh ("" alone); nil starts nothing here. Call it before Run.
func (h *Host) SetLauncher(l *launch.Launcher, machine string) {
	h.launcher, h.machine = l, machine
}

// local reports whether machine is this one.
func (h *Host) local(machine string) bool { return machine == "" || machine == h.machine }

// remoteLauncher is the Remote's launcher, if it has one.
func (h *Host) remoteLauncher() (RemoteLauncher, bool) {
	if h.cfg.Remote == nil {
		return nil, false
	}
	rl, ok := h.cfg.Remote.(RemoteLauncher)
	return rl, ok
}

// Launch starts a session on the machine r names: this one by its own
// launch file, another through the hub. Its errors are host/launch's
// refusals, ErrLaunchOff, ErrFollowing and ErrMachineAway.
func (h *Host) Launch(ctx context.Context, r LaunchRequest) (launch.Result, error) {
	if err := h.takesInput(); err != nil {
		return launch.Result{}, err
	}
	if !h.local(r.Machine) {
		rl, ok := h.remoteLauncher()
		if !ok {
			return launch.Result{}, ErrLaunchOff
		}
		res, err := rl.Launch(ctx, r.Machine, r)
		h.noteLaunch(r, res, err)
		return res, err
	}
	return h.LaunchHere(ctx, r)
}

// LaunchHere starts a session on this machine, by its own launch file:
// the route's local start, and the hub's request arriving here.
func (h *Host) LaunchHere(ctx context.Context, r LaunchRequest) (launch.Result, error) {
	r.Machine = h.machine
	if h.launcher == nil || h.board.Follow() {
		h.noteLaunch(r, launch.Result{}, ErrLaunchOff)
		return launch.Result{}, ErrLaunchOff
	}
	res, err := h.launcher.Start(ctx, r.Request)
	h.noteLaunch(r, res, err)
	return res, err
}

// LaunchOptions is what the launch file of machine lets the board offer.
func (h *Host) LaunchOptions(ctx context.Context, machine string) (LaunchOptions, error) {
	if !h.local(machine) {
		rl, ok := h.remoteLauncher()
		if !ok {
			return LaunchOptions{Machine: machine}, ErrLaunchOff
		}
		return rl.LaunchOptions(ctx, machine)
	}
	return h.LaunchOptionsHere(), nil
}

// LaunchOptionsHere is this machine's LaunchOptions.
func (h *Host) LaunchOptionsHere() LaunchOptions {
	o := LaunchOptions{Machine: h.machine, Roots: []string{}, Agents: []string{}, Resumes: []string{}, Offered: []string{}}
	if h.launcher == nil || h.board.Follow() {
		return o
	}
	f, err := h.launcher.File()
	if err != nil {
		o.Problem = err.Error()
		return o
	}
	o.On, o.Roots, o.Worktrees = f.On(), append(o.Roots, f.Roots...), f.Worktrees != ""
	o.Agents = f.AgentNames()
	for _, a := range o.Agents {
		if launch.Resumes(a) {
			o.Resumes = append(o.Resumes, a)
		}
	}
	o.Offered = h.offered(f)
	return o
}

// maxOffered bounds the folders offered.
const maxOffered = 20

// offered are the folders this machine's rows ran in that f does not
// allow.
func (h *Host) offered(f launch.File) []string {
	out := []string{}
	doc, ok := h.board.Snapshot(time.Now())
	if !ok {
		return out
	}
	for _, s := range doc.Sessions {
		if len(out) == maxOffered {
			break
		}
		if s.Cwd == "" || slices.Contains(out, s.Cwd) || launch.CheckPath(s.Cwd) != nil {
			continue
		}
		if fi, err := os.Stat(s.Cwd); err != nil || !fi.IsDir() {
			continue
		}
		if _, _, err := f.Folder(s.Cwd); errors.Is(err, launch.ErrFolder) {
			out = append(out, s.Cwd)
		}
	}
	return out
}

// LaunchRefused records a start refused before it reached Launch (a
// paired device whose role does not allow starting sessions): one record
// and one history entry, as every refusal.
func (h *Host) LaunchRefused(r LaunchRequest, why error) {
	if h.local(r.Machine) {
		r.Machine = h.machine
	}
	h.noteLaunch(r, launch.Result{}, why)
}

// noteLaunch is a start's or a refusal's record and history entry.
func (h *Host) noteLaunch(r LaunchRequest, res launch.Result, err error) {
	outcome := "started"
	if err != nil {
		outcome = err.Error()
	}
	r.Folder, r.Agent, r.Branch, r.Resume = clip(r.Folder), clip(r.Agent), clip(r.Branch), clip(r.Resume)
	attrs := []any{"machine", r.Machine, "device", r.Device, "folder", r.Folder, "agent", r.Agent,
		"branch", r.Branch, "worktree", res.Worktree, "resume", r.Resume, "pane", res.Pane,
		"promptBytes", len(r.Prompt)}
	if err != nil {
		h.log.Warn("a start was refused", "log_type", logx.TypeLaunch, logx.Err("LaunchRefused", err), slog.Group("data", attrs...))
	} else {
		h.log.Info("started a session", "log_type", logx.TypeLaunch, slog.Group("data", attrs...))
	}
	if lr, ok := h.board.recorder().(LaunchRecorder); ok {
		folder := res.Folder
		if folder == "" {
			folder = r.Folder
		}
		lr.RecordLaunch(RecordedLaunch{At: time.Now(), Machine: r.Machine, Device: r.Device, Folder: folder,
			Agent: r.Agent, Worktree: res.Worktree, Resume: r.Resume, Outcome: outcome, Pane: res.Pane})
	}
}

// clip bounds what a refused request puts in a record: a folder of a
// megabyte is said by its first 256 bytes.
func clip(s string) string {
	if len(s) > 256 {
		return s[:256] + "…"
	}
	return s
}
