package web

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

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
// window to start (409). Start now spawns at most one window per
// window.DefaultStartNowGap: within it the answer is 429 with Retry-After.
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
	if wait := s.Host.Window().StartNow(); wait > 0 {
		// Honest: nothing was started, and this is when one will be.
		secs := int((wait + time.Second - 1) / time.Second)
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return c.JSON(http.StatusTooManyRequests, errReply{Error: fmt.Sprintf("the window was started moments ago; Start now again in %d s", secs)})
	}
	return written(c, windowReply{OK: true, Window: s.Host.Window().Status()})
}
