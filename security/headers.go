package security

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// PageHeaders sets the headers every HTML page carries. The CSP's
// frame-ancestors admits only this origin and the harness origins, so no
// other site can frame the pane and steer a click; 'unsafe-eval' is there
// because Datastar evaluates its expressions with Function().
func (l *Locks) PageHeaders() echo.MiddlewareFunc {
	ancestors := append([]string{"'self'"}, l.HarnessOrigins()...)
	slices.Sort(ancestors[1:])
	csp := strings.Join([]string{
		"default-src 'self'",
		"script-src 'self' 'unsafe-eval'",
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		"connect-src 'self'",
		"base-uri 'none'",
		"form-action 'self'",
		"object-src 'none'",
		"frame-ancestors " + strings.Join(ancestors, " "),
	}, "; ")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			return next(c)
		}
	}
}
