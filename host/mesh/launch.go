package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/logx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// A session started on another machine (docs/launch.md), as its Reply
// goes: the hub's POST, behind the hub's locks and the device's role,
// becomes a NATS request to notch.<machine>.launch, which only that
// machine receives and no machine may send (machinePerms). The machine
// checks it against its own launch file (host.Host.LaunchHere) and
// replies with the outcome: a hub cannot make a machine run what that
// machine did not allow, and a revoked machine, whose key the hub refuses,
// hears nothing. The same subject answers what the machine's file allows
// (the New session sheet's choices).

// launchWait bounds the hub's wait for a machine's reply: a start's git
// and tmux (launch.Timeout) and the way there and back.
const launchWait = launch.Timeout + 3*time.Second

// maxLaunchBody bounds a launch request: a first prompt of
// terminal.MaxReply bytes, JSON-escaped, and the names beside it.
const maxLaunchBody = 64 << 10

// maxLaunchReply bounds a machine's reply (its options: roots, agents).
const maxLaunchReply = 256 << 10

// wireLaunch is the hub's request to a machine: a start, or (Options) a
// question about what its launch file allows.
type wireLaunch struct {
	Options bool   `json:"options,omitempty"`
	Device  string `json:"device,omitempty"`
	Folder  string `json:"folder,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Branch  string `json:"branch,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	Resume  string `json:"resume,omitempty"`
}

// wireLaunchReply is a machine's answer.
type wireLaunchReply struct {
	OK       bool                `json:"ok"`
	Code     string              `json:"code,omitempty"`
	Error    string              `json:"error,omitempty"`
	Folder   string              `json:"folder,omitempty"`
	Worktree string              `json:"worktree,omitempty"`
	Pane     string              `json:"pane,omitempty"`
	Options  *host.LaunchOptions `json:"options,omitempty"`
}

// launchCodes are the refusals a machine names, each a host or launch error.
var launchCodes = []struct {
	code string
	err  error
}{
	{"off", launch.ErrOff},
	{"folder", launch.ErrFolder},
	{"agent", launch.ErrAgent},
	{"hooks", launch.ErrHooks},
	{"prompt", launch.ErrPrompt},
	{"branch", launch.ErrBranch},
	{"worktree", launch.ErrWorktree},
	{"resume", launch.ErrResume},
	{"rate", launch.ErrRate},
	{"full", launch.ErrFull},
	{"tmux", launch.ErrTmux},
	{"not-here", host.ErrLaunchOff},
	{"following", host.ErrFollowing},
}

func launchCode(err error) string {
	for _, c := range launchCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "failed"
}

func launchErr(code string) error {
	for _, c := range launchCodes {
		if c.code == code {
			return c.err
		}
	}
	return nil
}

// Launcher starts a session on this machine for the hub (host.Host's
// LaunchHere), and says what its launch file allows (LaunchOptionsHere).
type Launcher interface {
	LaunchHere(ctx context.Context, r host.LaunchRequest) (launch.Result, error)
	LaunchOptionsHere() host.LaunchOptions
}

// SetLauncher gives a publishing machine the way to start the hub's
// sessions. Without one, every start is refused (not-here).
func (n *Node) SetLauncher(l Launcher) {
	n.boardMu.Lock()
	n.launcher = l
	n.boardMu.Unlock()
}

// decodeLaunch reads the hub's request strictly; what may start is the
// launcher's to check.
func decodeLaunch(data []byte) (wireLaunch, error) {
	if len(data) > maxLaunchBody {
		return wireLaunch{}, errors.New("the request is too large")
	}
	var w wireLaunch
	if err := jsonx.DecodeOne(data, &w, jsonx.Options{Strict: true}); err != nil {
		return wireLaunch{}, errors.New(jsonx.Reason(err))
	}
	return w, nil
}

// onLaunch applies a start the hub sent, or answers what may start, and
// replies.
func (n *Node) onLaunch(m *nats.Msg) {
	reply := func(r wireLaunchReply) {
		b, _ := json.Marshal(r)
		_ = m.Respond(b)
	}
	w, err := decodeLaunch(m.Data)
	if err != nil {
		reply(wireLaunchReply{Code: "failed", Error: err.Error()})
		return
	}
	n.boardMu.Lock()
	l := n.launcher
	n.boardMu.Unlock()
	if l == nil {
		reply(wireLaunchReply{Code: "not-here", Error: host.ErrLaunchOff.Error()})
		return
	}
	if w.Options {
		o := l.LaunchOptionsHere()
		reply(wireLaunchReply{OK: true, Options: &o})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), launch.Timeout)
	defer cancel()
	res, err := l.LaunchHere(ctx, host.LaunchRequest{Device: w.Device, Request: launch.Request{
		Folder: w.Folder, Agent: w.Agent, Branch: w.Branch, Prompt: w.Prompt, Resume: w.Resume,
	}})
	if err != nil {
		reply(wireLaunchReply{Code: launchCode(err), Error: err.Error()})
		return
	}
	n.log.Info("started a session for the hub", "log_type", logx.TypeMesh, slog.Group("data", "agent", w.Agent, "pane", res.Pane))
	reply(wireLaunchReply{OK: true, Folder: res.Folder, Worktree: res.Worktree, Pane: res.Pane})
}

// askLaunch is the hub's side: one request to the machine, its reply.
func (n *Node) askLaunch(ctx context.Context, machine string, w wireLaunch) (wireLaunchReply, error) {
	body, _ := json.Marshal(w)
	ctx, cancel := context.WithTimeout(ctx, launchWait)
	defer cancel()
	msg, err := n.nc.RequestWithContext(ctx, launchSubject(machine), body)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return wireLaunchReply{}, fmt.Errorf("%w: %s is not connected to the hub", host.ErrMachineAway, machine)
	case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return wireLaunchReply{}, fmt.Errorf("%w: %s did not reply within %v, so whether it started is not known", host.ErrMachineAway, machine, launchWait)
	case err != nil:
		return wireLaunchReply{}, fmt.Errorf("%w: %s could not be asked (%v)", host.ErrMachineAway, machine, err)
	}
	var rep wireLaunchReply
	if len(msg.Data) > maxLaunchReply || jsonx.DecodeOne(msg.Data, &rep, jsonx.Options{}) != nil {
		return wireLaunchReply{}, fmt.Errorf("%w: %s replied with something that is not an answer", host.ErrMachineAway, machine)
	}
	if !rep.OK {
		if e := launchErr(rep.Code); e != nil {
			return rep, fmt.Errorf("%w (%s says: %s)", e, machine, said(rep.Error))
		}
		return rep, fmt.Errorf("%w: %s could not do it", host.ErrMachineAway, machine)
	}
	return rep, nil
}

// said is a machine's words as the hub passes them on: one line of at most
// 300 bytes, nothing in it that acts on a screen.
func said(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || textrule.Has(string(r)) {
			return ' '
		}
		return r
	}, s)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// sendLaunch asks a machine to start a session.
func (n *Node) sendLaunch(ctx context.Context, machine string, r host.LaunchRequest) (launch.Result, error) {
	rep, err := n.askLaunch(ctx, machine, wireLaunch{Device: r.Device, Folder: r.Folder, Agent: r.Agent, Branch: r.Branch, Prompt: r.Prompt, Resume: r.Resume})
	if err != nil {
		return launch.Result{}, err
	}
	return launch.Result{Folder: rep.Folder, Worktree: rep.Worktree, Pane: rep.Pane}, nil
}

// sendLaunchOptions asks a machine what its launch file allows.
func (n *Node) sendLaunchOptions(ctx context.Context, machine string) (host.LaunchOptions, error) {
	rep, err := n.askLaunch(ctx, machine, wireLaunch{Options: true})
	if err != nil {
		return host.LaunchOptions{Machine: machine}, err
	}
	if rep.Options == nil {
		return host.LaunchOptions{Machine: machine}, fmt.Errorf("%w: %s said nothing of its launch file", host.ErrMachineAway, machine)
	}
	o := *rep.Options
	o.Machine = machine
	return o, nil
}

// launchable says whether a start may be sent to machine: a name paired
// here now (a revoked one is not), present.
func (r *remote) launchable(machine string) error {
	if CheckName(machine) != nil {
		return fmt.Errorf("%w: no machine %q", host.ErrMachineAway, machine)
	}
	if r.allowed != nil && !r.allowed(machine) {
		return fmt.Errorf("%w: %s is not paired with this hub", host.ErrMachineAway, machine)
	}
	r.mu.Lock()
	m := r.machines[machine]
	present := m != nil && m.present
	r.mu.Unlock()
	if !present {
		return fmt.Errorf("%w: %s is quiet", host.ErrMachineAway, machine)
	}
	return nil
}

// Launch is host.RemoteLauncher's: a start on another machine, decided
// there.
func (r *remote) Launch(ctx context.Context, machine string, lr host.LaunchRequest) (launch.Result, error) {
	if err := r.launchable(machine); err != nil {
		return launch.Result{}, err
	}
	if r.sendLaunch == nil {
		return launch.Result{}, host.ErrLaunchOff
	}
	return r.sendLaunch(ctx, machine, lr)
}

// LaunchOptions is host.RemoteLauncher's: what another machine's launch
// file allows.
func (r *remote) LaunchOptions(ctx context.Context, machine string) (host.LaunchOptions, error) {
	if err := r.launchable(machine); err != nil {
		return host.LaunchOptions{Machine: machine}, err
	}
	if r.sendLaunchOpts == nil {
		return host.LaunchOptions{Machine: machine}, host.ErrLaunchOff
	}
	return r.sendLaunchOpts(ctx, machine)
}
