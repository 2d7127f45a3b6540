package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/adapters/install"
	"github.com/notch-web/notch-web/web/templates"
)

// HookHealth is the host's watch on the agents' hooks (cmd/notch-web's
// hookWatch): the banners the pane shows, and their Reinstall.
type HookHealth interface {
	// Faults are the banners now: hooks gone from a settings file, or a
	// hook channel gone silent.
	Faults() []templates.HookFault
	// Reinstall runs notch-web hooks install <agent> (the same merge and
	// backup) and reads the watched files again.
	Reinstall(agent string) (install.Result, error)
}

// reinstallReply answers a Reinstall: the files written and their backups.
type reinstallReply struct {
	OK      bool     `json:"ok"`
	Files   []string `json:"files"`
	Backups []string `json:"backups"`
}

// postReinstall is the banner's Reinstall: {"agent": "claude-code"} puts
// that agent's hooks back in its user settings, as notch-web hooks install
// does. Only a plainly local request may ask (this machine's own browser):
// a paired phone may not rewrite the host's files.
func (s *Server) postReinstall(c echo.Context) error {
	if !s.Locks.Local(c.Request()) {
		return echo.NewHTTPError(http.StatusForbidden, "hooks are reinstalled from the host itself (its own browser, or notch-web hooks install there)")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	agent, err := parseReinstallRequest(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if s.Hub == nil || s.Hub.Hooks == nil {
		return echo.NewHTTPError(http.StatusConflict, "this notch-web watches no agent's hooks")
	}
	res, err := s.Hub.Hooks.Reinstall(agent)
	switch {
	case errors.Is(err, ErrNotWatched):
		return echo.NewHTTPError(http.StatusConflict, "notch-web's hooks for "+agent+" were not installed when the host started: run notch-web hooks install "+agent)
	case err != nil:
		return fail(http.StatusInternalServerError, "could not reinstall the hooks: run notch-web hooks install "+agent, err)
	}
	reply := reinstallReply{OK: true, Files: []string{}, Backups: []string{}}
	for _, ch := range res.Changes {
		reply.Files = append(reply.Files, ch.Path)
		if ch.Backup != "" {
			reply.Backups = append(reply.Backups, ch.Backup)
		}
	}
	return written(c, reply)
}

// ErrNotWatched is HookHealth.Reinstall's refusal of an agent that had no
// hooks in place when the host started: the click puts back what was
// there, nothing new.
var ErrNotWatched = errors.New("no hooks of this agent are watched")

// reinstallRequest is the body of POST /agents-notch/reinstall.
type reinstallRequest struct {
	Agent string `json:"agent"`
}

// parseReinstallRequest reads {"agent": NAME}, NAME one of the agents
// notch-web installs hooks for.
func parseReinstallRequest(body []byte) (string, error) {
	var req reinstallRequest
	if err := decodeStrict(body, &req); err != nil || !slices.Contains(install.Agents, req.Agent) {
		return "", fmt.Errorf(`want {"agent": one of %s}`, strings.Join(install.Agents, ", "))
	}
	return req.Agent, nil
}
