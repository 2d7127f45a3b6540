package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/proc"
)

// postMCPMessage is notch-web mcp's send_message: {"sessionId", "text"}
// typed into another session of this machine as a Reply is, with every
// check of the Reply (the agent still in its pane, its input empty, the
// turn over), only when the host runs with --mcp-steer. The caller is the
// agent process that runs notch-web mcp (proc.Header), named in the log
// record. Only this machine may ask: an MCP server is a local program.
func (s *Server) postMCPMessage(c echo.Context) error {
	if !s.Locks.Local(c.Request()) {
		return echo.NewHTTPError(http.StatusForbidden, "an agent's message comes from notch-web mcp on this machine")
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	r, err := parseReplyRequest(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	caller := proc.Parse(c.Request().Header.Get(proc.Header))
	switch err := s.Host.Message(c.Request().Context(), r, caller); {
	case errors.Is(err, host.ErrMCPSteerOff), errors.Is(err, host.ErrMessageRemote):
		return echo.NewHTTPError(http.StatusForbidden, err.Error())
	case errors.Is(err, host.ErrMessageSelf):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case err != nil:
		return steerError(c, err)
	}
	return c.JSON(http.StatusOK, steerReply{OK: true})
}
