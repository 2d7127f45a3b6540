package web

import (
	"github.com/labstack/echo/v4"
)

// postOTLP is POST /agents-notch/otlp/v1/{logs,metrics,traces}: an agent's
// own OpenTelemetry export (OTLP/HTTP, protobuf or JSON), as
// "notch-web hooks install <agent> --otel" points it here. The host's
// receiver (host/otlp) answers as the OTLP/HTTP spec says; what it takes
// is summed on the rows it names (host/spent.go).
func (s *Server) postOTLP(c echo.Context) error {
	s.Host.OTLP().ServeHTTP(c.Response(), c.Request())
	return nil
}
