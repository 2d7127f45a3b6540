package security

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Export guards the OpenTelemetry receiver (host/otlp): the browser checks
// of Write (403), and only a plainly local request (Local): the agents
// that export run on this machine, and an export is no business of a
// paired device. The receiver bounds its own body (413, gzip too) and
// takes OTLP's two media types (415 for any other), which Write's
// JSON-only rule would refuse.
func (l *Locks) Export() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if reason := l.checkBrowser(r); reason != "" {
				return l.refuse(c, http.StatusForbidden, reason)
			}
			if !l.Local(r) {
				return l.refuse(c, http.StatusForbidden, "OpenTelemetry is taken from this machine only")
			}
			return next(c)
		}
	}
}
