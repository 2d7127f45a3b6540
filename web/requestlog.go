package web

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/internal/logx"
)

// logWrites writes one INFO record per state-changing request — method,
// route, status and duration, never the body — in the ecosystem's
// dsh.http.request.v1 shape. It sits outside the locks, so a refused
// request is recorded with its 403 or 415 too.
func (s *Server) logWrites(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // the status is the error handler's answer
		}
		r := c.Request()
		s.Log.Info("request", "log_type", logx.TypeRequest, slog.Group("data",
			"method", r.Method, "path", r.URL.Path, "route", c.Path(),
			"status", c.Response().Status,
			"duration_ms", float64(time.Since(start).Microseconds())/1000))
		return nil
	}
}
