package web

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/host/terminal"
	"github.com/notch-web/notch-web/internal/logx"
)

// terminalReply answers POST /agents-notch/terminal.
type terminalReply struct {
	OK bool `json:"ok"`
	// Switched: a tmux client was switched to the pane's session; else
	// the client attached to it was kept and only the window and pane
	// moved.
	Switched bool `json:"switched"`
	// Attach is set when no tmux client is attached: the pane was made
	// current, and this command attaches one there.
	Attach string `json:"attach,omitempty"`
}

// postTerminal is a row's Go to terminal: {sessionId} of a row of this
// host running in tmux. The host runs tmux itself (a fixed argv, no
// shell) to switch the client to the session's pane. 404: no terminal
// known for the session; 409: it does not run in tmux (its door, if any,
// is a command the board copies); 410: the pane is gone; 429 with
// Retry-After: another Go to terminal runs (they never queue); 502: tmux
// failed.
func (s *Server) postTerminal(c echo.Context) error {
	id, err := readSessionRequest(c)
	if err != nil {
		return err
	}
	where, res, err := s.Host.GoToTerminal(c.Request().Context(), id)
	switch {
	case errors.Is(err, host.ErrNoTerminal):
		return echo.NewHTTPError(http.StatusNotFound, "no terminal is known for this session")
	case errors.Is(err, terminal.ErrNoTmux):
		return echo.NewHTTPError(http.StatusConflict, "the session does not run in tmux: copy the command that gets there")
	case errors.Is(err, terminal.ErrBusy):
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(terminal.RetryAfter/time.Second)))
		return echo.NewHTTPError(http.StatusTooManyRequests, "another Go to terminal is running: try again in a moment")
	case errors.Is(err, terminal.ErrGone):
		return fail(http.StatusGone, "the session's tmux pane is gone", err)
	case err != nil:
		return fail(http.StatusBadGateway, "tmux could not switch to the session's pane", err)
	}
	s.Log.Info("went to a session's terminal", "log_type", logx.TypeTerminal,
		slog.Group("data", "pane", where.TmuxPane, "switched", res.Switched, "client", res.Client != ""))
	reply := terminalReply{OK: true, Switched: res.Switched}
	if res.Client == "" {
		reply.Attach = where.AttachCommand()
	}
	// Datastar is not the caller (notch.js reads the reply): always JSON.
	return c.JSON(http.StatusOK, reply)
}
