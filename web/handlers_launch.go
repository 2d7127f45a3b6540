package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/launch"
	"github.com/notch-web/notch-web/host/mesh"
	"github.com/notch-web/notch-web/security"
)

// launchBodyLimit holds a first prompt of terminal.MaxReply bytes, each
// escaped as JSON may, and the folder and names beside it.
const launchBodyLimit = 6*(8<<10) + 4096

// launchRequest is the body of POST /agents-notch/launch.
type launchRequest struct {
	Machine string `json:"machine"`
	Folder  string `json:"folder"`
	Agent   string `json:"agent"`
	Branch  string `json:"branch"`
	Prompt  string `json:"prompt"`
	Resume  string `json:"resume"`
}

// parseLaunchRequest reads a start strictly. What may start is the
// machine's to say (host/launch): here only the shape is checked, and a
// machine's name.
func parseLaunchRequest(body []byte) (host.LaunchRequest, error) {
	var req launchRequest
	if err := decodeStrict(body, &req); err != nil {
		return host.LaunchRequest{}, errors.New(`want {"machine", "folder", "agent", "branch", "prompt", "resume"}: ` + err.Error())
	}
	if req.Machine != "" {
		if err := mesh.CheckName(req.Machine); err != nil {
			return host.LaunchRequest{}, err
		}
	}
	if req.Folder == "" || req.Agent == "" {
		return host.LaunchRequest{}, errors.New("a start names a folder and an agent")
	}
	return host.LaunchRequest{Machine: req.Machine, Request: launch.Request{
		Folder: req.Folder, Agent: req.Agent, Branch: req.Branch, Prompt: req.Prompt, Resume: req.Resume,
	}}, nil
}

// launchReply answers a start: where it runs, for the board to find the
// row by.
type launchReply struct {
	OK       bool   `json:"ok"`
	Folder   string `json:"folder"`
	Worktree string `json:"worktree,omitempty"`
	Pane     string `json:"pane"`
}

// optionsReply is GET /agents-notch/launch/options: the machines to choose
// from, and what the chosen one's launch file allows.
type optionsReply struct {
	Machines []string `json:"machines"`
	host.LaunchOptions
}

// mayLaunch is the route's lock beyond the write locks: a device whose
// role is launch (this machine's own browser is).
func (s *Server) mayLaunch(c echo.Context) error {
	return s.requireRole(c, security.RoleLaunch)
}

// postLaunch is the board's Start: the machine named starts the agent in
// tmux if its own launch file allows it (host.Launch).
func (s *Server) postLaunch(c echo.Context) error {
	if err := s.mayLaunch(c); err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	r, err := parseLaunchRequest(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if d, ok := s.Locks.Device(c.Request()); ok {
		r.Device = d.Name
	}
	res, err := s.Host.Launch(c.Request().Context(), r)
	if err != nil {
		return launchError(c, err)
	}
	return c.JSON(http.StatusOK, launchReply{OK: true, Folder: res.Folder, Worktree: res.Worktree, Pane: res.Pane})
}

// launchRefused records a start a device's role refused before the
// route: every refusal is a record and a history entry (docs/launch.md).
// What the request asked is read as the route reads it; a body the route
// would refuse is recorded as a start of nothing named.
func (s *Server) launchRefused(c echo.Context, device, why string) {
	var r host.LaunchRequest
	if body, err := readBody(c); err == nil {
		if asked, err := parseLaunchRequest(body); err == nil {
			r = asked
		}
	}
	r.Device = device
	s.Host.LaunchRefused(r, errors.New(why))
}

// getLaunchOptions answers what the board's New session sheet offers for
// a machine (?machine=, "" this one).
func (s *Server) getLaunchOptions(c echo.Context) error {
	if err := s.mayLaunch(c); err != nil {
		return err
	}
	machine := c.QueryParam("machine")
	if machine != "" {
		if err := mesh.CheckName(machine); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, err.Error())
		}
	}
	o, err := s.Host.LaunchOptions(c.Request().Context(), machine)
	if err != nil {
		return launchError(c, err)
	}
	return c.JSON(http.StatusOK, optionsReply{Machines: s.launchMachines(), LaunchOptions: o})
}

// launchMachines are the machines a start may go to: this one ("") and
// the mesh's present ones.
func (s *Server) launchMachines() []string {
	out := []string{""}
	if s.Hub != nil && s.Hub.Mesh != nil {
		for _, m := range s.Hub.Mesh.Machines() {
			if m.Present {
				out = append(out, m.Name)
			}
		}
	}
	return out
}

// launchError maps Host.Launch's refusals to statuses: what the launch
// file does not allow is 403, a bad request 400, a bound 429, a machine
// away 503; tmux's own failure a 502 whose detail is logged only.
func launchError(c echo.Context, err error) error {
	public := func(status int) error {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return echo.NewHTTPError(status, msg)
	}
	switch {
	case errors.Is(err, host.ErrFollowing):
		return echo.NewHTTPError(http.StatusConflict, "this notch-web follows another host: it starts no session")
	case errors.Is(err, host.ErrLaunchOff), errors.Is(err, launch.ErrOff), errors.Is(err, launch.ErrFolder),
		errors.Is(err, launch.ErrAgent), errors.Is(err, launch.ErrHooks):
		return public(http.StatusForbidden)
	case errors.Is(err, launch.ErrPrompt), errors.Is(err, launch.ErrBranch), errors.Is(err, launch.ErrResume):
		return public(http.StatusBadRequest)
	case errors.Is(err, launch.ErrWorktree):
		return public(http.StatusConflict)
	case errors.Is(err, launch.ErrRate), errors.Is(err, launch.ErrFull):
		c.Response().Header().Set("Retry-After", strconv.Itoa(60))
		return public(http.StatusTooManyRequests)
	case errors.Is(err, host.ErrMachineAway):
		return public(http.StatusServiceUnavailable)
	}
	return fail(http.StatusBadGateway, "tmux could not start the session", err)
}
