package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host/window"
)

// windowReply answers it: the supervisor's state after the request.
type windowReply struct {
	OK     bool          `json:"ok"`
	Window window.Status `json:"window"`
}

// postWindow is the pane's Start now: {"start": true} ends a quit hold or a
// wait and spawns the desktop window at once. Without --window there is no
// window to start (409).
func (s *Server) postWindow(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if err := parseWindowRequest(body); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	if s.Host.Window() == nil {
		return echo.NewHTTPError(http.StatusConflict, "no desktop window is configured (--window)")
	}
	s.Host.Window().StartNow()
	return written(c, windowReply{OK: true, Window: s.Host.Window().Status()})
}
