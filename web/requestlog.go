package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/notch-web/notch-web/host"
	"github.com/notch-web/notch-web/internal/logx"
)

// opKey is the request context's key for its operation id.
type opKey struct{}

// OperationID is the operation id of the request ctx belongs to ("" none):
// the id its completion record carries, and every record it causes.
func OperationID(ctx context.Context) string {
	id, _ := ctx.Value(opKey{}).(string)
	return id
}

// newOperationID is 16 random hex digits.
func newOperationID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// logRequests gives every request an operation id (its context's; the
// answer's X-Operation-Id) and writes its one completion record when it
// ends, in the ecosystem's dsh.http.request.v1 shape: method, route,
// status and duration, never the body. A write, a read and a stream (when
// it closes) alike; INFO, but DEBUG for /healthz and the static files,
// which pollers and every page ask for all the time. It sits outside the
// locks, so a refused request is recorded with its 403 or 415 too.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		id := newOperationID()
		r := c.Request()
		released := &host.ReleasedBy{}
		r = r.WithContext(host.WithReleasedBy(context.WithValue(r.Context(), opKey{}, id), released))
		c.SetRequest(r)
		c.Response().Header().Set("X-Operation-Id", id)
		err := next(c)
		if err != nil {
			c.Error(err) // the status is the error handler's answer
		}
		level := slog.LevelInfo
		if p := r.URL.Path; p == "/healthz" || strings.HasPrefix(p, prefix+"/static/") {
			level = slog.LevelDebug
		}
		data := []any{"method", r.Method, "path", r.URL.Path, "route", c.Path(),
			"status", c.Response().Status,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000}
		if released.ID != "" {
			// A held hook's reply: the operation of the click that released it.
			data = append(data, "releasedBy", released.ID)
		}
		s.Log.Log(r.Context(), level, "request", "log_type", logx.TypeRequest, "operation_id", id, slog.Group("data", data...))
		return nil
	}
}

// recoverPanics turns a handler's panic into the standard fatal ERROR
// record and ends the process (logx.Recover): never a WARNING from
// http.Server's logger with the host carrying on.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		exit := s.Exit
		if exit == nil {
			exit = os.Exit
		}
		defer logx.Recover(s.Log, exit)()
		return next(c)
	}
}
