package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
)

// postStatusline takes what "notch-web statusline" read from Claude Code's
// statusLine: the plan's windows and a session's cost and context window.
// The board page shows them; state.json does not carry them.
func (s *Server) postStatusline(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	r, err := host.ParseStatuslineReport(body)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if !s.Host.Board().Report(r, s.Now()) {
		return echo.NewHTTPError(http.StatusNotFound, "no such session on the board")
	}
	return written(c, ok)
}
