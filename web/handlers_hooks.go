package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/logx"
)

// postHook is POST /agents-notch/hooks/<agent>: an agent's own hook JSON,
// as the agent sends it (Claude Code's "type": "http" hooks post here
// directly; notch-web hook <agent> relays the others). It answers at once
// with an empty 200 — never a decision, which would approve or deny on the
// human's behalf — whatever the board made of it; only a body that is not
// the agent's hook JSON is refused (400), so a broken bridge is noticed.
func (s *Server) postHook(c echo.Context) error {
	agent := c.Param("agent")
	body, err := readBody(c)
	if err != nil {
		return err
	}
	n, err := s.Host.Hook(agent, body, s.Now())
	switch {
	case errors.Is(err, host.ErrNoAgent):
		return echo.NewHTTPError(http.StatusNotFound, err.Error())
	case errors.Is(err, host.ErrFollowing):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case errors.Is(err, host.ErrPayload):
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	case err != nil:
		s.Log.Warn("hook not applied", "log_type", logx.TypeHooks,
			logx.Err("HookError", err), slog.Group("data", "agent", agent))
	default:
		s.Log.Debug("hook applied", "log_type", logx.TypeHooks, slog.Group("data", "agent", agent, "events", n))
	}
	return c.NoContent(http.StatusOK)
}
